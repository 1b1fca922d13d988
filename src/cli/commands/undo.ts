import type { CAC } from "cac";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { RestoreStore, DEFAULT_BOUNDS } from "../../shell/restore.js";
import { Journal, latestSession, undoEntry, workspaceOf, type UndoSelector } from "../../shell/undo.js";
import { polarHome, shellStorePath } from "../../hooks/server.js";
import { action, CliError, usageError } from "../errors.js";
import { hasSqlJournals, listSql, undoSql } from "./undo-sql.js";

// `polar undo`: the shell guard's undo (docs/shell.md, "Undo"). `--list` shows each approved execution
// of the session (the call, its π, what an undo would put back); without it the last execution not yet
// undone is undone, or the N-th from the end (`polar undo 2`), or `--id X`. `--dry-run` judges and
// previews without changing anything. Exit 0 when done (or listed), 1 when refused or failed.

interface UndoFlags {
  store?: string;
  session?: string;
  cwd?: string;
  list?: boolean;
  id?: string;
  dryRun?: boolean;
  json?: boolean;
  sql?: boolean;
  database?: string;
}

export function register(cli: CAC): void {
  cli
    .command("undo [n]", "Undo an approved shell call of a session (polar-guard/shell): --list, N, --id X, --dry-run")
    .option("--store <dir>", "the shell guard's restore-point store (default $POLAR_SHELL_STORE, else the hooks' store ~/.polar/store, $POLAR_HOME/store)")
    .option("--session <id>", "the session (default: the most recent one in the store that acted in this workspace)")
    .option("--cwd <dir>", "the workspace: picks the session and shows paths in the preview (default the current directory)")
    .option("--list", "list the session's approved executions with a preview of their undo")
    .option("--id <id>", "undo this execution (an id from --list)")
    .option("--dry-run", "judge and preview the undo, change nothing")
    .option("--json", "print JSON")
    .option("--sql", "the SQL executions of the store (polar-guard/sql, polar mcp --dispatch); also chosen by an id `q-…`")
    .option("--database <url>", "with an SQL execution on PostgreSQL: postgres://… to connect to it")
    .action(
      action(async (n: string | undefined, flags: UndoFlags) => {
        if (flags.store !== undefined && (typeof flags.store !== "string" || flags.store === "")) throw usageError("bad-option", "`--store` needs a directory");
        const env = process.env.POLAR_SHELL_STORE;
        const given = flags.store ?? (env !== undefined && env !== "" ? env : undefined);
        // Without --store: the same store the hooks' daemon writes (shellStorePath, one definition).
        const store = resolve(given ?? shellStorePath(polarHome()));
        if (n !== undefined && flags.id !== undefined) throw usageError("bad-option", "give either N or `--id`, not both");
        if (n !== undefined && !/^[1-9][0-9]*$/.test(String(n))) throw usageError("bad-option", `N is a positive integer (1 = the last), got \`${n}\``);
        // SQL executions: asked for, named by an SQL id, or the store has no shell journal but an SQL one.
        const sqlOnly = flags.sql === true || (flags.id !== undefined && String(flags.id).startsWith("q-")) || (!existsSync(`${store}/sessions`) && hasSqlJournals(store));
        if (sqlOnly) {
          if (!hasSqlJournals(store)) throw new CliError("no-store", `${store} has no SQL journal (no sql/sessions/)`);
          if (flags.list) {
            const l = await listSql(store, flags);
            process.stdout.write(flags.json ? JSON.stringify({ sql: { session: l.session, executions: l.executions } }, null, 2) + "\n" : l.lines.join("\n") + "\n");
            return;
          }
          const r = await undoSql(store, flags.id !== undefined ? { id: String(flags.id) } : n !== undefined ? Number(n) : undefined, flags);
          process.stdout.write(flags.json ? JSON.stringify(r.json, null, 2) + "\n" : `${r.text}\n`);
          if (!r.ok) process.exitCode = 1;
          return;
        }
        if (flags.database !== undefined) throw usageError("bad-option", "`--database` goes with SQL executions (`--sql`)");
        if (!existsSync(`${store}/sessions`)) {
          throw new CliError("no-store", given !== undefined ? `${store} is not a shell guard store (no sessions/)` : `no restore points in the hooks' store ${store} yet (no sessions/); pass \`--store DIR\` for another store`);
        }
        const cwd = resolve(flags.cwd ?? process.cwd());
        // Without --session: the latest session that acted in this workspace (the git work tree of the
        // directory, else the directory), never another project's.
        const workspace = workspaceOf(cwd);
        const session = flags.session ?? latestSession(store, workspace);
        if (session === null || !/^[A-Za-z0-9._-]{1,128}$/.test(session) || !existsSync(`${store}/sessions/${session}.jsonl`)) {
          throw new CliError(
            "no-session",
            session === null ? `no session in ${store} acted in ${workspace}` : `no session \`${session}\` in ${store}`,
            session === null ? "run it in the agent's workspace, or pass `--cwd DIR` or `--session ID`" : undefined,
          );
        }
        const journal = new Journal(`${store}/sessions/${session}.jsonl`);
        if (flags.list) {
          const list = journal.list(cwd);
          // The store's SQL executions are listed too (the latest SQL session, or --session's).
          const sql = hasSqlJournals(store) ? await listSql(store, flags).catch(() => null) : null;
          if (flags.json) process.stdout.write(JSON.stringify({ session, executions: list, ...(sql ? { sql: { session: sql.session, executions: sql.executions } } : {}) }, null, 2) + "\n");
          else {
            for (const e of [...list].reverse()) {
              const call = JSON.stringify((e.call as { args?: unknown })?.args ?? e.call);
              process.stdout.write(`${e.index}. ${e.id}${e.undone ? " (undone)" : ""} ${e.tier} ${call}\n`);
              for (const p of e.preview) process.stdout.write(`     undo: ${p}\n`);
              if (e.restorePoint) process.stdout.write(`     restore point ${e.restorePoint.id} (${e.restorePoint.files} files, ${e.restorePoint.bytes} bytes, sha256 ${e.restorePoint.digest})\n`);
            }
            if (list.length === 0) process.stdout.write(`no approved executions in session ${session}\n`);
            if (sql) process.stdout.write(`SQL (session ${sql.session}):\n${sql.lines.join("\n")}\n`);
          }
          return;
        }
        if (n !== undefined && flags.id !== undefined) throw usageError("bad-option", "give either N or `--id`, not both");
        let sel: UndoSelector;
        if (flags.id !== undefined) sel = { id: String(flags.id) };
        else if (n !== undefined) {
          if (!/^[1-9][0-9]*$/.test(String(n))) throw usageError("bad-option", `N is a positive integer (1 = the last), got \`${n}\``);
          sel = Number(n);
        }
        const r = undoEntry(journal, new RestoreStore(store, DEFAULT_BOUNDS), cwd, sel, flags.dryRun === true);
        if (flags.json) process.stdout.write(JSON.stringify(r, null, 2) + "\n");
        else {
          process.stdout.write(`${r.message}\n`);
          for (const s of r.steps) process.stdout.write(`  ${r.reason === "undone" ? "ran" : "would run"}: ${s}\n`);
        }
        if (!r.ok) process.exitCode = 1;
      }),
    );
}

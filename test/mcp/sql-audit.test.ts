// A dispatcher tool's decisions go to the gateway's audit chain (issue 25: the SQL dispatcher judged "by
// the same core, policies and audit log"): `polar mcp --dispatch query=sql:sql --database … --audit-log
// FILE` in front of the SQLite MCP server fixture writes one `polar-dispatch/1` record per statement,
// wrapping the SQL guard's core decision and its outcome; `polar audit verify` replays it with the SQL
// ontology, and a tampered record fails. Before the fix an approved DELETE left no record at all.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordHash, summarizeLog, verifyAuditLog } from "../../src/audit/index.js";
import { sqlReadOnlyChecker } from "../../src/sql/index.js";
import { verifyDispatchRecord as dispatchRecords } from "../../src/audit/dispatch-verify.js";
import { DECISION_META_KEY } from "../../src/mcp/gateway.js";
import { gateway, ROOT, tempDir } from "./helpers.js";
import { dump, seed, SQLITE_SERVER, textOf } from "./sqlite-fixture.js";

const SQL_BLOB = readFileSync(join(ROOT, "ontologies/sql/sql.blob"));
const tmp = tempDir("sqlaudit");
afterAll(() => tmp.cleanup());

function lines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("polar mcp --dispatch TOOL=sql:ARG --audit-log FILE", () => {
  it("an approved DELETE and a refused statement are in the chain with the core decision behind them; the log verifies, a tampered one does not", async () => {
    const file = join(tmp.dir, "app.db");
    seed(file);
    const ontology = join(tmp.dir, "o.polar");
    writeFileSync(ontology, "read_only(list_tables).\n");
    const rules = join(tmp.dir, "rules.json");
    writeFileSync(rules, JSON.stringify({ format: "polar-projection/1", domain: "sqlite", entities: {} }));
    const log = join(tmp.dir, "decisions.jsonl");
    const g = await gateway({ ontology, rules, server: [process.execPath, SQLITE_SERVER, file], auditLog: log, extraArgs: ["--dispatch", "query=sql:sql", "--database", `sqlite:${file}`, "--store", join(tmp.dir, "store")] });
    try {
      const del = await g.call("query", { sql: "DELETE FROM orders WHERE id = 7" });
      expect(del.isError, textOf(del)).toBeFalsy();
      expect(del._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "sql", action: "allow" });
      expect(dump(file).orders).toHaveLength(2);
      const bad = await g.call("query", { sql: "DELETE FROM" });
      expect(bad.isError).toBe(true);
      const sel = await g.call("query", { sql: "SELECT item FROM orders" });
      expect(sel.isError, textOf(sel)).toBeFalsy();
    } finally {
      await g.close();
    }
    const recs = lines(log);
    // A statement that is sent has two records: its decision before it is sent (`pending`), then the
    // same with its outcome (fail closed: a gateway that stops in between still leaves the decision).
    expect(recs.map((r) => r.outcome)).toEqual(["pending", "ran", "refused", "pending", "ran"]);
    expect(recs[1]).toEqual({ ...recs[0], outcome: "ran", chain: recs[1].chain });
    expect(recs[4]).toEqual({ ...recs[3], outcome: "ran", chain: recs[4].chain });
    expect(recs[0]).toMatchObject({ format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "DELETE FROM orders WHERE id = 7", action: "allow", outcome: "pending" });
    const core = (recs[0].decisions as Array<Record<string, unknown>>);
    expect(core).toHaveLength(1);
    expect(core[0]).toMatchObject({ format: "polar-decision/1", approved: true });
    expect(recs[2]).toMatchObject({ format: "polar-dispatch/1", text: "DELETE FROM", outcome: "refused" });
    expect(recs[2].action).not.toBe("allow");
    expect(recs[4]).toMatchObject({ format: "polar-dispatch/1", text: "SELECT item FROM orders", action: "allow", reason: "read_only", decisions: [], readOnly: { dialect: "sqlite" }, outcome: "ran" });
    const sqlReadOnly = await sqlReadOnlyChecker();

    const text = readFileSync(log, "utf8");
    // `polar audit summary` counts them (before, they were unreadable lines).
    const summary = summarizeLog(text);
    expect(summary.unreadable).toEqual([]);
    expect(summary.dispatched).toEqual({ "sql allow pending": 2, "sql allow ran": 2, [`sql ${String(recs[2].action)} refused`]: 1 });
    const ok = verifyAuditLog(text, { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(ok.mismatches).toEqual([]);
    expect(ok).toMatchObject({ ok: true, total: 5, verified: 5 });
    // A verifier without the dispatcher-record check (kept out of the default bundle) does not pass them.
    expect(verifyAuditLog(text, { ontologies: [SQL_BLOB], sqlReadOnly }).mismatches.map((m) => [m.line, m.field])).toEqual([[1, "format"], [2, "format"], [3, "format"], [4, "format"], [5, "format"]]);
    // The read-only approval is never taken on trust: without the SQL parser to re-derive it, a mismatch.
    expect(verifyAuditLog(text, { ontologies: [SQL_BLOB], dispatchRecords }).mismatches).toEqual([4, 5].flatMap((line) => [expect.objectContaining({ line, field: "readOnly" }), expect.objectContaining({ line, field: "action" })]));

    // Tampered: the approval's core decision says it was vetoed; the allow then follows from nothing.
    const vetoed = JSON.parse(JSON.stringify(recs[0])) as Record<string, unknown>;
    (vetoed.decisions as Array<Record<string, unknown>>)[0].approved = false;
    const relinked = [JSON.stringify(vetoed), ...recs.slice(1).map((r) => JSON.stringify(r))].join("\n") + "\n";
    const bad = verifyAuditLog(relinked, { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(bad.ok).toBe(false);
    expect(bad.mismatches.map((m) => m.field)).toEqual(expect.arrayContaining(["decisions[0].approved", "action"]));
    // Tampered: the refused statement claims it ran.
    const ran = verifyAuditLog([JSON.stringify(recs[0]), JSON.stringify(recs[1]), JSON.stringify({ ...recs[2], outcome: "ran" })].join("\n") + "\n", { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(ran.mismatches).toEqual([expect.objectContaining({ line: 3, field: "outcome", expected: "refused (the call was not allowed)" })]);
    // Tampered: the refused statement claims it was about to be sent.
    const pending = verifyAuditLog([JSON.stringify(recs[0]), JSON.stringify(recs[1]), JSON.stringify({ ...recs[2], outcome: "pending" })].join("\n") + "\n", { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(pending.mismatches).toEqual([expect.objectContaining({ line: 3, field: "outcome", expected: "refused (the call was not allowed)" })]);
    // Tampered: the read-only approval's statement is swapped for a DELETE (chain re-linked, so only
    // the re-derivation can catch it).
    const swapped = { ...recs[4], text: "DELETE FROM orders" };
    const prevHash = recordHash(recs[3]);
    expect((recs[4].chain as { prev: string }).prev).toBe(prevHash);
    const forged = verifyAuditLog([...recs.slice(0, 4), swapped].map((r) => JSON.stringify(r)).join("\n") + "\n", { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(forged.mismatches).toEqual([expect.objectContaining({ line: 5, field: "readOnly", actual: "read-only" }), expect.objectContaining({ line: 5, field: "action" })]);
    // Tampered: the refused statement's record is dropped from the file (the chain breaks).
    const dropped = verifyAuditLog(text.split("\n")[0] + "\n", { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly });
    expect(dropped.ok).toBe(true); // a prefix is a valid log on its own…
    const head = ok.head.hash;
    expect(verifyAuditLog(text.split("\n")[0] + "\n", { ontologies: [SQL_BLOB], dispatchRecords, sqlReadOnly, head }).ok).toBe(false); // …but not against the anchored head
    // The CLI: `polar audit verify LOG --ontology ontologies/sql/sql.blob` loads the SQL parser for the SELECT.
    const cli = (f: string) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "audit", "verify", f, "--ontology", join(ROOT, "ontologies/sql/sql.blob"), "--json"], { cwd: ROOT, encoding: "utf8" });
    const good = cli(log);
    expect(good.status, good.stderr + good.stdout).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, total: 5, verified: 5 });
    const forgedFile = join(tmp.dir, "forged.jsonl");
    writeFileSync(forgedFile, relinked);
    expect(cli(forgedFile).status).toBe(1);
    // Without the SQL ontology the core decision cannot be replayed.
    expect(verifyAuditLog(text, { ontologies: [], dispatchRecords, sqlReadOnly }).mismatches).toEqual([1, 2].map((line) => expect.objectContaining({ line, field: "decisions[0].ontologyHash" })));
  });
});

describe("polar mcp --dispatch TOOL=shell:ARG --audit-log FILE", () => {
  it("ls (read-only, its evidence re-derived) and rm (a core decision under a restore point) are in the chain; polar audit verify accepts the log and refuses a forged one", async () => {
    const ws = join(tmp.dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "notes.txt"), "keep me\n");
    const ontology = join(tmp.dir, "s.polar");
    writeFileSync(ontology, "tool(other).\n");
    const rules = join(tmp.dir, "srules.json");
    writeFileSync(rules, JSON.stringify({ format: "polar-projection/1", domain: "shell", entities: {} }));
    const log = join(tmp.dir, "shell.jsonl");
    const g = await gateway({ ontology, rules, server: [process.execPath, join(ROOT, "test/fixtures/mcp-shell-server/server.mjs"), ws], auditLog: log, extraArgs: ["--dispatch", "run_command=shell:command", "--workspace", ws, "--store", join(tmp.dir, "sstore")] });
    try {
      expect((await g.call("run_command", { command: "ls" })).isError).toBeFalsy();
      expect((await g.call("run_command", { command: "rm notes.txt" })).isError).toBeFalsy();
      expect((await g.call("run_command", { command: "frobnicate --all" })).isError).toBe(true);
    } finally {
      await g.close();
    }
    const recs = lines(log);
    expect(recs.map((r) => [r.format, r.dispatcher, r.action, r.outcome])).toEqual([
      ["polar-dispatch/1", "shell", "allow", "pending"],
      ["polar-dispatch/1", "shell", "allow", "ran"],
      ["polar-dispatch/1", "shell", "allow", "pending"],
      ["polar-dispatch/1", "shell", "allow", "ran"],
      ["polar-dispatch/1", "shell", expect.stringMatching(/^(ask|deny)$/), "refused"],
    ]);
    expect(recs[0]).toMatchObject({ decisions: [], readOnly: { command: "ls", cwd: ws } });
    expect((recs[3].decisions as unknown[]).length).toBe(1);
    const cli = (f: string) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "audit", "verify", f, "--ontology", join(ROOT, "ontologies/shell/shell.blob"), "--json"], { cwd: ROOT, encoding: "utf8" });
    const good = cli(log);
    expect(good.status, good.stderr + good.stdout).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, total: 5, verified: 5 });
    // Forged: the read-only evidence claims `rm notes.txt` (the last record, so the chain still links).
    const forged = join(tmp.dir, "shell-forged.jsonl");
    writeFileSync(forged, [...recs.slice(0, 4), { ...recs[4], text: "rm notes.txt", action: "allow", outcome: "ran", readOnly: { ...(recs[0].readOnly as object), command: "rm notes.txt" } }].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const bad = cli(forged);
    expect(bad.status).toBe(1);
    expect((JSON.parse(bad.stdout) as { mismatches: Array<{ line: number; field: string }> }).mismatches).toEqual(expect.arrayContaining([expect.objectContaining({ line: 5, field: "readOnly" }), expect.objectContaining({ line: 5, field: "action" })]));
  });
});

// `polar init <agent>`: the agent's hook configuration, merged into the file that is there. The user's
// other hooks and settings stay as they are; polar's own entries (the `polar-hook <agent>` command,
// the daemon's loopback http route) are replaced, so running init twice gives one set; the old file is
// kept beside it as `<file>.polar-backup`. A file that is not a JSON object is refused, never
// overwritten; a file that is there keeps its mode, and a symbolic link stays one (the file it points
// to is written).
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { eventNames, isHookAgent, type AGENTS } from "./agents.js";

type Agent = (typeof AGENTS)[number];

export type Scope = "project" | "user";

/** The tools each agent's hooks are installed for (the rest never reach polar). */
export const MATCHERS: Record<Agent, string> = {
  "claude-code": "Bash|Write|Edit|MultiEdit|NotebookEdit",
  codex: "Bash|shell|local_shell|exec_command|unified_exec|apply_patch",
  gemini: "run_shell_command|write_file|replace",
};

/** The agent's hook timeout as written (Claude Code and Codex: seconds; Gemini CLI: ms). The hook's own
 * deadline (20 s, `polar hook`) answers well before it. */
const TIMEOUT: Record<Agent, number> = { "claude-code": 60, codex: 60, gemini: 60_000 };

export class InitError extends Error {
  override readonly name = "InitError";
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** `local`: Claude Code's `.claude/settings.local.json` (a project's own, not committed: where an http
 * hook's token goes for `--project`). */
export function configFile(agent: Agent, scope: Scope, project: string, home: string = homedir(), local = false): string {
  const base = scope === "user" ? home : project;
  switch (agent) {
    case "claude-code":
      return join(base, ".claude", local && scope === "project" ? "settings.local.json" : "settings.json");
    case "codex":
      return join(base, ".codex", "hooks.json");
    case "gemini":
      return join(base, ".gemini", "settings.json");
  }
}

type Json = Record<string, unknown>;

interface HookGroup {
  matcher?: string;
  hooks: Array<Record<string, unknown>>;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** polar's command hook as hookCommand writes it, `'<dir>/polar-hook' <agent>` (or an older unquoted
 * path): the program is a file named `polar-hook` and its one argument an agent. A command of the
 * user's that only mentions polar-hook (a wrapper script, a logger) is the user's. */
function isPolarCommand(command: string): boolean {
  const m = /^(?:'((?:[^']|'\\'')*)'|([^\s']+)) ([a-z-]+)$/u.exec(command);
  if (m === null || !isHookAgent(m[3])) return false;
  // (a quoted path keeps its escaped quotes `'\\''`: "polar-hook" holds none, so they never decide)
  const program = m[1] ?? m[2]!;
  return program === "polar-hook" || program.endsWith("/polar-hook");
}

/** polar's entries: the command hook and the http hook (the daemon's loopback `/http/<agent>` route). */
function isPolar(h: unknown): boolean {
  if (!isObject(h)) return false;
  if (typeof h.command === "string" && isPolarCommand(h.command)) return true;
  if (h.type !== "http" || typeof h.url !== "string") return false;
  const m = /^http:\/\/127\.0\.0\.1:\d+\/http\/([a-z-]+)$/u.exec(h.url);
  return m !== null && isHookAgent(m[1]);
}

function readConfig(file: string): Json {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new InitError("bad-config", `\`${file}\` is not JSON (${e instanceof Error ? e.message : String(e)}): left as it is`);
  }
  if (!isObject(v)) throw new InitError("bad-config", `\`${file}\` is not a JSON object: left as it is`);
  if (v.hooks !== undefined && !isObject(v.hooks)) throw new InitError("bad-config", `\`${file}\`: \`hooks\` is not an object: left as it is`);
  return v;
}

/** `hooks` without polar's entries (groups left empty by that are dropped). */
function withoutPolar(hooks: Json, file: string): Json {
  const out: Json = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) throw new InitError("bad-config", `\`${file}\`: hooks.${event} is not a list: left as it is`);
    const kept = [];
    for (const g of groups) {
      if (isObject(g) && Array.isArray(g.hooks)) {
        const own = g.hooks.filter((h) => !isPolar(h));
        if (own.length === 0 && g.hooks.length > 0) continue;
        kept.push({ ...g, hooks: own });
      } else {
        kept.push(g);
      }
    }
    if (kept.length > 0) out[event] = kept;
  }
  return out;
}

export function hookCommand(hookScript: string, agent: Agent): string {
  return `'${hookScript.replace(/'/gu, `'\\''`)}' ${agent}`;
}

/** The file to write in place of `file`: the file a symbolic link points to (a settings file kept with
 * the user's dotfiles stays linked), or `file` itself. A link to nothing is refused. */
function target(file: string): string {
  if (!lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return file;
  try {
    return realpathSync(file);
  } catch {
    throw new InitError("bad-config", `\`${file}\` is a symbolic link to nothing: left as it is`);
  }
}

function write(file: string, config: Json, secret = false): string | null {
  mkdirSync(dirname(file), { recursive: true });
  const into = target(file);
  let backup: string | null = null;
  // The mode to write with: a file that carries the daemon's token (an http hook) is the user's alone;
  // a file that is there keeps its own (settings the user made private stay private).
  let mode: number | null = secret ? 0o600 : null;
  if (existsSync(into)) {
    // The file as it was before polar first touched it: kept once, never overwritten by a later run.
    backup = `${file}.polar-backup`;
    if (!existsSync(backup)) copyFileSync(into, backup);
    mode ??= statSync(into).mode & 0o777;
  }
  const tmp = `${into}.polar-tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, mode === null ? {} : { mode });
  // The mode as asked, whatever the umask took off at creation.
  if (mode !== null) chmodSync(tmp, mode);
  renameSync(tmp, into);
  return backup;
}

export interface InitResult {
  file: string;
  backup: string | null;
}

/** Claude Code's `http` hook straight to the daemon (no process per call): the loopback port and the
 * token of `<home>/polar.tcp`. */
export interface HttpHookTarget {
  port: number;
  token: string;
}

/** Installs polar's hooks for `agent` in `file` (merging). `mcpServers`: servers with an ontology, whose
 * tools (`mcp__<server>__…`) the pre-tool hook also takes. `http` (Claude Code only): the pre- and
 * post-tool hooks are `http` hooks to the daemon with `onFailure: "block"` (Claude Code 2.1.295 or
 * later: a daemon that is down, too slow or answering garbage blocks the call); the session-start hook
 * stays the command hook, which starts the daemon. */
export function installHooks(agent: Agent, file: string, hookScript: string, mcpServers: readonly string[] = [], http: HttpHookTarget | null = null): InitResult {
  if (http !== null && agent !== "claude-code") throw new InitError("bad-option", `\`--http\` is for Claude Code (its \`http\` hook type); ${agent} runs command hooks`);
  const config = readConfig(file);
  const hooks = withoutPolar(isObject(config.hooks) ? config.hooks : {}, file);
  const command = hookCommand(hookScript, agent);
  const entry = { type: "command", command, timeout: TIMEOUT[agent] };
  const toolEntry =
    http === null
      ? entry
      : { type: "http", url: `http://127.0.0.1:${http.port}/http/${agent}`, headers: { Authorization: `Bearer ${http.token}` }, timeout: TIMEOUT[agent], onFailure: "block" };
  const matcher = [MATCHERS[agent], ...mcpServers.map((s) => `mcp__${s.replace(/[^A-Za-z0-9_-]/gu, "")}__.*`)].join("|");
  const names = eventNames(agent);
  const add = (event: string, group: HookGroup): void => {
    hooks[event] = [...((hooks[event] as unknown[] | undefined) ?? []), group];
  };
  add(names.pre, { matcher, hooks: [toolEntry] });
  add(names.post, { matcher, hooks: [toolEntry] });
  // The daemon is started when a session starts, so the first tool call finds it warm.
  add(names.start, { hooks: [entry] });
  return { file, backup: write(file, { ...config, hooks }, http !== null) };
}

/** Removes polar's hooks from `file`, keeping everything else. False when there were none. */
export function removeHooks(file: string): InitResult & { removed: boolean } {
  const config = readConfig(file);
  if (!isObject(config.hooks) || !installed(file)) return { file, backup: null, removed: false };
  const hooks = withoutPolar(config.hooks, file);
  const next: Json = { ...config, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return { file, backup: write(file, next), removed: true };
}

/** Does `file` hold polar's pre-tool hook for its agent? */
export function installed(file: string): boolean {
  try {
    const config = readConfig(file);
    if (!isObject(config.hooks)) return false;
    return Object.values(config.hooks).some((groups) => Array.isArray(groups) && groups.some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isPolar)));
  } catch {
    return false;
  }
}

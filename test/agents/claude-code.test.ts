// The real Claude Code CLI (`claude -p … --output-format json`) against a scripted Messages API on
// loopback, in real git repositories with polar's hooks installed by `polar init claude-code`. Checks
// what ran (the files), what Claude Code's JSON result lists under `permission_denials`, what the
// model was told (the tool result), and that the session's audit log verifies.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentBin, daemonPid, describeAgent, gitWorkspace, polar, ROOT, run, stopDaemon, type Workspace } from "./helpers.js";
import { startScriptedApi, type ScriptedApi, type ScriptedCall } from "./scripted-anthropic.js";

const TIMEOUT = 120_000;

interface ClaudeResult {
  is_error: boolean;
  permission_denials: Array<{ tool_name: string; tool_input: Record<string, unknown> }>;
  session_id: string;
}

let api: ScriptedApi;
const spaces: Workspace[] = [];

async function claude(ws: Workspace, script: ScriptedCall[], env: NodeJS.ProcessEnv = {}): Promise<{ result: ClaudeResult; toolResults: ScriptedApi["results"] }> {
  api.reset(script);
  // Bypass mode: Claude Code's own permission prompts are off, so what stops a call is polar's hook.
  const r = await run(agentBin("claude"), ["-p", "do the task", "--output-format", "json", "--dangerously-skip-permissions"], {
    cwd: ws.repo,
    env: {
      ...process.env,
      HOME: ws.home,
      POLAR_HOME: ws.polarHome,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "sk-scripted",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      IS_SANDBOX: "1",
      ...env,
    },
  });
  if (r.status !== 0) throw new Error(`claude exited ${r.status}: ${r.stderr.slice(0, 2000)} ${r.stdout.slice(0, 2000)}`);
  return { result: JSON.parse(r.stdout) as ClaudeResult, toolResults: api.results.slice() };
}

function workspace(files: Record<string, string> = {}): Workspace {
  const ws = gitWorkspace(files);
  spaces.push(ws);
  polar(ws, ["init", "claude-code"]);
  return ws;
}

function sessionLog(ws: Workspace): string {
  const dir = join(ws.polarHome, "audit");
  // The session's log, not its `.lock` (held while the daemon has the session open).
  const logs = readdirSync(dir).filter((f) => f.startsWith("claude-code-") && f.endsWith(".jsonl"));
  expect(logs).toHaveLength(1);
  return join(dir, logs[0]);
}

function hookRecords(ws: Workspace): Array<{ action: string; code: string; reason: string; tool: string }> {
  return readFileSync(sessionLog(ws), "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

/** The session's shell guard as the daemon built it (same store and journal): for undo. */
async function shellGuardOf(ws: Workspace, sessionId: string) {
  const { createShellGuard } = await import("../../src/shell/index.js");
  const session = createHash("sha256").update(`claude-code\u0000${sessionId}`).digest("hex").slice(0, 16);
  return createShellGuard({ cwd: ws.repo, store: join(ws.polarHome, "store"), session });
}

/** `polar audit verify` on the session's log (exit 0 = every record re-derived, chain intact). */
function verifyLog(ws: Workspace): string {
  const shell = join(ROOT, "ontologies/shell/shell.blob");
  const ontology = existsSync(shell) ? shell : join(ROOT, "ontologies/mcp-memory/memory.blob");
  return polar(ws, ["audit", "verify", sessionLog(ws), "--ontology", ontology]);
}

describeAgent("claude", "Claude Code (real CLI, scripted API) with polar's hooks", () => {
  beforeAll(async () => {
    api = await startScriptedApi();
  });
  afterAll(async () => {
    for (const ws of spaces) stopDaemon(ws);
    await api.close();
  });

  it("control: without polar's hooks the scripted `rm` really deletes the untracked file", async () => {
    const ws = workspace();
    polar(ws, ["init", "claude-code", "--remove"]);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const { result } = await claude(ws, [{ name: "Bash", input: { command: "rm notes.txt", description: "remove" } }]);
    expect(result.permission_denials).toEqual([]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
  }, TIMEOUT);

  it("git reset --hard over uncommitted work: runs only with a restore point, and undo brings the work back", async () => {
    const ws = workspace({ "src/a.ts": "v1\n" });
    writeFileSync(join(ws.repo, "src/a.ts"), "hours of work\n");
    const { result, toolResults } = await claude(ws, [{ name: "Bash", input: { command: "git reset --hard", description: "reset" } }]);
    expect(result.permission_denials).toEqual([]);
    expect(toolResults[0].text).toContain("HEAD is now at");
    expect(readFileSync(join(ws.repo, "src/a.ts"), "utf8")).toBe("v1\n");
    const rec = hookRecords(ws)[0];
    expect(rec).toMatchObject({ action: "allow", code: "restore_point" });
    expect(rec.reason).toMatch(/restore point/u);
    const undo = (await shellGuardOf(ws, result.session_id)).undo();
    expect(undo).toMatchObject({ ok: true });
    expect(readFileSync(join(ws.repo, "src/a.ts"), "utf8")).toBe("hours of work\n");
    expect(verifyLog(ws)).toMatch(/1 of 1 decisions re-derived, 0 mismatches/u);
  }, TIMEOUT);

  it("git reset --hard on a clean tree: runs, no question, no restore point needed", async () => {
    const ws = workspace({ "a.txt": "a\n" });
    const { result } = await claude(ws, [{ name: "Bash", input: { command: "git reset --hard", description: "reset" } }]);
    expect(result.permission_denials).toEqual([]);
    expect(hookRecords(ws)[0]).toMatchObject({ action: "allow" });
    expect(hookRecords(ws)[0].code).not.toBe("restore_point");
  }, TIMEOUT);

  it("rm of an untracked file: kept in a restore point first, then it runs; undo puts it back", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const { result } = await claude(ws, [{ name: "Bash", input: { command: "rm notes.txt", description: "remove" } }]);
    expect(result.permission_denials).toEqual([]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
    expect(hookRecords(ws)[0]).toMatchObject({ action: "allow", code: "restore_point" });
    // As the README says: `polar undo` (no option: the daemon's store $POLAR_HOME/store; its latest session).
    expect(polar(ws, ["undo"])).toMatch(/undo|restor/iu);
    expect(readFileSync(join(ws.repo, "notes.txt"), "utf8")).toBe("mine\n");
  }, TIMEOUT);

  it("rm -rf outside the project: what it says and what survives", async () => {
    const ws = workspace();
    const outside = join(ws.home, "elsewhere");
    mkdirSync(outside);
    writeFileSync(join(outside, "keep.txt"), "keep\n");
    const { result } = await claude(ws, [{ name: "Bash", input: { command: `rm -rf ${outside}`, description: "rm" } }]);
    const rec = hookRecords(ws)[0];
    if (rec.action === "allow") {
      // Approved only with a restore point of what it deletes: undo brings it back.
      expect(rec.code).toBe("restore_point");
      expect((await shellGuardOf(ws, result.session_id)).undo()).toMatchObject({ ok: true });
    } else {
      expect(result.permission_denials).toHaveLength(1);
    }
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("keep\n");
  }, TIMEOUT);

  it("Write over an untracked file: kept first, the write runs, undo restores the old content", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "draft.md"), "hours of work\n");
    // Claude Code's Write wants the file read first (its own check, before any hook): Read, then Write.
    const { result } = await claude(ws, [
      { name: "Read", input: { file_path: join(ws.repo, "draft.md") } },
      { name: "Write", input: { file_path: join(ws.repo, "draft.md"), content: "oops\n" } },
    ]);
    expect(result.permission_denials).toEqual([]);
    expect(readFileSync(join(ws.repo, "draft.md"), "utf8")).toBe("oops\n");
    expect(hookRecords(ws)[0]).toMatchObject({ tool: "Write", action: "allow", code: "restore_point" });
    expect((await shellGuardOf(ws, result.session_id)).undo()).toMatchObject({ ok: true });
    expect(readFileSync(join(ws.repo, "draft.md"), "utf8")).toBe("hours of work\n");
  }, TIMEOUT);

  it("git push --force to a local bare remote: an external effect, asked; -p cannot answer, so it is denied and the remote keeps its history", async () => {
    const ws = workspace({ "a.txt": "a\n" });
    const remote = join(ws.home, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    execFileSync("git", ["remote", "add", "origin", remote], { cwd: ws.repo });
    execFileSync("git", ["push", "-q", "origin", "main"], { cwd: ws.repo });
    const before = execFileSync("git", ["rev-parse", "main"], { cwd: remote, encoding: "utf8" });
    execFileSync("git", ["commit", "-q", "--amend", "-m", "rewritten"], { cwd: ws.repo });
    const { result } = await claude(ws, [{ name: "Bash", input: { command: "git push --force origin main", description: "push" } }]);
    expect(result.permission_denials.map((d) => d.tool_input.command)).toEqual(["git push --force origin main"]);
    expect(hookRecords(ws)[0].action).not.toBe("allow");
    expect(execFileSync("git", ["rev-parse", "main"], { cwd: remote, encoding: "utf8" })).toBe(before);
  }, TIMEOUT);

  it("a command the dispatcher cannot resolve: not approved, the reason names it", async () => {
    const ws = workspace();
    const { result, toolResults } = await claude(ws, [{ name: "Bash", input: { command: "frobnicate --all", description: "x" } }]);
    expect(result.permission_denials).toHaveLength(1);
    expect(toolResults[0].text).toMatch(/unknown_command/u);
  }, TIMEOUT);

  it("the daemon killed mid-session: the next call is refused with the reason, and a new daemon answers after it", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "a.txt"), "a\n");
    let killed: number | null = null;
    const { result, toolResults } = await claude(ws, [
      { name: "Bash", input: { command: "ls", description: "one" } },
      {
        name: "Bash",
        input: { command: "rm a.txt", description: "two" },
        before: () => {
          killed = daemonPid(ws);
          if (killed !== null) process.kill(killed, "SIGKILL");
        },
      },
    ]);
    expect(killed).not.toBeNull();
    expect(toolResults).toHaveLength(2);
    expect(toolResults[1].isError).toBe(true);
    expect(toolResults[1].text).toMatch(/daemon was not running/u);
    expect(toolResults[0].isError).toBe(false);
    expect(result.permission_denials).toHaveLength(1);
    expect(existsSync(join(ws.repo, "a.txt"))).toBe(true);
    const after = daemonPid(ws);
    expect(after).not.toBeNull();
    expect(after).not.toBe(killed);
    expect(polar(ws, ["serve", "--status"])).toMatch(/polar daemon/u);
  }, TIMEOUT);

  it("polar itself cannot run (its Node is missing): the hook still blocks, with the reason", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "b.txt"), "b\n");
    const { result, toolResults } = await claude(ws, [{ name: "Bash", input: { command: "rm b.txt", description: "rm" } }], { POLAR_NODE: "/nonexistent/node" });
    expect(result.permission_denials).toHaveLength(1);
    expect(toolResults[0].text).toMatch(/polar hook failed/u);
    expect(existsSync(join(ws.repo, "b.txt"))).toBe(true);
  }, TIMEOUT);
});

/** The installed Claude Code's version, or null. `onFailure` (an http hook that cannot be reached
 * blocks instead of letting the call run) exists from 2.1.295. */
function claudeVersion(): [number, number, number] | null {
  try {
    const m = /(\d+)\.(\d+)\.(\d+)/u.exec(execFileSync(agentBin("claude"), ["--version"], { encoding: "utf8", env: { ...process.env, DISABLE_AUTOUPDATER: "1" } }));
    return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
  } catch {
    return null;
  }
}

const version = claudeVersion();
const hasOnFailure = version !== null && (version[0] > 2 || (version[0] === 2 && (version[1] > 1 || (version[1] === 1 && version[2] >= 295))));
const httpWhy = `needs Claude Code 2.1.295 or later for the http hook's onFailure (installed: ${version?.join(".") ?? "none"} in POLAR_AGENTS_DIR; .ci/run installs 2.1.332)`;

describeAgent("claude", "Claude Code (real CLI, scripted API) with polar's http hook (`polar init claude-code --http`)", () => {
  if (!hasOnFailure) {
    if (process.env.POLAR_REQUIRE_CLAUDE_HTTP === "1") throw new Error(`${httpWhy} (POLAR_REQUIRE_CLAUDE_HTTP=1)`);
    console.warn(`skipped: Claude Code http hook [${httpWhy}]`);
    it.skipIf(true)(`Claude Code http hook [${httpWhy}]`, () => {});
    return;
  }
  beforeAll(async () => {
    api = await startScriptedApi();
  });
  afterAll(async () => {
    for (const ws of spaces) stopDaemon(ws);
    await api.close();
  });

  function httpWorkspace(files: Record<string, string> = {}): Workspace {
    const ws = gitWorkspace(files);
    spaces.push(ws);
    expect(polar(ws, ["init", "claude-code", "--http"])).toMatch(/settings\.local\.json/u);
    return ws;
  }

  it("the tool calls reach the daemon over http: an rm is kept in a restore point and runs, an unknown command is asked (denied in -p)", async () => {
    const ws = httpWorkspace();
    const local = JSON.parse(readFileSync(join(ws.repo, ".claude/settings.local.json"), "utf8"));
    expect(local.hooks.PreToolUse[0].hooks[0]).toMatchObject({ type: "http", onFailure: "block" });
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const { result, toolResults } = await claude(ws, [
      { name: "Bash", input: { command: "rm notes.txt", description: "rm" } },
      { name: "Bash", input: { command: "frobnicate --all", description: "x" } },
    ]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
    expect(result.permission_denials.map((d) => d.tool_input.command)).toEqual(["frobnicate --all"]);
    expect(toolResults[1].text).toMatch(/unknown_command/u);
    expect(hookRecords(ws).map((r) => [r.action, r.code])).toEqual([["allow", "restore_point"], ["ask", "unknown_command"]]);
  }, TIMEOUT);

  it("the daemon killed mid-session: the http hook cannot connect and onFailure blocks the call (the file survives)", async () => {
    const ws = httpWorkspace();
    writeFileSync(join(ws.repo, "a.txt"), "a\n");
    let killed: number | null = null;
    const { result, toolResults } = await claude(ws, [
      { name: "Bash", input: { command: "ls", description: "one" } },
      {
        name: "Bash",
        input: { command: "rm a.txt", description: "two" },
        before: () => {
          killed = daemonPid(ws);
          if (killed !== null) process.kill(killed, "SIGKILL");
        },
      },
    ]);
    expect(killed).not.toBeNull();
    expect(toolResults[0].isError).toBe(false);
    expect(toolResults[1].isError).toBe(true);
    expect(existsSync(join(ws.repo, "a.txt"))).toBe(true);
    expect(result.permission_denials.map((d) => d.tool_input.command)).toEqual(["rm a.txt"]);
  }, TIMEOUT);
});

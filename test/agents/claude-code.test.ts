// The real Claude Code CLI (`claude -p … --output-format json`) against a scripted Messages API on
// loopback, in real git repositories with polar's hooks installed by `polar init claude-code`. Checks
// what ran (the files), what Claude Code's JSON result lists under `permission_denials`, what the
// model was told (the tool result), and that the session's audit log verifies.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
  const logs = readdirSync(dir).filter((f) => f.startsWith("claude-code-"));
  expect(logs).toHaveLength(1);
  return join(dir, logs[0]);
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

  it("rm of an untracked file without the shell guard: refused with the reason, listed in permission_denials, the file survives, the log verifies", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const { result, toolResults } = await claude(ws, [{ name: "Bash", input: { command: "rm notes.txt", description: "remove" } }]);
    expect(result.permission_denials.map((d) => [d.tool_name, d.tool_input.command])).toEqual([["Bash", "rm notes.txt"]]);
    expect(toolResults[0]).toMatchObject({ isError: true });
    expect(toolResults[0].text).toContain("shell guard not available");
    expect(readFileSync(join(ws.repo, "notes.txt"), "utf8")).toBe("mine\n");
    expect(verifyLog(ws)).toMatch(/1 of 1 decisions re-derived, 0 mismatches/u);
  }, TIMEOUT);

  it("Write over an untracked file without the shell guard: refused, the content is unchanged", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "draft.md"), "hours of work\n");
    // Claude Code's Write wants the file read first (its own check, before any hook): Read, then Write.
    const { result, toolResults } = await claude(ws, [
      { name: "Read", input: { file_path: join(ws.repo, "draft.md") } },
      { name: "Write", input: { file_path: join(ws.repo, "draft.md"), content: "oops\n" } },
    ]);
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["Write"]);
    expect(toolResults[1].text).toContain("shell guard not available");
    expect(readFileSync(join(ws.repo, "draft.md"), "utf8")).toBe("hours of work\n");
  }, TIMEOUT);

  it("the daemon killed mid-session: the next call is refused with the reason, and a new daemon answers after it", async () => {
    const ws = workspace();
    writeFileSync(join(ws.repo, "a.txt"), "a\n");
    let killed: number | null = null;
    const { result, toolResults } = await claude(ws, [
      { name: "Bash", input: { command: "rm a.txt", description: "one" } },
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
    expect(result.permission_denials).toHaveLength(2);
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

// The real Codex CLI (`codex exec --json`) against a scripted Responses API on loopback (a custom
// model provider in config.toml), hooks installed by `polar init codex --user`. Codex runs hooks only
// once the user has reviewed them (its hook trust); this unattended run passes
// `--dangerously-bypass-hook-trust`, which is what that review grants.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentBin, describeAgent, gitWorkspace, polar, run, stopDaemon, type Workspace } from "./helpers.js";
import { startScriptedOpenAi, type OpenAiCall, type ScriptedOpenAi } from "./scripted-openai.js";

const TIMEOUT = 120_000;
let api: ScriptedOpenAi;
const spaces: Workspace[] = [];

function workspace(hooks: boolean): Workspace {
  const ws = gitWorkspace();
  spaces.push(ws);
  mkdirSync(join(ws.home, ".codex"), { recursive: true });
  writeFileSync(
    join(ws.home, ".codex/config.toml"),
    [
      'model = "gpt-scripted"',
      'model_provider = "scripted"',
      "[model_providers.scripted]",
      'name = "scripted"',
      `base_url = "${api.url}"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_KEY"',
      `[projects."${ws.repo}"]`,
      'trust_level = "trusted"',
      "",
    ].join("\n"),
  );
  if (hooks) polar(ws, ["init", "codex", "--user"]);
  return ws;
}

async function codex(ws: Workspace, script: OpenAiCall[]): Promise<ScriptedOpenAi["outputs"]> {
  api.reset(script);
  const r = await run(agentBin("codex"), ["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "do the task"], {
    cwd: ws.repo,
    env: { ...process.env, HOME: ws.home, CODEX_HOME: join(ws.home, ".codex"), POLAR_HOME: ws.polarHome, SCRIPTED_KEY: "scripted" },
  });
  if (r.status !== 0) throw new Error(`codex exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  return api.outputs.slice();
}

describeAgent("codex", "Codex CLI (real CLI, scripted API) with polar's hooks", () => {
  beforeAll(async () => {
    api = await startScriptedOpenAi();
  });
  afterAll(async () => {
    for (const ws of spaces) stopDaemon(ws);
    await api.close();
  });

  it("control: without polar's hooks the scripted `rm` deletes the untracked file", async () => {
    const ws = workspace(false);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    await codex(ws, [{ name: "exec_command", arguments: { cmd: "rm notes.txt" } }]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
  }, TIMEOUT);

  it("with polar's PreToolUse hook: an escalation is a denial naming `polar approve ID` (Codex cannot ask); rm of an untracked file runs after a restore point", async () => {
    const ws = workspace(true);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const outputs = await codex(ws, [
      { name: "exec_command", arguments: { cmd: "frobnicate --all" } },
      { name: "exec_command", arguments: { cmd: "rm notes.txt" } },
    ]);
    expect(outputs).toHaveLength(2);
    expect(outputs[0].output).toMatch(/blocked by PreToolUse hook: .*unknown_command.*polar approve [0-9a-f]{8}/u);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
  }, TIMEOUT);
});

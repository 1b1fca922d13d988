// The real Gemini CLI (`gemini -p … --output-format json --yolo`) against a scripted Gemini API on
// loopback (GOOGLE_GEMINI_BASE_URL with an API key), hooks installed by `polar init gemini --user`.
// The model is named (`-m`) so the CLI's model router, which asks the API for a JSON classification,
// is not in the way.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentBin, describeAgent, gitWorkspace, polar, run, stopDaemon, type Workspace } from "./helpers.js";
import { startScriptedGemini, type GeminiCall, type ScriptedGemini } from "./scripted-gemini.js";

const TIMEOUT = 120_000;
let api: ScriptedGemini;
const spaces: Workspace[] = [];

function workspace(hooks: boolean): Workspace {
  const ws = gitWorkspace();
  spaces.push(ws);
  mkdirSync(join(ws.home, ".gemini"), { recursive: true });
  // API-key auth (the base URL alone selects a gateway mode that -p refuses); no folder-trust prompt.
  writeFileSync(join(ws.home, ".gemini/settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } } }));
  if (hooks) polar(ws, ["init", "gemini", "--user"]);
  return ws;
}

async function gemini(ws: Workspace, script: GeminiCall[]): Promise<ScriptedGemini["responses"]> {
  api.reset(script);
  const r = await run(agentBin("gemini"), ["-p", "do the task", "--output-format", "json", "--yolo", "-m", "gemini-2.5-flash"], {
    cwd: ws.repo,
    env: { ...process.env, HOME: ws.home, POLAR_HOME: ws.polarHome, GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: "scripted" },
  });
  if (r.status !== 0) throw new Error(`gemini exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  return api.responses.slice();
}

describeAgent("gemini", "Gemini CLI (real CLI, scripted API) with polar's hooks", () => {
  beforeAll(async () => {
    api = await startScriptedGemini();
  });
  afterAll(async () => {
    for (const ws of spaces) stopDaemon(ws);
    await api.close();
  });

  it("control: without polar's hooks the scripted `rm` deletes the untracked file", async () => {
    const ws = workspace(false);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    await gemini(ws, [{ name: "run_shell_command", args: { command: "rm notes.txt" } }]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
  }, TIMEOUT);

  it("with polar's BeforeTool hook: rm of an untracked file runs after a restore point (recorded), a Write over it too", async () => {
    const ws = workspace(true);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    writeFileSync(join(ws.repo, "draft.md"), "draft\n");
    const responses = await gemini(ws, [
      { name: "run_shell_command", args: { command: "rm notes.txt" } },
      { name: "write_file", args: { file_path: join(ws.repo, "draft.md"), content: "new\n" } },
    ]);
    expect(responses.map((r) => r.name)).toEqual(["run_shell_command", "write_file"]);
    expect(existsSync(join(ws.repo, "notes.txt"))).toBe(false);
    expect(readFileSync(join(ws.repo, "draft.md"), "utf8")).toBe("new\n");
    const log = readdirSync(join(ws.polarHome, "audit")).filter((f) => f.endsWith(".jsonl")).map((f) => readFileSync(join(ws.polarHome, "audit", f), "utf8")).join("");
    expect(log.match(/"code":"restore_point"/gu)).toHaveLength(2);
  }, TIMEOUT);

  // No `ask` here: in headless `gemini -p` it waits for a confirmation no one can give (the call never
  // runs, the session hangs until killed); docs/hooks.md says so. Gemini's refusal contract is tested
  // in test/hooks/engine.test.ts.
});

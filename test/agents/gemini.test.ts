// The real Gemini CLI (`gemini -p … --output-format json --yolo`) against a scripted Gemini API on
// loopback (GOOGLE_GEMINI_BASE_URL with an API key), hooks installed by `polar init gemini --user`.
// The model is named (`-m`) so the CLI's model router, which asks the API for a JSON classification,
// is not in the way.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

  it("with polar's BeforeTool hook: run_shell_command and write_file are blocked with polar's reason, the files survive", async () => {
    const ws = workspace(true);
    writeFileSync(join(ws.repo, "notes.txt"), "mine\n");
    const responses = await gemini(ws, [
      { name: "run_shell_command", args: { command: "rm notes.txt" } },
      { name: "write_file", args: { file_path: join(ws.repo, "notes.txt"), content: "oops" } },
    ]);
    expect(responses.map((r) => r.name)).toEqual(["run_shell_command", "write_file"]);
    for (const r of responses) expect(JSON.stringify(r.response)).toMatch(/blocked: refused: (shell guard not available|the polar daemon was not running)/u);
    expect(readFileSync(join(ws.repo, "notes.txt"), "utf8")).toBe("mine\n");
  }, TIMEOUT);
});

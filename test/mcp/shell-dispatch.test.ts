// A shell MCP server's command tool as a dispatcher tool judged by polar-guard/shell (issue 25: a tool
// that takes a shell string is a dispatcher or unknown): `polar mcp --dispatch run_command=shell:command
// --workspace DIR` in front of the project's shell MCP server fixture. A read runs, `rm` of a file runs
// under a restore point and `polar undo` (the same store) puts it back, an unknown program is refused.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DECISION_META_KEY } from "../../src/mcp/gateway.js";
import { gateway, ROOT, tempDir } from "./helpers.js";
import { textOf } from "./sqlite-fixture.js";

const SHELL_SERVER = join(ROOT, "test/fixtures/mcp-shell-server/server.mjs");
const tmp = tempDir("shelldispatch");
afterAll(() => tmp.cleanup());

describe("polar mcp --dispatch TOOL=shell:ARG", () => {
  it("judges each command on the workspace: ls runs, rm runs under a restore point and polar undo restores it, an unknown program is refused", async () => {
    const ws = join(tmp.dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "notes.txt"), "keep me\n");
    const store = join(tmp.dir, "store");
    const ontology = join(tmp.dir, "o.polar");
    writeFileSync(ontology, "tool(other).\n");
    const rules = join(tmp.dir, "rules.json");
    writeFileSync(rules, JSON.stringify({ format: "polar-projection/1", domain: "shell", entities: {} }));
    const g = await gateway({ ontology, rules, server: [process.execPath, SHELL_SERVER, ws], extraArgs: ["--dispatch", "run_command=shell:command", "--workspace", ws, "--store", store] });
    try {
      const ls = await g.call("run_command", { command: "ls" });
      expect(ls.isError, textOf(ls)).toBeFalsy();
      expect(textOf(ls)).toContain("notes.txt");
      expect(ls._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "shell", action: "allow", reason: "read_only" });
      const rm = await g.call("run_command", { command: "rm notes.txt" });
      expect(rm.isError, textOf(rm)).toBeFalsy();
      expect(rm._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "shell", action: "allow" });
      expect(existsSync(join(ws, "notes.txt"))).toBe(false);
      const unknown = await g.call("run_command", { command: "frobnicate --all" });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^Not run: `run_command` was stopped by the POLAR guard/);
    } finally {
      await g.close();
    }
    const undo = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "undo", "--store", store, "--cwd", ws], { encoding: "utf8", cwd: ROOT });
    expect(undo.status, undo.stdout + undo.stderr).toBe(0);
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("keep me\n");
  }, 120_000);
});

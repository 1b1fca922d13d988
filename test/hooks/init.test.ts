// `polar init`: merges polar's hooks into each agent's configuration without touching the user's own
// hooks or settings, keeps the original file, is idempotent, refuses a file it cannot read, and
// `--remove` gives back what was there.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { AGENTS } from "../../src/hooks/agents.js";
import { configFile, installed, installHooks, removeHooks } from "../../src/hooks/init.js";

const SCRIPT = "/opt/polar guard/bin/polar-hook";

function fileWith(agent: (typeof AGENTS)[number], content: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "polar-init-"));
  const file = configFile(agent, "project", dir);
  if (content !== null) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return file;
}

describe("polar init", () => {
  test("the config files: .claude/settings.json, .codex/hooks.json, .gemini/settings.json (project or home)", () => {
    expect(configFile("claude-code", "project", "/p", "/h")).toBe("/p/.claude/settings.json");
    expect(configFile("codex", "user", "/p", "/h")).toBe("/h/.codex/hooks.json");
    expect(configFile("gemini", "user", "/p", "/h")).toBe("/h/.gemini/settings.json");
  });

  for (const agent of AGENTS) {
    test(`${agent}: merged with the user's own hooks and settings, original kept, twice gives one set, --remove restores`, () => {
      const pre = agent === "gemini" ? "BeforeTool" : "PreToolUse";
      const original = { theme: "dark", hooks: { [pre]: [{ matcher: "Bash", hooks: [{ type: "command", command: "my-linter" }] }], Stop: [{ hooks: [{ type: "command", command: "notify" }] }] } };
      const file = fileWith(agent, JSON.stringify(original));
      installHooks(agent, file, SCRIPT);
      const r = installHooks(agent, file, SCRIPT, ["memory"]);
      const cfg = JSON.parse(readFileSync(file, "utf8"));
      expect(cfg.theme).toBe("dark");
      expect(cfg.hooks.Stop).toEqual(original.hooks.Stop);
      expect(cfg.hooks[pre][0]).toEqual(original.hooks[pre][0]);
      const ours = cfg.hooks[pre].filter((g: { hooks: Array<{ command: string }> }) => g.hooks.some((h) => h.command.includes("polar-hook")));
      expect(ours).toHaveLength(1);
      expect(ours[0].hooks[0].command).toBe(`'${SCRIPT}' ${agent}`);
      expect(ours[0].matcher).toContain("mcp__memory__.*");
      expect(cfg.hooks.SessionStart).toHaveLength(1);
      expect(r.backup).toBe(`${file}.polar-backup`);
      expect(JSON.parse(readFileSync(r.backup!, "utf8"))).toEqual(original);
      expect(installed(file)).toBe(true);
      expect(removeHooks(file).removed).toBe(true);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(original);
      expect(installed(file)).toBe(false);
    });
  }

  test("no file yet: created, no backup", () => {
    const file = fileWith("claude-code", null);
    expect(installHooks("claude-code", file, SCRIPT).backup).toBeNull();
    expect(installed(file)).toBe(true);
  });

  test("a file that is not a JSON object, or whose hooks are not an object, is refused and left as it is", () => {
    for (const text of ["{ not json", "[1,2]", '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}']) {
      const file = fileWith("claude-code", text);
      expect(() => installHooks("claude-code", file, SCRIPT)).toThrow(/left as it is/u);
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(existsSync(`${file}.polar-backup`)).toBe(false);
    }
  });
  test("--http (Claude Code): pre/post-tool hooks of type http with the token and onFailure block, session start stays a command; the token goes to settings.local.json; a second init or --remove replaces it", () => {
    expect(configFile("claude-code", "project", "/p", "/h", true)).toBe("/p/.claude/settings.local.json");
    expect(configFile("claude-code", "user", "/p", "/h", true)).toBe("/h/.claude/settings.json");
    const dir = mkdtempSync(join(tmpdir(), "polar-init-http-"));
    const file = configFile("claude-code", "project", dir, undefined, true);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: "http://127.0.0.1:9/mine" }] }] } }));
    const token = "ab".repeat(32);
    installHooks("claude-code", file, SCRIPT, [], { port: 4321, token });
    installHooks("claude-code", file, SCRIPT, [], { port: 4322, token });
    const cfg = JSON.parse(readFileSync(file, "utf8"));
    expect(cfg.hooks.PreToolUse).toHaveLength(2);
    expect(cfg.hooks.PreToolUse[0].hooks[0].url).toBe("http://127.0.0.1:9/mine");
    const mine = { type: "http", url: "http://127.0.0.1:4322/http/claude-code", headers: { Authorization: `Bearer ${token}` }, timeout: 60, onFailure: "block" };
    expect(cfg.hooks.PreToolUse[1].hooks).toEqual([mine]);
    expect(cfg.hooks.PostToolUse[0].hooks).toEqual([mine]);
    expect(cfg.hooks.SessionStart[0].hooks[0]).toMatchObject({ type: "command" });
    // It carries the daemon's token: the user's alone.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(installed(file)).toBe(true);
    expect(removeHooks(file).removed).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).hooks).toEqual({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: "http://127.0.0.1:9/mine" }] }] });
    expect(() => installHooks("codex", file, SCRIPT, [], { port: 1, token })).toThrow(/--http/u);
  });
});

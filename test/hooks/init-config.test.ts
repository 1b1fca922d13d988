// src/hooks/init.ts in detail: the exact hook configuration `polar init` writes for each agent (events,
// matchers, timeouts in the agent's unit, the command quoted for a shell), which entries are polar's and
// which the user's, what --remove leaves, and each file it refuses (InitError with a code).
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { configFile, hookCommand, InitError, installed, installHooks, MATCHERS, removeHooks } from "../../src/hooks/init.js";

const SCRIPT = "/opt/polar/bin/polar-hook";

function fileWith(content: string | null, name = ".claude/settings.json"): string {
  const file = join(mkdtempSync(join(tmpdir(), "polar-init-")), name);
  if (content !== null) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return file;
}

const read = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

function initError(f: () => unknown): InitError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InitError);
    return e as InitError;
  }
  throw new Error("no error");
}

describe("what polar init writes", () => {
  test("Claude Code: pre- and post-tool on its file tools and shell, session start; 60 s; the command quoted", () => {
    const file = fileWith(null);
    installHooks("claude-code", file, SCRIPT);
    const entry = { type: "command", command: `'${SCRIPT}' claude-code`, timeout: 60 };
    expect(read(file)).toEqual({
      hooks: {
        PreToolUse: [{ matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit", hooks: [entry] }],
        PostToolUse: [{ matcher: "Bash|Write|Edit|MultiEdit|NotebookEdit", hooks: [entry] }],
        SessionStart: [{ hooks: [entry] }],
      },
    });
    expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify(read(file), null, 2)}\n`);
  });

  test("Codex: its shell tools and apply_patch, 60 s; Gemini CLI: BeforeTool/AfterTool, 60000 ms", () => {
    const codex = fileWith(null, ".codex/hooks.json");
    installHooks("codex", codex, SCRIPT);
    const c = read(codex).hooks as Record<string, Array<{ matcher?: string; hooks: unknown[] }>>;
    expect(Object.keys(c)).toEqual(["PreToolUse", "PostToolUse", "SessionStart"]);
    expect(c.PreToolUse).toEqual([{ matcher: "Bash|shell|local_shell|exec_command|unified_exec|apply_patch", hooks: [{ type: "command", command: `'${SCRIPT}' codex`, timeout: 60 }] }]);
    const gemini = fileWith(null, ".gemini/settings.json");
    installHooks("gemini", gemini, SCRIPT);
    const g = read(gemini).hooks as Record<string, Array<{ matcher?: string; hooks: unknown[] }>>;
    expect(Object.keys(g)).toEqual(["BeforeTool", "AfterTool", "SessionStart"]);
    expect(g.AfterTool).toEqual([{ matcher: "run_shell_command|write_file|replace", hooks: [{ type: "command", command: `'${SCRIPT}' gemini`, timeout: 60_000 }] }]);
    expect(g.SessionStart).toEqual([{ hooks: [{ type: "command", command: `'${SCRIPT}' gemini`, timeout: 60_000 }] }]);
    expect(MATCHERS).toEqual({ "claude-code": "Bash|Write|Edit|MultiEdit|NotebookEdit", codex: "Bash|shell|local_shell|exec_command|unified_exec|apply_patch", gemini: "run_shell_command|write_file|replace" });
  });

  test("MCP servers with an ontology join the tool matcher, their names reduced to what a matcher can hold", () => {
    const file = fileWith(null);
    installHooks("claude-code", file, SCRIPT, ["memory", "my server!", "a.b"]);
    const pre = (read(file).hooks as Record<string, Array<{ matcher: string }>>).PreToolUse[0];
    expect(pre.matcher).toBe("Bash|Write|Edit|MultiEdit|NotebookEdit|mcp__memory__.*|mcp__myserver__.*|mcp__ab__.*");
  });

  test("hookCommand: the script path in single quotes for any shell, a quote inside escaped", () => {
    expect(hookCommand("/a b/polar-hook", "codex")).toBe("'/a b/polar-hook' codex");
    expect(hookCommand("/it's/polar-hook", "gemini")).toBe("'/it'\\''s/polar-hook' gemini");
  });

  test("a file without the token is written with the default mode; a backup is made once, of the file before polar", () => {
    const file = fileWith('{"a":1}');
    expect(installHooks("claude-code", file, SCRIPT).backup).toBe(`${file}.polar-backup`);
    expect(statSync(file).mode & 0o777).not.toBe(0o600);
    writeFileSync(file, JSON.stringify({ ...read(file), b: 2 }));
    expect(installHooks("claude-code", file, SCRIPT).backup).toBe(`${file}.polar-backup`);
    expect(read(`${file}.polar-backup`)).toEqual({ a: 1 });
    expect(read(file)).toMatchObject({ a: 1, b: 2 });
  });

  test("an empty or blank file is an empty configuration", () => {
    for (const text of ["", "  \n"]) {
      const file = fileWith(text);
      installHooks("gemini", file, SCRIPT);
      expect(Object.keys(read(file))).toEqual(["hooks"]);
    }
  });
});

describe("polar's entries and the user's", () => {
  test("polar's command hooks (any command naming polar-hook) and its http hooks to 127.0.0.1's /http/<agent> are replaced; everything else is kept", () => {
    const user = [
      { type: "command", command: "my-linter" },
      { type: "http", url: "http://127.0.0.1:9/mine" },
      { type: "http", url: "http://localhost:4000/http/claude-code" },
      { type: "http", url: "http://127.0.0.1:4000/http/claude-code/x" },
      "not an object",
    ];
    const polar = [
      { type: "command", command: "/old/place/polar-hook claude-code" },
      { type: "http", url: "http://127.0.0.1:4000/http/claude-code" },
    ];
    const file = fileWith(
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [...user, ...polar] }, { matcher: "Write", hooks: polar }, { matcher: "Edit", hooks: [] }, "odd group", { matcher: "X" }],
          Stop: [{ hooks: polar }],
        },
      }),
    );
    installHooks("claude-code", file, SCRIPT);
    const hooks = read(file).hooks as Record<string, unknown[]>;
    expect(hooks.PreToolUse.slice(0, 4)).toEqual([{ matcher: "Bash", hooks: user }, { matcher: "Edit", hooks: [] }, "odd group", { matcher: "X" }]);
    expect(hooks.PreToolUse).toHaveLength(5);
    // An event left with nothing of the user's is gone.
    expect("Stop" in hooks).toBe(false);
  });

  test("a command of the user's that only mentions polar-hook (a wrapper, a logger) or an http hook to another loopback route is the user's: kept by init and --remove", () => {
    const user = [
      { type: "command", command: "/home/me/bin/polar-hook-wrapper.sh claude-code" },
      { type: "command", command: "'/home/me/bin/my-polar-hook' claude-code" },
      { type: "command", command: "echo polar-hook >> ~/hooks.log" },
      { type: "command", command: "/opt/polar/bin/polar-hook claude-code && notify-send done" },
      { type: "command", command: "/opt/polar/bin/polar-hook cursor" },
      { type: "command", command: "polar-hook" },
      { type: "command", command: "sudo /opt/polar/bin/polar-hook claude-code" },
      { type: "http", url: "http://127.0.0.1:8080/http/audit" },
      { type: "http", url: "http://proxy.local/?to=http://127.0.0.1:4000/http/claude-code" },
      // Not strings: never polar's, whatever they would read as.
      { type: "command", command: ["polar-hook claude-code"] },
      { type: "http", url: ["http://127.0.0.1:4000/http/claude-code"] },
      null,
    ];
    const polar = [
      { type: "command", command: "polar-hook codex" },
      { type: "command", command: "'/opt/polar guard/bin/polar-hook' gemini" },
      { type: "command", command: hookCommand("/it's/polar-hook", "claude-code") },
      { type: "http", url: "http://127.0.0.1:4000/http/gemini" },
    ];
    const file = fileWith(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [...user, ...polar] }] } }));
    expect(installed(file)).toBe(true);
    installHooks("claude-code", file, SCRIPT);
    const hooks = read(file).hooks as Record<string, Array<{ hooks: unknown[] }>>;
    expect(hooks.PreToolUse[0]).toEqual({ matcher: "Bash", hooks: user });
    expect(removeHooks(file).removed).toBe(true);
    expect(read(file)).toEqual({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: user }] } });
    expect(installed(file)).toBe(false);
  });

  test("--remove: polar's entries go, an event left empty goes, `hooks` left empty goes; nothing of polar's: nothing written", () => {
    const file = fileWith(JSON.stringify({ model: "x", hooks: { Stop: [{ hooks: [{ type: "command", command: "notify" }] }] } }));
    installHooks("claude-code", file, SCRIPT);
    expect(removeHooks(file)).toMatchObject({ removed: true, backup: `${file}.polar-backup` });
    expect(read(file)).toEqual({ model: "x", hooks: { Stop: [{ hooks: [{ type: "command", command: "notify" }] }] } });
    const only = fileWith(JSON.stringify({ model: "x" }));
    installHooks("codex", only, SCRIPT);
    expect(removeHooks(only).removed).toBe(true);
    expect(read(only)).toEqual({ model: "x" });
    const mine = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "notify" }] }] } });
    const none = fileWith(mine);
    expect(removeHooks(none)).toEqual({ file: none, backup: null, removed: false });
    expect(readFileSync(none, "utf8")).toBe(mine);
    expect(existsSync(`${none}.polar-backup`)).toBe(false);
    const noHooks = fileWith('{"a":1}');
    expect(removeHooks(noHooks)).toEqual({ file: noHooks, backup: null, removed: false });
    expect(removeHooks(fileWith(null))).toMatchObject({ removed: false });
  });

  test("installed: true only when some event holds a polar entry; false for a file it cannot read", () => {
    expect(installed(fileWith(null))).toBe(false);
    expect(installed(fileWith("{"))).toBe(false);
    expect(installed(fileWith('{"hooks": 1}'))).toBe(false);
    expect(installed(fileWith('{"a": 1}'))).toBe(false);
    expect(installed(fileWith(JSON.stringify({ hooks: { Stop: {}, PreToolUse: ["x", { hooks: "polar-hook" }, { hooks: [{ command: "my-linter" }] }] } })))).toBe(false);
    expect(installed(fileWith(JSON.stringify({ hooks: { Stop: {}, X: [{ hooks: [{ command: "polar-hook gemini" }] }] } })))).toBe(true);
    expect(installed(fileWith(JSON.stringify({ hooks: { X: [{ hooks: [{ type: "http", url: "http://127.0.0.1:1/http/codex" }] }] } })))).toBe(true);
    // One event with a group of the user's and one of polar's.
    expect(installed(fileWith(JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: "my-linter" }] }, { hooks: [{ command: "polar-hook codex" }] }] } })))).toBe(true);
    expect(installed(fileWith(JSON.stringify({ hooks: { X: [{ hooks: [{ type: "command", url: "http://127.0.0.1:1/http/codex" }] }] } })))).toBe(false);
  });
});

describe("the user's file stays the user's", () => {
  test("a private file (0600: say, settings holding an API key) stays private after init and --remove; so does its backup", () => {
    const file = fileWith(JSON.stringify({ env: { ANTHROPIC_API_KEY: "sk-mine" } }));
    chmodSync(file, 0o600);
    installHooks("claude-code", file, SCRIPT);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.polar-backup`).mode & 0o777).toBe(0o600);
    expect(read(file)).toMatchObject({ env: { ANTHROPIC_API_KEY: "sk-mine" } });
    removeHooks(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(read(file)).toEqual({ env: { ANTHROPIC_API_KEY: "sk-mine" } });
    // Any mode of the user's is kept as it was, never widened or narrowed.
    for (const mode of [0o640, 0o666]) {
      const shared = fileWith("{}");
      chmodSync(shared, mode);
      installHooks("codex", shared, SCRIPT);
      expect(statSync(shared).mode & 0o777).toBe(mode);
      removeHooks(shared);
      expect(statSync(shared).mode & 0o777).toBe(mode);
    }
  });

  test("a settings file that is a symbolic link (kept with the user's dotfiles) stays a link; the file it points to is merged", () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-init-link-"));
    const dotfile = join(dir, "dotfiles", "claude-settings.json");
    mkdirSync(dirname(dotfile), { recursive: true });
    writeFileSync(dotfile, JSON.stringify({ theme: "dark" }));
    chmodSync(dotfile, 0o600);
    const file = join(dir, ".claude", "settings.json");
    mkdirSync(dirname(file));
    symlinkSync(dotfile, file);
    expect(installHooks("claude-code", file, SCRIPT, [], { port: 4000, token: "ab".repeat(32) }).backup).toBe(`${file}.polar-backup`);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readlinkSync(file)).toBe(dotfile);
    expect(read(dotfile)).toMatchObject({ theme: "dark", hooks: { PreToolUse: [{ hooks: [{ type: "http" }] }] } });
    expect(statSync(dotfile).mode & 0o777).toBe(0o600);
    expect(read(`${file}.polar-backup`)).toEqual({ theme: "dark" });
    expect(installed(file)).toBe(true);
    expect(removeHooks(file).removed).toBe(true);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(read(dotfile)).toEqual({ theme: "dark" });
    // No temporary file is left beside either.
    expect(readdirSync(dirname(dotfile))).toEqual(["claude-settings.json"]);
    expect(readdirSync(dirname(file)).sort()).toEqual(["settings.json", "settings.json.polar-backup"]);
  });

  test("a symbolic link to nothing: refused (bad-config), the link left as it is, nothing written", () => {
    const file = fileWith(null);
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync(join(dirname(file), "gone.json"), file);
    const e = initError(() => installHooks("claude-code", file, SCRIPT));
    expect([e.code, e.message]).toEqual(["bad-config", `\`${file}\` is a symbolic link to nothing: left as it is`]);
    expect(readdirSync(dirname(file))).toEqual(["settings.json"]);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });
});

describe("files polar init refuses, left as they are", () => {
  test("not JSON, not an object, hooks not an object, an event that is not a list (bad-config); --http for another agent (bad-option)", () => {
    const cases: Array<[string, RegExp]> = [
      ["{ not json", /settings\.json` is not JSON \(.+\): left as it is$/u],
      ["[1]", /settings\.json` is not a JSON object: left as it is$/u],
      ["null", /settings\.json` is not a JSON object: left as it is$/u],
      ['{"hooks": []}', /settings\.json`: `hooks` is not an object: left as it is$/u],
      ['{"hooks": null}', /settings\.json`: `hooks` is not an object: left as it is$/u],
      ['{"hooks": {"PreToolUse": {}}}', /settings\.json`: hooks\.PreToolUse is not a list: left as it is$/u],
    ];
    for (const [text, message] of cases) {
      const file = fileWith(text);
      const e = initError(() => installHooks("claude-code", file, SCRIPT));
      expect([e.name, e.code]).toEqual(["InitError", "bad-config"]);
      expect(e.message).toMatch(message);
      expect(readFileSync(file, "utf8")).toBe(text);
      // --remove on it: refused, or nothing of polar's found; never rewritten.
      try {
        expect(removeHooks(file).removed).toBe(false);
      } catch (err) {
        expect(err).toBeInstanceOf(InitError);
      }
      expect(readFileSync(file, "utf8")).toBe(text);
    }
    const file = fileWith(null, ".gemini/settings.json");
    const e = initError(() => installHooks("gemini", file, SCRIPT, [], { port: 1, token: "t" }));
    expect([e.code, e.message]).toEqual(["bad-option", "`--http` is for Claude Code (its `http` hook type); gemini runs command hooks"]);
    expect(existsSync(file)).toBe(false);
  });
});

test("configFile: each agent's file in the project or the home; settings.local.json only for a Claude Code project", () => {
  expect(configFile("claude-code", "user", "/p", "/h")).toBe("/h/.claude/settings.json");
  expect(configFile("claude-code", "project", "/p", "/h", false)).toBe("/p/.claude/settings.json");
  expect(configFile("codex", "project", "/p", "/h", true)).toBe("/p/.codex/hooks.json");
  expect(configFile("gemini", "project", "/p", "/h", true)).toBe("/p/.gemini/settings.json");
  expect(configFile("codex", "user", "/p")).toMatch(/\/\.codex\/hooks\.json$/u);
});

// polar-guard/opencode: the plugin's tool.execute.before throws polar's refusal, lets an allowed call
// through, throws when the daemon is down (OpenCode's contract: a plugin blocks by throwing), and
// leaves tools polar does not judge alone. The daemon runs in this process on a temp socket.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HookEngine } from "../../src/hooks/engine.js";
import type { GuardCall, HookGuard } from "../../src/hooks/guards.js";
import { PolarGuard } from "../../src/hooks/opencode.js";
import { startServer, type RunningServer } from "../../src/hooks/server.js";

const seen: GuardCall[] = [];
const observed: string[] = [];
const guard: HookGuard = {
  check(call) {
    seen.push(call);
    const cmd = String(call.arguments.command ?? call.arguments.path);
    return cmd.startsWith("rm")
      ? { action: "deny", reason: "refused: would delete an untracked file", code: "irreversible", execution: null, decisions: [] }
      : { action: "allow", reason: "ok", code: "read_only", execution: "x1", decisions: [] };
  },
  observe(call) {
    observed.push(String(call.arguments.command));
  },
};

let server: RunningServer;
let home: string;
const saved = process.env.POLAR_HOME;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "polar-opencode-"));
  process.env.POLAR_HOME = home;
  server = (await startServer(new HookEngine({ home, shellGuard: () => guard }), home))!;
});

afterAll(async () => {
  await server?.close();
  if (saved === undefined) delete process.env.POLAR_HOME;
  else process.env.POLAR_HOME = saved;
});

describe("polar-guard/opencode", () => {
  test("tool.execute.before throws the refusal; an allowed call passes and its after-event is observed", async () => {
    const hooks = await PolarGuard({ directory: "/tmp" });
    await expect(hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, { args: { command: "rm notes.txt" } })).rejects.toThrow(
      "polar: refused: would delete an untracked file",
    );
    await expect(hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c2" }, { args: { command: "ls" } })).resolves.toBeUndefined();
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "c2", args: { command: "ls" } } as never, { output: "a\n", metadata: { exit: 0 } });
    expect(observed).toEqual(["ls"]);
    expect(seen.map((c) => c.name)).toEqual(["shell", "shell"]);
  });

  test("write and edit are judged as file writes; a malformed call is refused; other tools pass untouched", async () => {
    const hooks = await PolarGuard({ directory: "/tmp" });
    await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_2" }, { args: { filePath: "/tmp/a", content: "x" } });
    expect(seen.at(-1)).toEqual({ name: "write_file", arguments: { path: "/tmp/a", content: "x" } });
    await expect(hooks["tool.execute.before"]({ tool: "edit", sessionID: "ses_2" }, { args: { filePath: "/tmp/a" } })).rejects.toThrow(/refused/u);
    const before = seen.length;
    await expect(hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_2" }, { args: { filePath: "/etc/passwd" } })).resolves.toBeUndefined();
    expect(seen.length).toBe(before);
  });

  test("no daemon answering: the plugin throws (and tries to start one for the next call)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "polar-opencode-down-"));
    process.env.POLAR_HOME = empty;
    // A serve command that cannot start: the refusal says so.
    process.env.POLAR_NODE = "/nonexistent/node";
    try {
      const hooks = await PolarGuard({ directory: "/tmp" });
      await expect(hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_3" }, { args: { command: "ls" } })).rejects.toThrow(/daemon is not running and could not be started/u);
    } finally {
      process.env.POLAR_HOME = home;
      delete process.env.POLAR_NODE;
    }
  });
});

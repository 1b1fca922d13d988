// polar-guard/opencode when no daemon answers: the plugin starts one the way `polar hook` does — the
// package's CLI (`bin/polar.js serve`) run detached by `node` (or `$POLAR_NODE`) with POLAR_HOME set to
// the plugin's home —, refuses the call that found it down (the session's history is gone) and hands a
// post-tool event over to it. node:child_process's spawn is replaced by one that records the command
// and starts the daemon in this process, as `polar serve` does (startServer over a HookEngine), so the
// whole path runs in process; test/hooks/opencode-daemon.test.ts runs the built plugin and the real CLI.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { HookEngine } from "../../src/hooks/engine.js";
import type { GuardCall, HookGuard } from "../../src/hooks/guards.js";
import { PolarGuard } from "../../src/hooks/opencode.js";
import { startServer, type RunningServer } from "../../src/hooks/server.js";

interface Started {
  cmd: string;
  args: string[];
  detached: unknown;
  stdio: unknown;
  home: string | undefined;
}

const started: Started[] = [];
const running: RunningServer[] = [];
const seen: GuardCall[] = [];
const observed: string[] = [];
/** Every event the started daemon was handed (its event name and tool input). */
const handled: Array<[unknown, unknown]> = [];

/** The engine `polar serve` runs, noting each event it is handed. */
class NotingEngine extends HookEngine {
  override handle(agent: Parameters<HookEngine["handle"]>[0], text: string): ReturnType<HookEngine["handle"]> {
    const e = JSON.parse(text) as { hook_event_name?: unknown; tool_input?: unknown };
    handled.push([e.hook_event_name, e.tool_input]);
    return super.handle(agent, text);
  }
}

const guard: HookGuard = {
  check(call) {
    seen.push(call);
    return String(call.arguments.command).startsWith("rm")
      ? { action: "deny", reason: "refused: would delete an untracked file", code: "irreversible", execution: null, decisions: [] }
      : { action: "allow", reason: "ok", code: "read_only", execution: "x1", decisions: [] };
  },
  observe(call) {
    observed.push(String(call.arguments.command));
  },
};

vi.mock("node:child_process", async (original) => {
  const actual = await original<typeof import("node:child_process")>();
  return {
    ...actual,
    spawn: (cmd: string, args: string[], options: { detached?: unknown; stdio?: unknown; env?: NodeJS.ProcessEnv }) => {
      const home = options.env?.POLAR_HOME;
      started.push({ cmd, args, detached: options.detached, stdio: options.stdio, home });
      // `polar serve`: the daemon on the home's socket (here, in this process).
      if (home !== undefined) void startServer(new NotingEngine({ home, shellGuard: () => guard }), home).then((s) => s !== null && running.push(s));
      const child = new EventEmitter() as EventEmitter & { unref(): void };
      child.unref = () => {};
      return child;
    },
  };
});

const saved = { home: process.env.POLAR_HOME, node: process.env.POLAR_NODE };
let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "polar-opencode-start-"));
  process.env.POLAR_HOME = home;
  delete process.env.POLAR_NODE;
  started.length = 0;
  seen.length = 0;
  observed.length = 0;
  handled.length = 0;
});

afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
  for (const [k, v] of [["POLAR_HOME", saved.home], ["POLAR_NODE", saved.node]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** The command the plugin ran: Node, the package's `bin/polar.js` (`../bin/polar.js` of the built
 * plugin, dist/opencode.js), `serve`. */
function expectServe(s: Started, node: string): void {
  expect(s.cmd).toBe(node);
  expect(s.args).toHaveLength(2);
  expect(isAbsolute(s.args[0]!)).toBe(true);
  expect([basename(dirname(s.args[0]!)), basename(s.args[0]!)]).toEqual(["bin", "polar.js"]);
  expect(s.args[1]).toBe("serve");
  expect([s.detached, s.stdio, s.home]).toEqual([true, "ignore", home]);
}

describe("the daemon is down when OpenCode calls a tool", () => {
  test("tool.execute.before: `node bin/polar.js serve` is started for the plugin's home, this call is refused, the next is answered by that daemon", async () => {
    const hooks = await PolarGuard({ directory: "/tmp" });
    const before = (command: string) => hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1" }, { args: { command } });
    await expect(before("ls")).rejects.toThrow(new Error("polar: refused: the polar daemon was not running (it is started now, without this session's history): retry the call"));
    expect(started).toHaveLength(1);
    expectServe(started[0]!, "node");
    expect(seen).toEqual([]);
    await expect(before("ls")).resolves.toBeUndefined();
    await expect(before("rm notes.txt")).rejects.toThrow(new Error("polar: refused: would delete an untracked file"));
    expect(seen.map((c) => c.arguments.command)).toEqual(["ls", "rm notes.txt"]);
    // The refused call itself never reached the new daemon.
    expect(handled).toEqual([["tool.execute.before", { command: "ls" }], ["tool.execute.before", { command: "rm notes.txt" }]]);
    expect(started).toHaveLength(1);
  });

  test("$POLAR_NODE is the Node that runs the CLI", async () => {
    process.env.POLAR_NODE = "/opt/node-22/bin/node";
    const hooks = await PolarGuard({ directory: "/tmp" });
    await expect(hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_2" }, { args: { filePath: "/tmp/a", content: "x" } })).rejects.toThrow(/daemon was not running \(it is started now/u);
    expect(started).toHaveLength(1);
    expectServe(started[0]!, "/opt/node-22/bin/node");
  });

  test("tool.execute.after: the daemon is started and the event handed over to it (what ran is observed)", async () => {
    const hooks = await PolarGuard({ directory: "/tmp" });
    await expect(hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_3", callID: "c1", args: { command: "ls" } } as never, { output: "a\n", metadata: { exit: 0 } })).resolves.toBeUndefined();
    expect(started).toHaveLength(1);
    expectServe(started[0]!, "node");
    expect(handled).toEqual([["tool.execute.after", { command: "ls" }]]);
    expect(observed).toEqual(["ls"]);
    // The pre-tool call that follows is judged by the same daemon; its after-event is observed.
    await expect(hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_3", callID: "c2" }, { args: { command: "ls" } })).resolves.toBeUndefined();
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_3", callID: "c2", args: { command: "ls" } } as never, { output: "a\n", metadata: { exit: 0 } });
    expect(seen.map((c) => c.arguments.command)).toEqual(["ls"]);
    expect(observed).toEqual(["ls", "ls"]);
    expect(started).toHaveLength(1);
  });
});

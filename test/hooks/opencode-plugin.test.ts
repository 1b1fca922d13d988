// polar-guard/opencode (src/hooks/opencode.ts) against a stand-in daemon on a temporary socket: the
// payload the plugin sends for each event, and every answer that is not an allow (a refusal, an ask, a
// daemon error, an answer that is not one) thrown, so OpenCode blocks the call.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { OPENCODE_TOOLS, PolarGuard } from "../../src/hooks/opencode.js";
import { socketPath } from "../../src/hooks/server.js";

let home: string;
let server: Server;
let reply: { status: number; body: string } = { status: 200, body: "" };
const seen: Array<Record<string, unknown>> = [];
const saved = process.env.POLAR_HOME;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "polar-opencode-plugin-"));
  process.env.POLAR_HOME = home;
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => (body += d));
    req.on("end", () => {
      if (req.url === "/status") return void res.writeHead(200).end("{}");
      seen.push({ path: req.url, ...(JSON.parse(body) as Record<string, unknown>) });
      res.writeHead(reply.status).end(reply.body);
    });
  });
  await new Promise<void>((r) => server.listen(socketPath(home), () => r()));
});

afterEach(() => {
  seen.length = 0;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  if (saved === undefined) delete process.env.POLAR_HOME;
  else process.env.POLAR_HOME = saved;
});

const answer = (status: number, body: string) => (reply = { status, body });

describe("the payload", () => {
  test("tool.execute.before: OpenCode's pre-tool event with the session, directory, tool, args and call id", async () => {
    const hooks = await PolarGuard({ directory: "/w/project" });
    answer(200, '{"action":"allow","reason":"ok"}\n');
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, { args: { command: "ls" } });
    await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_1" }, { args: { filePath: "/w/a", content: "x" } });
    expect(seen).toEqual([
      { path: "/hook/opencode", hook_event_name: "tool.execute.before", session_id: "ses_1", cwd: "/w/project", tool_name: "bash", tool_input: { command: "ls" }, tool_use_id: "c1" },
      { path: "/hook/opencode", hook_event_name: "tool.execute.before", session_id: "ses_1", cwd: "/w/project", tool_name: "write", tool_input: { filePath: "/w/a", content: "x" } },
    ]);
  });

  test("tool.execute.after: the args from the event's input, else from the output, else none; the output and metadata as the response", async () => {
    const hooks = await PolarGuard({ directory: "/w" });
    answer(200, "{}\n");
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c1", args: { command: "a" } } as never, { args: { command: "b" }, output: "out", metadata: { exit: 0 } });
    await hooks["tool.execute.after"]({ tool: "edit", sessionID: "s" }, { args: { filePath: "/w/a" }, output: "o" });
    await hooks["tool.execute.after"]({ tool: "patch", sessionID: "s" }, {});
    expect(seen.map((s) => [s.hook_event_name, s.tool_name, s.tool_input, s.tool_response, s.tool_use_id])).toEqual([
      ["tool.execute.after", "bash", { command: "a" }, { output: "out", metadata: { exit: 0 } }, "c1"],
      ["tool.execute.after", "edit", { filePath: "/w/a" }, { output: "o" }, undefined],
      ["tool.execute.after", "patch", {}, {}, undefined],
    ]);
  });

  test("tools polar does not judge are never sent, before or after", async () => {
    expect([...OPENCODE_TOOLS].sort()).toEqual(["apply_patch", "bash", "edit", "patch", "write"]);
    const hooks = await PolarGuard({ directory: "/w" });
    answer(200, '{"action":"deny","reason":"no"}\n');
    for (const tool of ["read", "glob", "webfetch", "Bash"]) {
      await expect(hooks["tool.execute.before"]({ tool, sessionID: "s" }, { args: {} })).resolves.toBeUndefined();
      await expect(hooks["tool.execute.after"]({ tool, sessionID: "s" }, { args: {} })).resolves.toBeUndefined();
    }
    expect(seen).toEqual([]);
  });
});

describe("what blocks (tool.execute.before throws)", () => {
  test("allow passes; deny and ask throw `polar: <reason>`", async () => {
    const hooks = await PolarGuard({ directory: "/w" });
    const before = () => hooks["tool.execute.before"]({ tool: "bash", sessionID: "s" }, { args: { command: "x" } });
    answer(200, '{"action":"allow","reason":"ok"}\n');
    await expect(before()).resolves.toBeUndefined();
    answer(200, '{"action":"deny","reason":"refused: would delete a"}\n');
    await expect(before()).rejects.toThrow(new Error("polar: refused: would delete a"));
    answer(200, '{"action":"ask","reason":"Delete a?"}\n');
    await expect(before()).rejects.toThrow(new Error("polar: Delete a?"));
  });

  test("a daemon error throws its reason; an answer that is not JSON or has no action and reason throws", async () => {
    const hooks = await PolarGuard({ directory: "/w" });
    const before = () => hooks["tool.execute.before"]({ tool: "bash", sessionID: "s" }, { args: { command: "x" } });
    answer(422, "polar: refused: the hook payload is not JSON\n");
    await expect(before()).rejects.toThrow(new Error("polar: refused: the hook payload is not JSON"));
    answer(200, "not json");
    await expect(before()).rejects.toThrow(new Error("polar: refused: the daemon's answer is not JSON"));
    for (const body of ["null", "[]", '"allow"', "1", "true", '{"action":"allow"}', '{"reason":"r"}', '{"action":1,"reason":"r"}', '{"action":"allow","reason":null}']) {
      answer(200, body);
      await expect(before()).rejects.toThrow(new Error("polar: refused: the daemon's answer has no action"));
    }
  });

  test("tool.execute.after never throws: what ran has run", async () => {
    const hooks = await PolarGuard({ directory: "/w" });
    answer(500, "");
    await expect(hooks["tool.execute.after"]({ tool: "bash", sessionID: "s" }, { args: { command: "x" } })).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
  });
});

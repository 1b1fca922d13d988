// The gateway's process and protocol behaviour: no orphan child after the client disconnects or on
// SIGTERM, a crashed server is a clear error (JSON-RPC error, message on stderr, exit 1), bad requests
// are JSON-RPC errors, the audit log re-derives with `polar audit verify`, and Streamable HTTP on
// 127.0.0.1 serves the same gateway to the SDK's HTTP client.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER, ROOT, decisionOf, descendantsOf, gateway, gone, tempDir, textOf, type Connected,
} from "./helpers.js";

const CRASHING = join(ROOT, "test/mcp/fixtures/crashing-server.mjs");
let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function memoryGateway(extra: { auditLog?: string } = {}): Promise<{ g: Connected; dir: string }> {
  const t = tempDir("life");
  const g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(t.dir, "m.jsonl") }, ...extra });
  cleanups.push(async () => {
    await g.close();
    t.cleanup();
  });
  return { g, dir: t.dir };
}

describe("shutdown leaves no process behind", () => {
  it("the client disconnecting ends the gateway and its server child", async () => {
    const { g } = await memoryGateway();
    const kids = await descendantsOf(g.pid);
    expect(kids.length).toBeGreaterThan(0);
    await g.close();
    expect(await gone(g.pid)).toBe(true);
    for (const k of kids) expect(await gone(k), `child ${k}`).toBe(true);
  });

  it("SIGTERM ends the gateway and its server child", async () => {
    const { g } = await memoryGateway();
    const kids = await descendantsOf(g.pid);
    process.kill(g.pid, "SIGTERM");
    expect(await gone(g.pid)).toBe(true);
    for (const k of kids) expect(await gone(k), `child ${k}`).toBe(true);
  });
});

describe("a crashed server is a clear error", () => {
  it("the call in flight gets a JSON-RPC error naming the server, stderr says so, the gateway exits 1", async () => {
    const g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, CRASHING] });
    cleanups.push(() => g.close());
    const exited = new Promise<void>((r) => {
      // The transport's process handle is private; poll the pid instead.
      void gone(g.pid, 10_000).then(() => r());
    });
    const err = await g.call("read_graph", {}).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toMatch(/upstream MCP server|Connection closed/);
    await exited;
    expect(g.stderr()).toMatch(/error\[upstream-exited\]: the MCP server `node crashing-server\.mjs` closed the connection/);
    expect(g.stderr()).toMatch(/giving up on purpose/);
  });

  it("exit code 1 (run directly, not through the SDK transport)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--", process.execPath, CRASHING], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    cleanups.push(() => void child.kill("SIGKILL"));
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read_graph", arguments: {} } },
    ];
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes('"id":1') && lines.length > 0 && !out.includes('"id":2')) {
        for (const l of lines.splice(1)) child.stdin.write(`${JSON.stringify(l)}\n`);
      }
    });
    child.stdin.write(`${JSON.stringify(lines[0])}\n`);
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(1);
    const reply = out.split("\n").filter((l) => l.includes('"id":2')).map((l) => JSON.parse(l));
    expect(reply[0]?.error?.code).toBe(ErrorCode.InternalError);
  });

  it("a server command that does not exist is a start-up error, exit 1", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--", "/nonexistent/polar-server"], { cwd: ROOT, encoding: "utf8", input: "", timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[upstream-failed\]: the MCP server `polar-server` did not start/);
  });
});

describe("every bad request is a JSON-RPC error", () => {
  it("unknown method, bad params, a tool name that is not a string, non-object arguments", async () => {
    const { g } = await memoryGateway();
    const codeOf = (p: Promise<unknown>): Promise<number | null> => p.then(() => null, (e: McpError) => e.code);
    expect(await codeOf(g.client.request({ method: "no/such/method", params: {} }, CallToolResultSchema))).toBe(ErrorCode.MethodNotFound);
    expect(await codeOf(g.client.request({ method: "tools/call", params: { name: 5 } } as never, CallToolResultSchema))).toBe(ErrorCode.InvalidParams);
    expect(await codeOf(g.client.request({ method: "tools/call", params: { name: "create_entities", arguments: [1, 2] } } as never, CallToolResultSchema))).toBe(ErrorCode.InvalidParams);
    expect(await codeOf(g.client.request({ method: "tools/call", params: {} } as never, CallToolResultSchema))).toBe(ErrorCode.InvalidParams);
    // And the gateway still serves.
    const r = await g.call("read_graph", {});
    expect(r.isError).not.toBe(true);
  });

  it("a line that is not JSON gets a parse error and the gateway keeps serving", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, MEMORY_FILE_PATH: join(tempDir("parse").dir, "m.jsonl") } });
    cleanups.push(() => void child.kill("SIGKILL"));
    let out = "";
    const waitFor = (s: string): Promise<void> => new Promise((r) => {
      const check = (): void => (out.includes(s) ? r() : void setTimeout(check, 20));
      check();
    });
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`);
    await waitFor('"id":1');
    child.stdin.write("this is not json\n");
    child.stdin.write(`${JSON.stringify({ id: 7, hello: "world" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    await waitFor('"id":2');
    const msgs = out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
    expect(msgs.some((m) => m.id === 2 && Array.isArray(m.result?.tools))).toBe(true);
    expect(msgs.some((m) => m.error?.code === ErrorCode.ParseError && m.id === null)).toBe(true);
    expect(msgs.some((m) => m.error?.code === ErrorCode.InvalidRequest && m.id === 7)).toBe(true);
    child.stdin.end();
    await new Promise((r) => child.once("exit", r));
  });
});

describe("audit log", () => {
  it("every judged call is one record and `polar audit verify` re-derives all of them", async () => {
    const t = tempDir("audit");
    cleanups.push(() => t.cleanup());
    const log = join(t.dir, "decisions.jsonl");
    const { g } = await memoryGateway({ auditLog: log });
    await g.call("create_entities", { entities: [{ name: "x", entityType: "t", observations: ["o"] }] });
    await g.call("create_entities", { entities: [{ name: "x", entityType: "t", observations: [] }] }); // refused: exists
    await g.call("delete_entities", { entityNames: ["x"] });
    await g.call("read_graph", {}); // read-only: passes straight through, no record
    await g.close();
    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    // Each approved call is followed by what finally happened to it (an outcome record, same chain).
    expect(lines.map((l) => l.route ?? `${l.format}:${l.outcome}`)).toEqual(["Approved", "polar-outcome/1:ran", "Vetoed", "Approved", "polar-outcome/1:ran"]);
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "audit", "verify", log, "--ontology", MEMORY_ONTOLOGY], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(r.stdout).toMatch(/3 of 3 decisions re-derived, 2 of 2 outcome records checked, 0 mismatches/);
    expect(r.status).toBe(0);
  });
});

describe("Streamable HTTP towards the client", () => {
  it("--listen 127.0.0.1:0 serves the same gateway to the SDK's HTTP client", async () => {
    const t = tempDir("http");
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--listen", "127.0.0.1:0", "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MEMORY_FILE_PATH: join(t.dir, "m.jsonl") } });
    cleanups.push(() => {
      child.kill("SIGKILL");
      t.cleanup();
    });
    let err = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (c: Buffer) => {
        err += c.toString();
        const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once("exit", () => reject(new Error(`gateway exited: ${err}`)));
    });
    const client = new Client({ name: "http-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const tools = await client.listTools();
    expect(tools.tools.map((x) => x.name)).toContain("delete_entities");
    const del = tools.tools.find((x) => x.name === "delete_entities");
    expect(del?.annotations?.destructiveHint).toBe(true); // forwarded as the server gave them
    const ok = (await client.request({ method: "tools/call", params: { name: "create_entities", arguments: { entities: [{ name: "h", entityType: "t", observations: [] }] } } }, CallToolResultSchema)) as CallToolResult;
    expect(decisionOf(ok).route).toBe("Approved");
    const no = (await client.request({ method: "tools/call", params: { name: "create_entities", arguments: { entities: [{ name: "h", entityType: "t", observations: [] }] } } }, CallToolResultSchema)) as CallToolResult;
    expect(no.isError).toBe(true);
    expect(textOf(no)).toMatch(/^Not run/);
    await client.close();
    const kids = await descendantsOf(child.pid!);
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(0);
    for (const k of kids) expect(await gone(k), `child ${k}`).toBe(true);
  });

  it("--upstream URL: a gateway in front of a server reached over Streamable HTTP", async () => {
    const t = tempDir("upstream");
    const front = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--policy", "advisory", "--listen", "127.0.0.1:0", "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, MEMORY_FILE_PATH: join(t.dir, "m.jsonl") } });
    cleanups.push(() => {
      front.kill("SIGKILL");
      t.cleanup();
    });
    let err = "";
    const url = await new Promise<string>((resolve, reject) => {
      front.stderr.on("data", (c: Buffer) => {
        err += c.toString();
        const m = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]);
      });
      front.once("exit", () => reject(new Error(`gateway exited: ${err}`)));
    });
    // The outer gateway (veto) judges; the inner one (advisory) only forwards and records.
    const g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [], upstream: url });
    cleanups.push(() => g.close());
    const ok = await g.call("create_entities", { entities: [{ name: "u", entityType: "t", observations: [] }] });
    expect(decisionOf(ok).route).toBe("Approved");
    const no = await g.call("create_entities", { entities: [{ name: "u", entityType: "t", observations: [] }] });
    expect(decisionOf(no).route).toBe("Vetoed");
  });

  it("rules whose read step names a mutating tool are refused at start-up (a read must not change anything)", () => {
    const t = tempDir("unsafe");
    try {
      const rules = JSON.parse(readFileSync(MEMORY_RULES, "utf8"));
      rules.reads.delete_entities.steps[0].tool = "delete_relations";
      writeFileSync(join(t.dir, "rules.json"), JSON.stringify(rules));
      const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", join(t.dir, "rules.json"), "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, encoding: "utf8", timeout: 30_000, input: "" });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/error\[unsafe-reads\]: .*`delete_entities → delete_relations`/);
    } finally {
      t.cleanup();
    }
  });

  it("--listen refuses a non-loopback address", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--listen", "0.0.0.0:8808", "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/binds loopback only/);
  });
});

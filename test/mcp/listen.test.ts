// `polar mcp --listen` and `--audit-log` (issue 21, items 10 and 12), with the gateway started
// in-process (startGateway) in front of the real memory server: one writer per log file (a lock), a
// chain per client session, sessions bounded and expired, and a request that is refused builds nothing.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startGateway, GatewayStartError, sessionLogName, type RunningGateway } from "../../src/mcp/node.js";
import { verifyAuditLog } from "../../src/audit/index.js";
import { MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER, ROOT, decisionOf, gateway, gone, tempDir } from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const blob = new Uint8Array(readFileSync(MEMORY_ONTOLOGY));
const rules = JSON.parse(readFileSync(MEMORY_RULES, "utf8"));

async function listening(over: Partial<Parameters<typeof startGateway>[0]> = {}): Promise<{ g: RunningGateway; url: string; dir: string }> {
  const t = tempDir("listen");
  const g = await startGateway({
    ontology: blob,
    rules,
    command: [process.execPath, MEMORY_SERVER],
    env: { MEMORY_FILE_PATH: join(t.dir, "memory.jsonl") },
    listen: { host: "127.0.0.1", port: 0 },
    log: () => {},
    ...over,
  });
  cleanups.push(() => t.cleanup(), () => g.close());
  return { g, url: `http://127.0.0.1:${g.port}/mcp`, dir: t.dir };
}

async function client(url: string): Promise<Client> {
  const c = new Client({ name: "listen-test", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => c.close());
  return c;
}

const create = (c: Client, name: string) =>
  c.request({ method: "tools/call", params: { name: "create_entities", arguments: { entities: [{ name, entityType: "t", observations: [] }] } } }, CallToolResultSchema) as Promise<CallToolResult>;

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });

describe("item 10: one writer per audit log, a chain per --listen session", () => {
  it("a second gateway on the same log is refused (audit-log-busy); the lock goes with the first", async () => {
    const t = tempDir("lock");
    cleanups.push(() => t.cleanup());
    const log = join(t.dir, "decisions.jsonl");
    const { g } = await listening({ auditLog: log });
    expect(existsSync(`${log}.lock`)).toBe(true);
    const second = startGateway({ ontology: blob, rules, command: [process.execPath, MEMORY_SERVER], auditLog: log, listen: { host: "127.0.0.1", port: 0 }, log: () => {} });
    await expect(second).rejects.toMatchObject({ code: "audit-log-busy" });
    await expect(second).rejects.toBeInstanceOf(GatewayStartError);
    await g.close();
    expect(existsSync(`${log}.lock`)).toBe(false);
  });

  it("a gateway appending to a log that ends in an outcome record continues its chain; the file verifies", async () => {
    const t = tempDir("append");
    cleanups.push(() => t.cleanup());
    const log = join(t.dir, "decisions.jsonl");
    for (const name of ["first", "second"]) {
      const g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, MEMORY_SERVER], auditLog: log, env: { MEMORY_FILE_PATH: join(t.dir, "m.jsonl") } });
      expect(decisionOf(await g.call("create_entities", { entities: [{ name, entityType: "t", observations: [] }] })).route).toBe("Approved");
      await g.close();
      await gone(g.pid);
      const last = JSON.parse(readFileSync(log, "utf8").trim().split("\n").at(-1)!);
      expect(last).toMatchObject({ format: "polar-outcome/1", outcome: "ran" });
    }
    const report = verifyAuditLog(readFileSync(log, "utf8"), { ontologies: [blob] });
    expect(report.mismatches).toEqual([]);
    expect(report).toMatchObject({ total: 4, outcomes: 2 });
  });

  it("a lock left by a gateway that is gone is taken over", async () => {
    const t = tempDir("stale");
    cleanups.push(() => t.cleanup());
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    const log = join(t.dir, "decisions.jsonl");
    writeFileSync(`${log}.lock`, `${dead}\n`);
    const { g } = await listening({ auditLog: log });
    expect(readFileSync(`${log}.lock`, "utf8").trim()).toBe(String(process.pid));
    await g.close();
  });

  it("two --listen sessions each write their own chain, and each verifies", async () => {
    const t = tempDir("chains");
    cleanups.push(() => t.cleanup());
    const log = join(t.dir, "decisions.jsonl");
    const { g, url } = await listening({ auditLog: log });
    const [a, b] = [await client(url), await client(url)];
    // Interleaved: one chain for both would number 1, 1, 2, 2.
    expect(decisionOf(await create(a, "a1")).route).toBe("Approved");
    expect(decisionOf(await create(b, "b1")).route).toBe("Approved");
    expect(decisionOf(await create(a, "a2")).route).toBe("Approved");
    expect(decisionOf(await create(b, "b1")).route).toBe("Vetoed");
    await g.close();
    expect(existsSync(log)).toBe(false);
    const files = readdirSync(t.dir).filter((f) => f.includes(".session-")).sort();
    expect(files).toEqual(["decisions.session-1.jsonl", "decisions.session-2.jsonl"]);
    expect(sessionLogName(log, 1)).toBe(join(t.dir, "decisions.session-1.jsonl"));
    for (const f of files) {
      const report = verifyAuditLog(readFileSync(join(t.dir, f), "utf8"), { ontologies: [blob] });
      expect(report.mismatches).toEqual([]);
      expect(report.total - (report.outcomes ?? 0)).toBe(2);
    }
  });
});

describe("item 12: --listen bounds sessions and builds nothing for a refused request", () => {
  it("refused requests (cross-site simple POST, no Accept, foreign Origin or Host) build no session", async () => {
    const { g, url } = await listening();
    const cases: Array<[Record<string, string>, number]> = [
      [{ "content-type": "text/plain" }, 415], // what a cross-site form or fetch without preflight can send
      [{ "content-type": "application/json" }, 406], // no Accept of an event stream
      [{ "content-type": "application/json", accept: "application/json, text/event-stream", origin: "https://evil.example" }, 403],
      [{ "content-type": "application/json", accept: "application/json, text/event-stream", host: "evil.example:80" }, 403],
    ];
    for (let i = 0; i < 25; i++) for (const [headers, status] of cases) expect(await post(url, headers, INIT)).toBe(status);
    expect(g.sessions()).toEqual({ open: 0, built: 0 });
    await client(url);
    expect(g.sessions()).toEqual({ open: 1, built: 1 });
  });

  it("--max-sessions: one past the bound gets 503 and builds nothing; a closed session frees its place", async () => {
    const { g, url } = await listening({ maxSessions: 2 });
    const a = await client(url);
    await client(url);
    const ok = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    expect(await post(url, ok, INIT)).toBe(503);
    expect(g.sessions()).toEqual({ open: 2, built: 2 });
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await client(url);
    expect(g.sessions().open).toBe(2);
  });

  it("--max-sessions and --session-idle take whole numbers from 1: anything else is a usage error (exit 2)", () => {
    for (const [flag, value] of [["--max-sessions", "0"], ["--max-sessions", "1.5"], ["--session-idle", ""], ["--session-idle", "1e3"]]) {
      const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", MEMORY_ONTOLOGY, "--rules", MEMORY_RULES, "--listen", "127.0.0.1:0", flag, value, "--", process.execPath, MEMORY_SERVER], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      expect(r.status, `${flag} ${value}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`error[bad-option]: \`${flag}\` takes a whole number`);
    }
  }, 120_000);

  it("--session-idle: a session without requests is closed; its id is then unknown (404)", async () => {
    const { g, url } = await listening({ sessionIdleSeconds: 1 });
    const c = await client(url);
    const sid = (c.transport as StreamableHTTPClientTransport).sessionId!;
    for (let i = 0; i < 100 && g.sessions().open > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(g.sessions().open).toBe(0);
    const status = await post(url, { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sid }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(status).toBe(404);
  });
});

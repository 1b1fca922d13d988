// Memory of `polar mcp --listen` under refused requests (issue 21, item 12): 1,200 cross-site
// "simple" POSTs (`content-type: text/plain`, an initialize body, no Accept of an event stream: what a
// web page can send without a preflight) against a gateway in front of the real memory server. Before
// the fix each built a session, a guard and a Layer B (+91 MiB for 1,200); now a refused request builds
// nothing. Reports heapUsed and RSS after forced GCs, before and after, and the sessions built.
// Run alone: `node --expose-gc --import tsx bench/variants/mcp-listen.ts [--requests N]` (prints JSON).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startGateway } from "../../src/mcp/node.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });

function post(url: string): Promise<number> {
  return new Promise((res, rej) => {
    const req = request(url, { method: "POST", headers: { "content-type": "text/plain" } }, (r) => {
      r.resume();
      r.on("end", () => res(r.statusCode ?? 0));
    });
    req.on("error", rej);
    req.end(INIT);
  });
}

async function settle(): Promise<{ heapMiB: number; rssMiB: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const m = process.memoryUsage();
  return { heapMiB: m.heapUsed / 2 ** 20, rssMiB: m.rss / 2 ** 20 };
}

const i = process.argv.indexOf("--requests");
const n = i > 0 ? Number(process.argv[i + 1]) : 1200;
const dir = mkdtempSync(join(tmpdir(), "polar-bench-listen-"));
const g = await startGateway({
  ontology: new Uint8Array(readFileSync(join(ROOT, "ontologies/mcp-memory/memory.blob"))),
  rules: JSON.parse(readFileSync(join(ROOT, "ontologies/mcp-memory/projection.json"), "utf8")),
  command: [process.execPath, SERVER],
  env: { MEMORY_FILE_PATH: join(dir, "m.jsonl") },
  listen: { host: "127.0.0.1", port: 0 },
  log: () => {},
});
try {
  const url = `http://127.0.0.1:${g.port}/mcp`;
  for (let k = 0; k < 20; k++) await post(url); // warm the HTTP path
  const before = await settle();
  const statuses = new Map<number, number>();
  for (let k = 0; k < n; k++) {
    const s = await post(url);
    statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  const after = await settle();
  console.log(JSON.stringify({
    requests: n,
    statuses: Object.fromEntries(statuses),
    sessions: g.sessions(),
    heapMiB: { before: +before.heapMiB.toFixed(2), after: +after.heapMiB.toFixed(2), delta: +(after.heapMiB - before.heapMiB).toFixed(2) },
    rssMiB: { before: +before.rssMiB.toFixed(1), after: +after.rssMiB.toFixed(1), delta: +(after.rssMiB - before.rssMiB).toFixed(1) },
  }));
} finally {
  await g.close();
  rmSync(dir, { recursive: true, force: true });
}

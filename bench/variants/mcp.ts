// Gateway overhead per tools/call: the same SDK client calls the same real server
// (@modelcontextprotocol/server-memory as a stdio child, its graph in a temp dir) directly and through
// the gateway, and the added latency per call is the difference of the percentiles. Three paths:
//   direct     client ⇄ stdio ⇄ server
//   in-process client ⇄ in-memory transport ⇄ gateway (this process) ⇄ stdio ⇄ server
//              (what judging costs: the reads from the server, the verdict, the audit record)
//   stdio      client ⇄ stdio ⇄ `polar mcp` process ⇄ stdio ⇄ server (what a user runs: one more hop)
// For the in-process path the bench also reports the gateway's own time per call (total minus the
// time spent waiting for the server: its reads and the call), which no server latency inflates.
// Two calls: `read_graph` (read-only: forwarded straight away) and a mutating pair, `add_observations`
// then `delete_observations` of the same content (each judged: one open_nodes read, then the call).
// Run alone: `npx tsx bench/variants/mcp.ts [--quick]` (prints JSON); the harness protocol (argv[2]
// JSON, IPC result) works too. Loopback only; every child is closed at the end.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createGateway } from "../../src/mcp/gateway.js";
import { createGuard } from "../../src/guard/guard.js";
import { parseProjectionRules } from "../../src/projection/rules.js";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import { params, progress, report, fail } from "../lib/child.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const BLOB = new Uint8Array(readFileSync(join(ROOT, "ontologies/mcp-memory/memory.blob")));
const RULES = JSON.parse(readFileSync(join(ROOT, "ontologies/mcp-memory/projection.json"), "utf8"));

interface Row {
  calls: number;
  p50: number;
  p99: number;
  mean: number;
}

function stats(ns: number[]): Row {
  const s = [...ns].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] / 1000;
  return { calls: s.length, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length / 1000 };
}

type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>;

function caller(c: Client): Call {
  return async (name, args) => {
    const r = await c.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema);
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
    return r;
  };
}

const MUTATING: Array<[string, Record<string, unknown>]> = [
  ["add_observations", { observations: [{ entityName: "alice", contents: ["bench"] }] }],
  ["delete_observations", { deletions: [{ entityName: "alice", observations: ["bench"] }] }],
];

let upstreamNs = 0;
/** Per call of the last `time` run: total minus the time the in-process gateway waited for the server. */
let ownNs: number[] = [];

async function time(call: Call, kind: "read" | "mutating", warmup: number, n: number): Promise<Row> {
  const one = (i: number): Promise<unknown> => (kind === "read" ? call("read_graph", {}) : call(...MUTATING[i % 2]));
  for (let i = 0; i < warmup; i++) await one(i);
  const ns: number[] = [];
  ownNs = [];
  for (let i = 0; i < n; i++) {
    upstreamNs = 0;
    const t0 = process.hrtime.bigint();
    await one(i);
    const total = Number(process.hrtime.bigint() - t0);
    ns.push(total);
    ownNs.push(total - upstreamNs);
  }
  return stats(ns);
}

function serverTransport(dir: string, name: string): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [SERVER], env: { ...process.env, MEMORY_FILE_PATH: join(dir, `${name}.jsonl`) } as Record<string, string>, stderr: "ignore" });
}

async function seed(call: Call): Promise<void> {
  await call("create_entities", { entities: [{ name: "alice", entityType: "person", observations: ["likes tea"] }, { name: "bob", entityType: "person", observations: [] }] });
}

async function main(): Promise<void> {
  const p = params<Record<string, never>>();
  const warmup = p.quick ? 50 : 300;
  const n = p.quick ? 300 : 2000;
  const dir = mkdtempSync(join(tmpdir(), "polar-bench-mcp-"));
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const results: Record<string, Record<string, Row>> = {};
    const core = new WebAssembly.Module(readFileSync(join(ROOT, "build/polar-core.wasm")));
    const rules = parseProjectionRules(RULES);

    // direct
    progress("direct");
    const direct = new Client({ name: "bench", version: "1" });
    await direct.connect(serverTransport(dir, "direct"));
    closers.push(() => direct.close());
    await seed(caller(direct));

    // in-process gateway
    progress("in-process gateway");
    const up = new Client({ name: "bench-gw", version: "1" });
    await up.connect(serverTransport(dir, "inproc"));
    closers.push(() => up.close());
    // Time spent waiting for the server inside the in-process gateway (its reads and the call itself),
    // so the gateway's own work per call (judging, SDK plumbing) is the rest.
    const request = up.request.bind(up);
    up.request = (async (...a: Parameters<typeof request>) => {
      const t0 = process.hrtime.bigint();
      try {
        return await request(...a);
      } finally {
        upstreamNs += Number(process.hrtime.bigint() - t0);
      }
    }) as typeof up.request;
    const gw = createGateway({
      upstream: up,
      rules,
      createGuard: (state) => createGuard({ ontology: BLOB, state, backend: (_t, b) => instantiateCoreSync(core).load(b!), config: { projection: rules, log: { append: () => {} } } }),
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gw.session().connect(a);
    const inproc = new Client({ name: "bench", version: "1" });
    await inproc.connect(b);
    closers.push(() => inproc.close());
    await seed(caller(inproc));

    // the gateway as a process (the CLI from source through tsx as a loader: load time only)
    progress("stdio gateway");
    const viaProcess = new Client({ name: "bench", version: "1" });
    await viaProcess.connect(new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "mcp", "--ontology", join(ROOT, "ontologies/mcp-memory/memory.blob"), "--rules", join(ROOT, "ontologies/mcp-memory/projection.json"), "--", process.execPath, SERVER],
      env: { ...process.env, MEMORY_FILE_PATH: join(dir, "stdio.jsonl") } as Record<string, string>,
      stderr: "ignore",
      cwd: ROOT,
    }));
    closers.push(() => viaProcess.close());
    await seed(caller(viaProcess));

    for (const kind of ["read", "mutating"] as const) {
      results[kind] = {};
      // Interleave the paths in rounds so drift on a shared machine spreads over all of them.
      const rounds = 4;
      const acc: Record<string, number[]> = { direct: [], "in-process": [], stdio: [] };
      const own: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const [name, c] of [["direct", direct], ["in-process", inproc], ["stdio", viaProcess]] as const) {
          progress(`${kind} ${name} round ${r + 1}`);
          const row = await time(caller(c), kind, r === 0 ? warmup : 20, Math.ceil(n / rounds));
          acc[name].push(row.p50, row.p99, row.mean);
          if (name === "in-process") own.push(...ownNs);
        }
      }
      for (const name of Object.keys(acc)) {
        const v = acc[name];
        const med = (k: number): number => {
          const xs = v.filter((_, i) => i % 3 === k).sort((x, y) => x - y);
          return xs[Math.floor(xs.length / 2)];
        };
        results[kind][name] = { calls: n, p50: med(0), p99: med(1), mean: med(2) };
      }
      results[kind]["gateway-own"] = stats(own);
    }
    const added = (kind: string, path: string): { p50: number; p99: number } => ({
      p50: results[kind][path].p50 - results[kind].direct.p50,
      p99: results[kind][path].p99 - results[kind].direct.p99,
    });
    report({
      variant: "mcp",
      unit: "µs per tools/call (median over 4 interleaved rounds of each round's percentile)",
      results,
      added: {
        read: { "in-process": added("read", "in-process"), stdio: added("read", "stdio") },
        mutating: { "in-process": added("mutating", "in-process"), stdio: added("mutating", "stdio") },
      },
      node: process.version,
    });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch(fail);

// Cold start in workerd: the workerd binary that wrangler ships, run directly with a generated config
// (the bundled Worker, the core as a wasm module, the blob as a data module), one fresh process per
// sample. Timed from outside: workerd's clocks do not advance during a request (a Spectre
// mitigation), so in-Worker timing cannot see compilation or the first verdict.
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join } from "node:path";
import { median } from "./stats.js";

export interface WorkerdSample {
  /** Process spawn → the socket accepts a connection (config parse, wasm compile, module evaluation). */
  listenMs: number;
  /** First request → its response (lazy init: instantiate + validate/load blob + first verdict). */
  firstRequestMs: number;
  /** A later request → response (HTTP round trip + one warm verdict). */
  warmRequestMs: number;
  /** Spawn → first response. */
  totalMs: number;
  /** The same spawn → listening for an empty Worker (no modules but its script): the baseline. */
  emptyListenMs: number;
  /** The empty Worker's first and warm requests: what HTTP and a fresh connection cost by themselves. */
  emptyFirstRequestMs: number;
  emptyWarmRequestMs: number;
}

export interface WorkerdResult {
  ok: boolean;
  error?: string;
  workerd: string;
  samples: WorkerdSample[];
  median?: WorkerdSample;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect({ port, host: "127.0.0.1" });
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
}

async function timedFetch(url: string): Promise<{ ms: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  return { ms: performance.now() - t0, body };
}

const EMPTY_WORKER = `export default { fetch() { return new Response("ok"); } };\n`;

function emptyConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .empty) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const empty :Workerd.Worker = (
  modules = [ (name = "empty.mjs", esModule = embed "empty.mjs") ],
  compatibilityDate = "2025-01-01",
);
`;
}

function config(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .bench) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);

const bench :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "./polar-core.wasm", wasm = embed "polar-core.wasm"),
    (name = "./airline.blob", data = embed "airline.blob"),
  ],
  compatibilityDate = "2025-01-01",
);
`;
}

/** Prepares `dir` (worker bundle already at dir/worker.mjs) and runs `samples` fresh workerd processes. */
export async function measureWorkerd(opts: { root: string; dir: string; workerd: string; samples: number }): Promise<WorkerdResult> {
  const { root, dir, workerd } = opts;
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(root, "build", "polar-core.wasm"), join(dir, "polar-core.wasm"));
  copyFileSync(join(root, "ontologies", "airline", "airline.blob"), join(dir, "airline.blob"));
  writeFileSync(join(dir, "empty.mjs"), EMPTY_WORKER);
  const samples: WorkerdSample[] = [];
  for (let s = 0; s < opts.samples; s++) {
    try {
      const requests = (check: (body: string) => boolean) => async (port: number) => {
        const first = await timedFetch(`http://127.0.0.1:${port}/`);
        if (!check(first.body)) throw new Error(`unexpected first response: ${first.body.slice(0, 200)}`);
        const warm: number[] = [];
        for (let k = 0; k < 20; k++) warm.push((await timedFetch(`http://127.0.0.1:${port}/`)).ms);
        return { first: first.ms, warm: median(warm) };
      };
      const empty = await serve(workerd, dir, "empty.capnp", emptyConfig, requests((b) => b === "ok"));
      const sample = await serve(workerd, dir, "config.capnp", config, requests((b) => b.includes('"cold":true')));
      const { first, warm } = sample.value;
      samples.push({
        listenMs: sample.listenMs,
        firstRequestMs: first,
        warmRequestMs: warm,
        totalMs: sample.listenMs + first,
        emptyListenMs: empty.listenMs,
        emptyFirstRequestMs: empty.value.first,
        emptyWarmRequestMs: empty.value.warm,
      });
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e), workerd, samples };
    }
  }
  const med = (k: keyof WorkerdSample) => median(samples.map((x) => x[k]));
  return {
    ok: true,
    workerd,
    samples,
    median: {
      listenMs: med("listenMs"),
      firstRequestMs: med("firstRequestMs"),
      warmRequestMs: med("warmRequestMs"),
      totalMs: med("totalMs"),
      emptyListenMs: med("emptyListenMs"),
      emptyFirstRequestMs: med("emptyFirstRequestMs"),
      emptyWarmRequestMs: med("emptyWarmRequestMs"),
    },
  };
}

/** Spawns one workerd on a free port with the config `make` writes, times spawn → listening, runs
 * `use` against it, and stops it (only the process it started, by its pid). */
async function serve<T>(workerd: string, dir: string, name: string, make: (port: number) => string, use: (port: number) => Promise<T>): Promise<{ listenMs: number; value: T }> {
  const port = await freePort();
  const file = join(dir, name);
  writeFileSync(file, make(port));
  let child: ChildProcess | null = null;
  let stderr = "";
  try {
    const t0 = performance.now();
    child = spawn(workerd, ["serve", file], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child!.once("exit", () => resolve()));
    let up = false;
    while (!up) {
      if (child.exitCode !== null) throw new Error(`workerd exited: ${stderr.trim().split("\n").slice(-3).join(" ")}`);
      if (performance.now() - t0 > 20_000) throw new Error("workerd did not listen within 20 s");
      up = await canConnect(port);
      if (!up) await new Promise((r) => setTimeout(r, 1));
    }
    const listenMs = performance.now() - t0;
    const value = await use(port);
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    return { listenMs, value };
  } finally {
    if (child !== null && child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

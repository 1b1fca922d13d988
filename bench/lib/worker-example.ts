// Cold start of the Worker example (examples/worker) under workerd, as a deploy would run it: wrangler
// bundles it, Miniflare (wrangler's local runtime) serves the bundle with its Durable Objects. Timed
// from outside, as bench/lib/workerd.ts explains (workerd's clocks stand still inside a request).
//
// Per sample, a fresh workerd:
// - startup: `new Miniflare(...)` → ready (spawn, module evaluation: for the example this is where the
//   core is instantiated and the blob validated), beside the same for an empty Worker;
// - a fresh isolate's first session (create + first check) against a later session's (warm);
// - a Durable Object woken from storage: a session created and used in one workerd, then the first
//   check on it in a new workerd (rebuild from the stored journal + the verdict) against later checks.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionPlan, type SessionPlan } from "../../test/runtimes/fixtures/airline-sessions.js";
import { bundleWorker, startWorker, type LocalWorker } from "../../test/runtimes/helpers/workerd.js";
import { median } from "./stats.js";

export interface WorkerExampleSample {
  /** Empty Worker: new Miniflare → ready. */
  emptyStartupMs: number;
  /** The example Worker: new Miniflare → ready. */
  startupMs: number;
  /** First POST /sessions + first check of a fresh isolate. */
  firstSessionMs: number;
  /** The same for a later session of the same isolate (median). */
  warmSessionMs: number;
  /** After a restart: the first check on a stored session (journal replay + verdict). */
  wokenCheckMs: number;
  /** Later checks on that session (median). */
  warmCheckMs: number;
}

export interface WorkerExampleResult {
  ok: boolean;
  error?: string;
  samples: WorkerExampleSample[];
  median?: WorkerExampleSample;
}

const EMPTY_WORKER = `export default { fetch() { return new Response("ok"); } };\n`;
const EMPTY_TOML = `name = "empty"\nmain = "worker.js"\ncompatibility_date = "2025-01-01"\n`;

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

async function post(worker: LocalWorker, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await worker.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Creates a session and runs its first check; fails loudly on anything but success. */
async function session(worker: LocalWorker, plan: SessionPlan): Promise<string> {
  const created = await post(worker, "/sessions", plan.create);
  if (created.status !== 201) throw new Error(`session not created: ${JSON.stringify(created.body)}`);
  const check = plan.ops.find((o) => o.op === "check")!;
  const r = await post(worker, `/sessions/${created.body.session}/check`, { call: check.call, context: check.context });
  if (r.status !== 200) throw new Error(`check failed: ${JSON.stringify(r.body)}`);
  return created.body.session as string;
}

export async function measureWorkerExample(opts: { root: string; dir: string; samples: number }): Promise<WorkerExampleResult> {
  const config = join(opts.root, "examples", "worker", "wrangler.toml");
  const bundle = join(opts.dir, "bundle");
  const emptyDir = join(opts.dir, "empty");
  const samples: WorkerExampleSample[] = [];
  try {
    await bundleWorker(config, bundle);
    mkdirSync(emptyDir, { recursive: true });
    writeFileSync(join(emptyDir, "worker.js"), EMPTY_WORKER);
    writeFileSync(join(emptyDir, "wrangler.toml"), EMPTY_TOML);
    await bundleWorker(join(emptyDir, "wrangler.toml"), join(emptyDir, "bundle"));
    const plans = Array.from({ length: 12 }, (_, k) => sessionPlan(k, 12, 20));
    for (let s = 0; s < opts.samples; s++) {
      const empty = await timed(() => startWorker(join(emptyDir, "wrangler.toml"), join(emptyDir, "bundle"), { reuseBundle: true }));
      await empty.value.dispose();

      const persist = join(opts.dir, `state-${s}`);
      rmSync(persist, { recursive: true, force: true });
      const first = await timed(() => startWorker(config, bundle, { reuseBundle: true, persist }));
      let stored: string;
      let firstSessionMs: number;
      const warmSessions: number[] = [];
      try {
        const one = await timed(() => session(first.value, plans[0]));
        firstSessionMs = one.ms;
        stored = one.value;
        for (let k = 1; k < plans.length; k++) warmSessions.push((await timed(() => session(first.value, plans[k]))).ms);
        // Give the stored session a journal worth replaying.
        const r = await post(first.value, `/sessions/${stored}/batch`, { ops: plans[0].ops.slice(1) });
        if (r.status !== 200) throw new Error(`batch failed: ${JSON.stringify(r.body)}`);
      } finally {
        await first.value.dispose();
      }

      const second = await startWorker(config, bundle, { reuseBundle: true, persist });
      const checks: number[] = [];
      try {
        const check = plans[0].ops.find((o) => o.op === "check")!;
        for (let k = 0; k < 11; k++) {
          const t = await timed(() => post(second, `/sessions/${stored}/check`, { call: check.call, context: check.context }));
          if (t.value.status !== 200) throw new Error(`woken check failed: ${JSON.stringify(t.value.body)}`);
          checks.push(t.ms);
        }
      } finally {
        await second.dispose();
        rmSync(persist, { recursive: true, force: true });
      }
      samples.push({
        emptyStartupMs: empty.ms,
        startupMs: first.ms,
        firstSessionMs,
        warmSessionMs: median(warmSessions),
        wokenCheckMs: checks[0],
        warmCheckMs: median(checks.slice(1)),
      });
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), samples };
  }
  const med = (k: keyof WorkerExampleSample): number => median(samples.map((x) => x[k]));
  return {
    ok: true,
    samples,
    median: {
      emptyStartupMs: med("emptyStartupMs"),
      startupMs: med("startupMs"),
      firstSessionMs: med("firstSessionMs"),
      warmSessionMs: med("warmSessionMs"),
      wokenCheckMs: med("wokenCheckMs"),
      warmCheckMs: med("warmCheckMs"),
    },
  };
}

// Run alone: `npx tsx bench/lib/worker-example.ts [ROOT] [SAMPLES]` prints the result as JSON (used to
// measure another checkout, e.g. before a change, with this same method).
if (process.argv[1]?.endsWith("worker-example.ts")) {
  const root = process.argv[2] ?? join(import.meta.dirname, "..", "..");
  const result = await measureWorkerExample({ root, dir: join(root, "bench", "out", "worker-example"), samples: Number(process.argv[3] ?? 3) });
  console.log(JSON.stringify(result, null, 2));
}

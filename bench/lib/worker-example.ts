// Cold start of the Worker example (examples/worker) under workerd, as a deploy would run it: wrangler
// bundles it, Miniflare (wrangler's local runtime) serves the bundle with its Durable Objects. Timed
// from outside, as bench/lib/workerd.ts explains (workerd's clocks stand still inside a request).
//
// Per sample, a fresh workerd:
// - startup: `new Miniflare(...)` → ready (spawn, module evaluation: for the example this is where the
//   core is instantiated and the blob validated), beside the same for an empty Worker and for an empty
//   Worker with one Durable Object class (Miniflare starts more for a Worker with objects);
// - a fresh isolate's first session (create + first check) against a later session's (warm);
// - Durable Objects woken from storage: two sessions created and used in one workerd, then in a new
//   workerd the first check on one (a fresh isolate: its cold JavaScript and the object's wake), the
//   first check on the other (the object's wake alone: the isolate is warm), and later checks;
// - the same figures for an empty Durable Object (one storage read and one write per request), so the
//   guard's share is told apart from Miniflare's own (workerExampleSummary).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionPlan, type SessionPlan } from "../../test/runtimes/fixtures/airline-sessions.js";
import { bundleWorker, startWorker, type LocalWorker } from "../../test/runtimes/helpers/workerd.js";
import { median } from "./stats.js";

export interface WorkerExampleSample {
  /** Empty Worker: new Miniflare → ready. */
  emptyStartupMs: number;
  /** An empty Worker with one Durable Object class (SQLite storage, as the example's): new Miniflare → ready. */
  emptyDoStartupMs: number;
  /** The example Worker: new Miniflare → ready. */
  startupMs: number;
  /** First POST /sessions + first check of a fresh isolate. */
  firstSessionMs: number;
  /** The same for a later session of the same isolate (median). */
  warmSessionMs: number;
  /** After a restart: the first check on a stored session (fresh isolate, journal replay + verdict). */
  wokenCheckMs: number;
  /** After a restart, once the isolate has served another stored session: the first check on a second
   * stored session (the Durable Object's own wake, without the isolate's cold JavaScript). */
  wokenWarmIsolateMs: number;
  /** Later checks on that session (median). */
  warmCheckMs: number;
  /** The empty Durable Object (one storage read and one write per request): a fresh isolate's first
   * object − a later new object. */
  emptyDoFirstMs: number;
  emptyDoWarmNewMs: number;
  /** After a restart: the first request to a stored empty object (fresh isolate), the first to a second
   * stored one (warm isolate), and later requests (median). */
  emptyDoWokenMs: number;
  emptyDoWokenWarmIsolateMs: number;
  emptyDoWarmMs: number;
}

export interface WorkerExampleResult {
  ok: boolean;
  error?: string;
  samples: WorkerExampleSample[];
  median?: WorkerExampleSample;
}

const EMPTY_WORKER = `export default { fetch() { return new Response("ok"); } };\n`;
const EMPTY_TOML = `name = "empty"\nmain = "worker.js"\ncompatibility_date = "2025-01-01"\n`;
/** Miniflare's own cost of a Durable Object: each request reads one value and writes one, as a
 * session's check reads its state on wake and commits per request. */
const EMPTY_DO_WORKER = `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async hit() {
    const n = (await this.ctx.storage.get("n")) ?? 0;
    await this.ctx.storage.put("n", n + 1);
    return new Response(JSON.stringify({ n }), { headers: { "content-type": "application/json" } });
  }
}
export default { fetch(request, env) { return env.COUNTERS.get(env.COUNTERS.idFromName(new URL(request.url).pathname)).hit(); } };
`;
const EMPTY_DO_TOML = `name = "empty-do"
main = "worker.js"
compatibility_date = "2025-01-01"

[[durable_objects.bindings]]
name = "COUNTERS"
class_name = "Counter"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Counter"]
`;

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

async function post(worker: LocalWorker, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await worker.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function hit(worker: LocalWorker, path: string): Promise<number> {
  const t = await timed(async () => {
    const res = await worker.fetch(path);
    if (res.status !== 200) throw new Error(`empty object answered ${res.status}`);
    return res.json();
  });
  return t.ms;
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

async function checkOn(worker: LocalWorker, id: string, plan: SessionPlan): Promise<number> {
  const check = plan.ops.find((o) => o.op === "check")!;
  const t = await timed(() => post(worker, `/sessions/${id}/check`, { call: check.call, context: check.context }));
  if (t.value.status !== 200) throw new Error(`woken check failed: ${JSON.stringify(t.value.body)}`);
  return t.ms;
}

function writeWorker(dir: string, source: string, toml: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "worker.js"), source);
  writeFileSync(join(dir, "wrangler.toml"), toml);
  return join(dir, "wrangler.toml");
}

/** The empty Durable Object's figures for one sample: a fresh isolate's first and later new objects,
 * then after a restart the first request to a stored object, to a second one, and later ones. */
async function emptyDoSample(config: string, bundle: string, persist: string) {
  rmSync(persist, { recursive: true, force: true });
  const first = await timed(() => startWorker(config, bundle, { reuseBundle: true, persist }));
  const fresh: number[] = [];
  try {
    for (let k = 0; k < 12; k++) fresh.push(await hit(first.value, `/o${k}`));
    for (let k = 0; k < 3; k++) await hit(first.value, "/o0");
  } finally {
    await first.value.dispose();
  }
  const second = await startWorker(config, bundle, { reuseBundle: true, persist });
  const later: number[] = [];
  let woken: number;
  let wokenWarm: number;
  try {
    woken = await hit(second, "/o1");
    wokenWarm = await hit(second, "/o0");
    for (let k = 0; k < 10; k++) later.push(await hit(second, "/o0"));
  } finally {
    await second.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
  return { startupMs: first.ms, firstMs: fresh[0], warmNewMs: median(fresh.slice(1)), wokenMs: woken, wokenWarmIsolateMs: wokenWarm, warmMs: median(later) };
}

export async function measureWorkerExample(opts: { root: string; dir: string; samples: number }): Promise<WorkerExampleResult> {
  const config = join(opts.root, "examples", "worker", "wrangler.toml");
  const bundle = join(opts.dir, "bundle");
  const emptyToml = writeWorker(join(opts.dir, "empty"), EMPTY_WORKER, EMPTY_TOML);
  const emptyDoToml = writeWorker(join(opts.dir, "empty-do"), EMPTY_DO_WORKER, EMPTY_DO_TOML);
  const emptyBundle = join(opts.dir, "empty", "bundle");
  const emptyDoBundle = join(opts.dir, "empty-do", "bundle");
  const samples: WorkerExampleSample[] = [];
  try {
    await bundleWorker(config, bundle);
    await bundleWorker(emptyToml, emptyBundle);
    await bundleWorker(emptyDoToml, emptyDoBundle);
    const plans = Array.from({ length: 12 }, (_, k) => sessionPlan(k, 12, 20));
    for (let s = 0; s < opts.samples; s++) {
      const empty = await timed(() => startWorker(emptyToml, emptyBundle, { reuseBundle: true }));
      await empty.value.dispose();
      const emptyDo = await emptyDoSample(emptyDoToml, emptyDoBundle, join(opts.dir, `empty-do-state-${s}`));

      const persist = join(opts.dir, `state-${s}`);
      rmSync(persist, { recursive: true, force: true });
      const first = await timed(() => startWorker(config, bundle, { reuseBundle: true, persist }));
      let stored: string[];
      let firstSessionMs: number;
      const warmSessions: number[] = [];
      try {
        const one = await timed(() => session(first.value, plans[0]));
        firstSessionMs = one.ms;
        stored = [one.value];
        for (let k = 1; k < plans.length; k++) {
          const t = await timed(() => session(first.value, plans[k]));
          warmSessions.push(t.ms);
          if (k === 1) stored.push(t.value);
        }
        // Give the stored sessions a journal worth replaying.
        for (let k = 0; k < 2; k++) {
          const r = await post(first.value, `/sessions/${stored[k]}/batch`, { ops: plans[k].ops.slice(1) });
          if (r.status !== 200) throw new Error(`batch failed: ${JSON.stringify(r.body)}`);
        }
      } finally {
        await first.value.dispose();
      }

      const second = await startWorker(config, bundle, { reuseBundle: true, persist });
      const checks: number[] = [];
      let wokenWarmIsolateMs: number;
      try {
        // Session 1 first (a fresh isolate), then session 0 (a warm isolate), then warm checks on it.
        checks.push(await checkOn(second, stored[1], plans[1]));
        wokenWarmIsolateMs = await checkOn(second, stored[0], plans[0]);
        for (let k = 0; k < 10; k++) checks.push(await checkOn(second, stored[0], plans[0]));
      } finally {
        await second.dispose();
        rmSync(persist, { recursive: true, force: true });
      }
      samples.push({
        emptyStartupMs: empty.ms,
        emptyDoStartupMs: emptyDo.startupMs,
        startupMs: first.ms,
        firstSessionMs,
        warmSessionMs: median(warmSessions),
        wokenCheckMs: checks[0],
        wokenWarmIsolateMs,
        warmCheckMs: median(checks.slice(1)),
        emptyDoFirstMs: emptyDo.firstMs,
        emptyDoWarmNewMs: emptyDo.warmNewMs,
        emptyDoWokenMs: emptyDo.wokenMs,
        emptyDoWokenWarmIsolateMs: emptyDo.wokenWarmIsolateMs,
        emptyDoWarmMs: emptyDo.warmMs,
      });
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), samples };
  }
  const keys = Object.keys(samples[0]) as (keyof WorkerExampleSample)[];
  return { ok: true, samples, median: Object.fromEntries(keys.map((k) => [k, median(samples.map((x) => x[k]))])) as unknown as WorkerExampleSample };
}

/** The figures the goals are stated in, from a median sample: each example figure beside the same
 * figure of the empty Worker or empty Durable Object, and the difference that is the guard's share. */
export function workerExampleSummary(m: WorkerExampleSample): Record<string, number> {
  const firstSession = m.firstSessionMs - m.warmSessionMs;
  const emptyFirst = m.emptyDoFirstMs - m.emptyDoWarmNewMs;
  const woken = m.wokenCheckMs - m.warmCheckMs;
  const wokenWarm = m.wokenWarmIsolateMs - m.warmCheckMs;
  const emptyWoken = m.emptyDoWokenMs - m.emptyDoWarmMs;
  const emptyWokenWarm = m.emptyDoWokenWarmIsolateMs - m.emptyDoWarmMs;
  return {
    startupOverEmpty: m.startupMs - m.emptyStartupMs,
    startupOverEmptyDo: m.startupMs - m.emptyDoStartupMs,
    firstSessionMinusWarm: firstSession,
    emptyDoFirstMinusWarm: emptyFirst,
    guardFirstSession: firstSession - emptyFirst,
    wokenMinusWarm: woken,
    emptyDoWokenMinusWarm: emptyWoken,
    guardWoken: woken - emptyWoken,
    wokenWarmIsolateMinusWarm: wokenWarm,
    emptyDoWokenWarmIsolateMinusWarm: emptyWokenWarm,
    guardWokenWarmIsolate: wokenWarm - emptyWokenWarm,
  };
}

// Run alone: `npx tsx bench/lib/worker-example.ts [ROOT] [SAMPLES]` prints the result as JSON (used to
// measure another checkout, e.g. before a change, with this same method).
if (process.argv[1]?.endsWith("worker-example.ts")) {
  const root = process.argv[2] ?? join(import.meta.dirname, "..", "..");
  const result = await measureWorkerExample({ root, dir: join(root, "bench", "out", "worker-example"), samples: Number(process.argv[3] ?? 3) });
  const summary = result.median === undefined ? undefined : workerExampleSummary(result.median);
  console.log(JSON.stringify({ ...result, summary }, (_k, v: unknown) => (typeof v === "number" ? Math.round(v * 100) / 100 : v), 2));
}

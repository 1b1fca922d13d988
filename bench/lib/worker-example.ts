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
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
  /** Wall time, from outside. */
  samples: WorkerExampleSample[];
  median?: WorkerExampleSample;
  /** The same figures in workerd's CPU time (startup: all of workerd's CPU until it is ready). */
  cpuSamples: WorkerExampleSample[];
  cpuMedian?: WorkerExampleSample;
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

/** A figure on both clocks: wall time seen from outside, and the CPU time workerd spent (all its
 * threads, from /proc/<pid>/task/<tid>/schedstat): the CPU figure is what a Worker's CPU limit counts,
 * and it stays meaningful on a loaded machine, where wall time waits for a core. */
interface Both {
  wall: number;
  cpu: number;
}

/** The workerd processes this bench process started (Miniflare spawns one per instance). */
function workerdPids(): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^[0-9]+$/u.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, "utf8").trim() !== "workerd") continue;
      let pid = Number(name);
      for (let up = 0; up < 6 && pid > 1; up++) {
        pid = Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /su, "").split(" ")[1]);
        if (pid === process.pid) {
          out.push(Number(name));
          break;
        }
      }
    } catch {
      // the process ended while it was read
    }
  }
  return out;
}

let watched: number[] = [];

function cpuMs(): number {
  let ns = 0;
  for (const pid of watched) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // gone
    }
  }
  return ns / 1e6;
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; cpu: number; value: T }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, cpu: cpuMs() - c0, value };
}

const both = (t: { ms: number; cpu: number }): Both => ({ wall: t.ms, cpu: t.cpu });

/** Starts a Worker and watches its workerd: startup on both clocks (CPU: all of workerd's so far). */
async function start(config: string, bundle: string, options: { persist?: string } = {}): Promise<{ worker: LocalWorker; startup: Both }> {
  const before = new Set(workerdPids());
  const t0 = performance.now();
  const worker = await startWorker(config, bundle, { reuseBundle: true, ...options });
  const wall = performance.now() - t0;
  watched = workerdPids().filter((p) => !before.has(p));
  if (watched.length === 0) throw new Error("the workerd process of the Worker was not found under /proc");
  return { worker, startup: { wall, cpu: cpuMs() } };
}

async function post(worker: LocalWorker, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await worker.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function hit(worker: LocalWorker, path: string): Promise<Both> {
  const t = await timed(async () => {
    const res = await worker.fetch(path);
    if (res.status !== 200) throw new Error(`empty object answered ${res.status}`);
    return res.json();
  });
  return both(t);
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

async function checkOn(worker: LocalWorker, id: string, plan: SessionPlan): Promise<Both> {
  const check = plan.ops.find((o) => o.op === "check")!;
  const t = await timed(() => post(worker, `/sessions/${id}/check`, { call: check.call, context: check.context }));
  if (t.value.status !== 200) throw new Error(`woken check failed: ${JSON.stringify(t.value.body)}`);
  return both(t);
}

function writeWorker(dir: string, source: string, toml: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "worker.js"), source);
  writeFileSync(join(dir, "wrangler.toml"), toml);
  return join(dir, "wrangler.toml");
}

const medianOf = (xs: Both[]): Both => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });

type Figures = Record<keyof WorkerExampleSample, Both>;

/** The empty Durable Object's figures for one sample: a fresh isolate's first and later new objects,
 * then after a restart the first request to a stored object, to a second one, and later ones. */
async function emptyDoSample(config: string, bundle: string, persist: string) {
  rmSync(persist, { recursive: true, force: true });
  const first = await start(config, bundle, { persist });
  const fresh: Both[] = [];
  try {
    for (let k = 0; k < 12; k++) fresh.push(await hit(first.worker, `/o${k}`));
    for (let k = 0; k < 3; k++) await hit(first.worker, "/o0");
  } finally {
    await first.worker.dispose();
  }
  const second = await start(config, bundle, { persist });
  const later: Both[] = [];
  let woken: Both;
  let wokenWarm: Both;
  try {
    woken = await hit(second.worker, "/o1");
    wokenWarm = await hit(second.worker, "/o0");
    for (let k = 0; k < 10; k++) later.push(await hit(second.worker, "/o0"));
  } finally {
    await second.worker.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
  return { startup: first.startup, first: fresh[0], warmNew: medianOf(fresh.slice(1)), woken, wokenWarm, warm: medianOf(later) };
}

/** A request holds at most this many operations (the example's batch limit). */
const MAX_BATCH = 100;

/** `calls`: checks per stored session before the restart (default 20; the journal a replay ran grew
 * with it, a snapshot does not). */
export async function measureWorkerExample(opts: { root: string; dir: string; samples: number; calls?: number }): Promise<WorkerExampleResult> {
  const config = join(opts.root, "examples", "worker", "wrangler.toml");
  const bundle = join(opts.dir, "bundle");
  const emptyToml = writeWorker(join(opts.dir, "empty"), EMPTY_WORKER, EMPTY_TOML);
  const emptyDoToml = writeWorker(join(opts.dir, "empty-do"), EMPTY_DO_WORKER, EMPTY_DO_TOML);
  const emptyBundle = join(opts.dir, "empty", "bundle");
  const emptyDoBundle = join(opts.dir, "empty-do", "bundle");
  const figures: Figures[] = [];
  try {
    await bundleWorker(config, bundle);
    await bundleWorker(emptyToml, emptyBundle);
    await bundleWorker(emptyDoToml, emptyDoBundle);
    const plans = Array.from({ length: 12 }, (_, k) => sessionPlan(k, 12, opts.calls ?? 20));
    for (let s = 0; s < opts.samples; s++) {
      const empty = await start(emptyToml, emptyBundle);
      await empty.worker.dispose();
      const emptyDo = await emptyDoSample(emptyDoToml, emptyDoBundle, join(opts.dir, `empty-do-state-${s}`));

      const persist = join(opts.dir, `state-${s}`);
      rmSync(persist, { recursive: true, force: true });
      const first = await start(config, bundle, { persist });
      let stored: string[];
      let firstSession: Both;
      const warmSessions: Both[] = [];
      try {
        const one = await timed(() => session(first.worker, plans[0]));
        firstSession = both(one);
        stored = [one.value];
        for (let k = 1; k < plans.length; k++) {
          const t = await timed(() => session(first.worker, plans[k]));
          warmSessions.push(both(t));
          if (k === 1) stored.push(t.value);
        }
        // Give the stored sessions a journal worth replaying.
        for (let k = 0; k < 2; k++) {
          const rest = plans[k].ops.slice(1);
          for (let i = 0; i < rest.length; i += MAX_BATCH) {
            const r = await post(first.worker, `/sessions/${stored[k]}/batch`, { ops: rest.slice(i, i + MAX_BATCH) });
            if (r.status !== 200) throw new Error(`batch failed: ${JSON.stringify(r.body)}`);
          }
        }
      } finally {
        await first.worker.dispose();
      }

      const second = await start(config, bundle, { persist });
      const checks: Both[] = [];
      let wokenWarmIsolate: Both;
      try {
        // Session 1 first (a fresh isolate), then session 0 (a warm isolate), then warm checks on it.
        checks.push(await checkOn(second.worker, stored[1], plans[1]));
        wokenWarmIsolate = await checkOn(second.worker, stored[0], plans[0]);
        for (let k = 0; k < 10; k++) checks.push(await checkOn(second.worker, stored[0], plans[0]));
      } finally {
        await second.worker.dispose();
        rmSync(persist, { recursive: true, force: true });
      }
      figures.push({
        emptyStartupMs: empty.startup,
        emptyDoStartupMs: emptyDo.startup,
        startupMs: first.startup,
        firstSessionMs: firstSession,
        warmSessionMs: medianOf(warmSessions),
        wokenCheckMs: checks[0],
        wokenWarmIsolateMs: wokenWarmIsolate,
        warmCheckMs: medianOf(checks.slice(1)),
        emptyDoFirstMs: emptyDo.first,
        emptyDoWarmNewMs: emptyDo.warmNew,
        emptyDoWokenMs: emptyDo.woken,
        emptyDoWokenWarmIsolateMs: emptyDo.wokenWarm,
        emptyDoWarmMs: emptyDo.warm,
      });
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), samples: [], cpuSamples: [] };
  } finally {
    watched = [];
  }
  const on = (clock: keyof Both): WorkerExampleSample[] =>
    figures.map((f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v[clock]])) as unknown as WorkerExampleSample);
  const samples = on("wall");
  const cpuSamples = on("cpu");
  const med = (xs: WorkerExampleSample[]): WorkerExampleSample =>
    Object.fromEntries(Object.keys(xs[0]).map((k) => [k, median(xs.map((x) => x[k as keyof WorkerExampleSample]))])) as unknown as WorkerExampleSample;
  return { ok: true, samples, median: med(samples), cpuSamples, cpuMedian: med(cpuSamples) };
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

// Run alone: `npx tsx bench/lib/worker-example.ts [ROOT] [SAMPLES] [CALLS]` prints the result as JSON
// (used to measure another checkout, e.g. before a change, with this same method; CALLS: checks per
// stored session, default 20).
if (process.argv[1]?.endsWith("worker-example.ts")) {
  const root = process.argv[2] ?? join(import.meta.dirname, "..", "..");
  const result = await measureWorkerExample({ root, dir: join(root, "bench", "out", "worker-example"), samples: Number(process.argv[3] ?? 3), calls: process.argv[4] === undefined ? undefined : Number(process.argv[4]) });
  const summary = result.median === undefined ? undefined : workerExampleSummary(result.median);
  const cpuSummary = result.cpuMedian === undefined ? undefined : workerExampleSummary(result.cpuMedian);
  console.log(JSON.stringify({ ...result, summary, cpuSummary }, (_k, v: unknown) => (typeof v === "number" ? Math.round(v * 100) / 100 : v), 2));
}

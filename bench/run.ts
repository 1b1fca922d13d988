// The benchmark harness: `npm run bench` (full, ~8 min on the 2-core dev machine), `--standard` (~4.5 min)
// or `--quick`.
// Bundles each variant from source with esbuild (so children run plain Node on fresh code, no loader
// in the way), runs every variant in its own process, measures cold start in fresh Node and workerd
// processes, then writes bench/results/latest.json (+ a dated copy), the SVG plots, and the results
// section of bench/README.md.
//
// Options: --quick; --standard (stable p50/p99 in about 5 minutes: fewer sequence lengths and sizes,
// full timing per figure); --only a,b (job ids or prefixes); --out DIR (results folder); --no-readme;
// --warmup-ms N / --measure-ms N (override the timing of every variant).
//
// Adding a variant (see bench/README.md, "Adding a variant"): a script bench/variants/<name>.ts speaking
// the child protocol (bench/lib/child.ts: params in, progress and one result out), listed in SCRIPTS,
// one or more jobs in jobs() (an id, the script, its parameters), its figure and target in
// bench/lib/summary.ts (and a row in bench/lib/readme.ts), and its job ids in QUICK_JOBS of
// test/bench/smoke.test.ts. A job whose script is not there yet (a SLOT) is reported as skipped, by name
// and with its reason, never as a failure.
import { execFileSync, fork, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, relative } from "node:path";
import { build } from "esbuild";
import cliProgress from "cli-progress";
import { ROOT, TAU2_DIR, airlineDbPath } from "./lib/paths.js";
import { measureWorkerd, type WorkerdResult } from "./lib/workerd.js";
import { measureWorkerExample } from "./lib/worker-example.js";
import { median } from "./lib/stats.js";
import { summarizeResults, type Results } from "./lib/summary.js";
import { writePlots } from "./lib/plots.js";
import { updateReadme } from "./lib/readme.js";

interface Args {
  quick: boolean;
  standard: boolean;
  only: string[] | null;
  out: string;
  readme: boolean;
  timing: { warmupMs: number; measureMs: number } | null;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { quick: false, standard: false, only: null, out: join(ROOT, "bench", "results"), readme: true, timing: null };
  let warmup: number | null = null;
  let measureMs: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`\`${x}\` needs a value`);
      return v;
    };
    if (x === "--quick") a.quick = true;
    else if (x === "--standard") a.standard = true;
    else if (x === "--only") a.only = value().split(",").filter(Boolean);
    else if (x === "--out") a.out = value();
    else if (x === "--no-readme") a.readme = false;
    else if (x === "--warmup-ms") warmup = Number(value());
    else if (x === "--measure-ms") measureMs = Number(value());
    else throw new Error(`unknown option \`${x}\``);
  }
  if (warmup !== null || measureMs !== null) a.timing = { warmupMs: warmup ?? 50, measureMs: measureMs ?? 100 };
  if (a.quick && a.standard) throw new Error("`--quick` and `--standard` are two presets: give one");
  return a;
}

interface Job {
  id: string;
  /** A script of bench/variants/ (bundled, run in its own Node process), or `hooks`: bench/hooks.ts
   * (the hook processes and the daemon, run from the built package, dist/). */
  script: string;
  params: Record<string, unknown>;
  execArgv?: string[];
}

const OUT = join(ROOT, "bench", "out");
/** Variants that run now. */
const SCRIPTS = ["latency", "cedar", "scale", "layerb", "memory", "shell", "sql"];
/** Slots: variants another issue adds (the job is listed; without its script it is reported skipped). */
const SLOTS: Record<string, string> = {};
const present = (script: string): boolean => existsSync(join(ROOT, "bench", "variants", `${script}.ts`));

async function bundle(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const common = { bundle: true, platform: "node" as const, format: "esm" as const, target: "node20", logLevel: "warning" as const, sourcemap: true };
  await build({
    ...common,
    entryPoints: Object.fromEntries([...SCRIPTS, ...Object.keys(SLOTS).filter(present)].map((s) => [s, join(ROOT, "bench", "variants", `${s}.ts`)])),
    outdir: OUT,
    outExtension: { ".js": ".mjs" },
    // Packages that find their own .wasm beside their files stay in node_modules.
    external: ["@cedar-policy/cedar-wasm", "@cedar-policy/cedar-wasm/*", "web-tree-sitter", "tree-sitter-bash", "better-sqlite3", "@electric-sql/pglite", "libpg-query"],
    // Bundled CommonJS helpers need require in an ES module.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  await build({
    ...common,
    sourcemap: false,
    splitting: true,
    entryPoints: { "cold-lib": join(ROOT, "bench", "cold", "lib.ts"), "cold-guard": join(ROOT, "bench", "cold", "guard.ts") },
    outdir: OUT,
    outExtension: { ".js": ".mjs" },
    chunkNames: "cold-chunk-[hash]",
  });
  await build({ ...common, sourcemap: false, entryPoints: { "cold-node": join(ROOT, "bench", "cold", "node.ts") }, outdir: OUT, outExtension: { ".js": ".mjs" } });
  await build({
    ...common,
    sourcemap: false,
    platform: "neutral",
    conditions: ["workerd", "worker"],
    entryPoints: [join(ROOT, "bench", "workerd", "worker.ts")],
    outfile: join(OUT, "workerd", "worker.mjs"),
    external: ["*.wasm", "*.blob"],
  });
}

function jobs(a: Args): Job[] {
  const lengths = a.quick || a.standard ? [1, 4, 16, 64] : [1, 2, 4, 8, 16, 32, 64];
  const histories = a.quick || a.standard ? ["mixed"] : ["mixed", "single-edge"];
  const list: Job[] = [];
  for (const engine of ["core", "verifier", "guard"]) {
    for (const backend of ["wasm", "reference"]) {
      list.push({ id: `${engine}-${backend}`, script: "latency", params: { engine, backend, lengths, histories } });
    }
  }
  // The guard's decision function alone (no copy, record or lifecycle around it): guard.check's floor.
  list.push({ id: "decision-wasm", script: "latency", params: { engine: "decision", backend: "wasm", lengths, histories } });
  list.push({ id: "cedar", script: "cedar", params: { lengths: [1, 4, 16, 64], histories: ["mixed"] } });
  const tools = [10, 100, 1000, 10000];
  const slots = a.quick ? [1000, 100_000] : [1000, 100_000, 1_000_000];
  for (const t of tools) list.push({ id: `scale-tools-${t}`, script: "scale", params: { tools: t, slots: 8000 } });
  for (const s of slots) list.push({ id: `scale-slots-${s}`, script: "scale", params: { tools: 100, slots: s }, execArgv: ["--max-old-space-size=4096"] });
  list.push({ id: "layerb", script: "layerb", params: {} });
  list.push({ id: "memory", script: "memory", params: a.standard ? { verdicts: 300_000 } : {}, execArgv: ["--expose-gc"] });
  // The new paths, side by side (issue 27 §4): the shell guard, the hook daemon, the SQL guard.
  const tiny = a.timing !== null && a.timing.measureMs < 50; // the smoke run: a handful of samples
  list.push({ id: "shell", script: "shell", params: tiny ? { files: 1000, cold: 2, restorePoints: 1 } : {} });
  list.push({ id: "hooks", script: "hooks", params: tiny ? { calls: 5, fresh: 1, cold: 1 } : a.quick ? { calls: 40, fresh: 5, cold: 2 } : a.standard ? { calls: 150, fresh: 12, cold: 4 } : { calls: 200, fresh: 20, cold: 8 } });
  // SQL (issue 25): a point DELETE's verdict on a 1,000,000-row indexed table; result `figures.pointDelete`.
  list.push({ id: "sql-delete", script: "sql", params: { rows: tiny ? 10_000 : 1_000_000 } });
  return list;
}

function selected(id: string, only: string[] | null): boolean {
  return only === null || only.some((o) => id === o || id.startsWith(o));
}

/** bench/hooks.ts in its own process (the built package: bin/polar.js, bin/polar-hook, dist/), its JSON
 * read back: each case's wall-clock figures through the daemon and with a fresh process per call, the
 * CPU per call, the daemon's cold start. */
function runHooks(job: Job, onProgress: (label: string) => void): Promise<Record<string, unknown>> {
  const p = job.params as { calls: number; fresh: number; cold: number };
  const file = join(OUT, "hooks.json");
  rmSync(file, { force: true });
  if (!existsSync(join(ROOT, "dist", "node.js"))) return Promise.reject(new Error("hooks: dist/ is not built (run `npm run build`)"));
  const argv = ["--import", "tsx", join(ROOT, "bench", "hooks.ts"), "--calls", String(p.calls), "--fresh", String(p.fresh), "--cold", String(p.cold), "--json", file];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, POLAR_BENCH_ROOT: ROOT }, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      const line = d.toString().trim().split("\n").pop() ?? "";
      if (line) onProgress(line.slice(0, 60));
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    // A daemon that never answers would keep the script waiting: the job fails after a bound instead.
    // (Three cases, each timed and then run again for its CPU; generous for a loaded machine.)
    const limitMs = Math.round((60 + 9 * (0.3 * p.calls + 6 * p.fresh) + 15 * p.cold) * 1000);
    const timer = setTimeout(() => {
      err += `\nkilled after ${limitMs / 1000} s`;
      child.kill("SIGKILL");
    }, limitMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0 || !existsSync(file)) return reject(new Error(`hooks failed (exit ${code}): ${err.trim().slice(-800)}`));
      resolve({ variant: "hooks", ...(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>), id: job.id });
    });
  });
}

function runJob(job: Job, a: Args, onProgress: (label: string) => void): Promise<Record<string, unknown>> {
  if (job.script === "hooks") return runHooks(job, onProgress);
  return new Promise((resolve, reject) => {
    const params = { ...job.params, quick: a.quick, ...(a.timing ? { timing: a.timing } : {}) };
    const child = fork(join(OUT, `${job.script}.mjs`), [JSON.stringify(params)], {
      execArgv: job.execArgv ?? [],
      env: { ...process.env, POLAR_BENCH_ROOT: ROOT },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: Record<string, unknown> | null = null;
    let error: string | null = null;
    child.on("message", (m: { kind: string; label?: string; result?: Record<string, unknown>; message?: string }) => {
      if (m.kind === "progress" && m.label) onProgress(m.label);
      else if (m.kind === "result" && m.result) result = m.result;
      else if (m.kind === "error") error = m.message ?? "error";
    });
    child.on("exit", (code) => {
      if (result !== null) resolve({ ...result, id: job.id });
      else reject(new Error(`${job.id} failed (exit ${code}): ${error ?? "no result"}`));
    });
  });
}

/** The cold-start samples: the bundled verdict path (`cold-node`, `-trusted`), and the package's real
 * Node entry as a user imports it (`cold-node-entry`, `-builtins`: with Node's built-ins loaded first). */
type ColdId = "cold-node" | "cold-node-trusted" | "cold-node-entry" | "cold-node-entry-builtins";
const COLD_IDS: readonly ColdId[] = ["cold-node", "cold-node-trusted", "cold-node-entry", "cold-node-entry-builtins"];

function coldArgs(id: ColdId): string[] {
  if (id === "cold-node" || id === "cold-node-trusted") return [join(OUT, "cold-node.mjs"), ROOT, join(OUT, "cold-lib.mjs"), ...(id === "cold-node-trusted" ? ["trusted"] : [])];
  return [join(ROOT, "bench", "cold", "entry.mjs"), ROOT, ...(id === "cold-node-entry-builtins" ? ["builtins"] : [])];
}

function runCold(samples: number, id: ColdId): Promise<Record<string, unknown>> {
  const values: Array<Record<string, number | string>> = [];
  const walls: number[] = [];
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const args = coldArgs(id);
      const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const timer = setTimeout(() => child.pid !== undefined && process.kill(child.pid, "SIGKILL"), 30_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        walls.push(performance.now() - t0);
        if (code !== 0) return reject(new Error(`cold start sample failed: ${err.trim().slice(0, 400)}`));
        values.push(JSON.parse(out.trim()) as Record<string, number | string>);
        resolve();
      });
    });
  return (async () => {
    for (let i = 0; i < samples; i++) await one();
    const keys = Object.keys(values[0] ?? {}).filter((k) => typeof values[0][k] === "number");
    const med = Object.fromEntries(keys.map((k) => [k, median(values.map((v) => Number(v[k])))]));
    return { id, variant: id, digestChecked: id !== "cold-node-trusted", samples: values.length, median: { ...med, processWall: median(walls) }, values, reason: values[0]?.reason, route: values[0]?.route };
  })();
}

function gitCommit(): string | null {
  try {
    // A worktree's `.git` is a file (`gitdir: …`): ask git itself.
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] }).toString().trim() || null;
  } catch {
    // No git on the PATH: read the checkout's own files.
  }
  try {
    const head = readFileSync(join(ROOT, ".git", "HEAD"), "utf8").trim();
    if (!head.startsWith("ref: ")) return head;
    const ref = join(ROOT, ".git", head.slice(5));
    if (existsSync(ref)) return readFileSync(ref, "utf8").trim();
    const packed = readFileSync(join(ROOT, ".git", "packed-refs"), "utf8");
    return packed.split("\n").find((l) => l.endsWith(head.slice(5)))?.split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const started = new Date();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const db = airlineDbPath();
  if (db.source === "sample") {
    console.warn(`τ²-bench data not found at ${TAU2_DIR} (set POLAR_TAU2_DIR): using the vendored sample ${relative(ROOT, db.path)}`);
  }
  if (!existsSync(join(ROOT, "build", "polar-core.wasm"))) throw new Error("build/polar-core.wasm is missing: run `npm run build:wasm` first");
  await bundle();
  const list = jobs(a).filter((j) => selected(j.id, a.only));
  const coldSamples = a.quick ? 5 : a.standard ? 11 : 21;
  const workerdSamples = a.quick ? 2 : a.standard ? 3 : 5;
  const colds = COLD_IDS.filter((id) => selected(id, a.only));
  if (colds.some((id) => id.startsWith("cold-node-entry")) && !existsSync(join(ROOT, "dist", "node.js"))) throw new Error("dist/node.js is missing: run `npm run build` first");
  const doWorkerd = selected("cold-workerd", a.only);
  const doExample = selected("cold-worker-example", a.only);
  const total = list.length + colds.length + (doWorkerd ? 1 : 0) + (doExample ? 1 : 0);
  const bar = new cliProgress.SingleBar({ format: "bench [{bar}] {value}/{total} {job} {step}", hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic);
  bar.start(total, 0, { job: "", step: "" });
  const results: Record<string, unknown>[] = [];
  const failures: string[] = [];
  const load = { start: os.loadavg(), end: [] as number[] };
  for (const job of list) {
    bar.update({ job: job.id, step: "" });
    if (SLOTS[job.script] !== undefined && !present(job.script)) {
      results.push({ id: job.id, variant: job.script, skipped: SLOTS[job.script] });
      bar.increment();
      continue;
    }
    try {
      results.push(await runJob(job, a, (label) => bar.update({ step: label })));
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
    }
    bar.increment();
  }
  for (const id of colds) {
    bar.update({ job: id, step: `${coldSamples} fresh processes` });
    try {
      results.push(await runCold(coldSamples, id));
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
    }
    bar.increment();
  }
  if (doWorkerd) {
    bar.update({ job: "cold-workerd", step: `${workerdSamples} fresh workerd processes` });
    const workerd = join(ROOT, "node_modules", "workerd", "bin", "workerd");
    let w: WorkerdResult;
    if (!existsSync(workerd)) w = { ok: false, error: "node_modules/workerd/bin/workerd not found", workerd, samples: [] };
    else w = await measureWorkerd({ root: ROOT, dir: join(OUT, "workerd"), workerd, samples: workerdSamples });
    results.push({ id: "cold-workerd", variant: "cold-workerd", ...w, workerd: relative(ROOT, w.workerd) });
    if (!w.ok) failures.push(`cold-workerd: ${w.error}`);
    bar.increment();
  }
  if (doExample) {
    bar.update({ job: "cold-worker-example", step: `${workerdSamples} fresh workerd processes (Miniflare)` });
    if (!existsSync(join(ROOT, "dist", "workerd.js"))) failures.push("cold-worker-example: dist/ is not built (run `npm run build`)");
    else {
      const w = await measureWorkerExample({ root: ROOT, dir: join(OUT, "worker-example"), samples: workerdSamples });
      results.push({ id: "cold-worker-example", variant: "cold-worker-example", ...w });
      if (!w.ok) failures.push(`cold-worker-example: ${w.error}`);
    }
    bar.increment();
  }
  bar.stop();
  load.end = os.loadavg();

  const cpus = os.cpus();
  const out: Results = {
    format: "polar-bench/1",
    date: started.toISOString(),
    command,
    quick: a.quick,
    preset: a.quick ? "quick" : a.standard ? "standard" : "full",
    durationS: Math.round((Date.now() - started.getTime()) / 1000),
    commit: gitCommit(),
    machine: { cpu: cpus[0]?.model ?? "unknown", cores: cpus.length, node: process.version, platform: `${os.platform()} ${os.release()}`, memoryGB: Math.round(os.totalmem() / 2 ** 30), loadavg: load },
    data: { airlineDb: db.source, path: db.source === "tau2" ? "POLAR_TAU2_DIR/domains/airline/db.json" : relative(ROOT, db.path) },
    method: {
      timer: "process.hrtime.bigint around batches; a sample is the mean per-call time of a batch of B consecutive calls (B in each figure: 1 = individual calls)",
      percentiles: "nearest rank over samples",
      warmup: a.timing ?? (a.quick ? { warmupMs: 60, measureMs: 150 } : { warmupMs: 300, measureMs: 1000 }),
      processes: "one child process per variant (esbuild bundle of the variant run by plain node)",
    },
    results,
    failures,
    summary: {},
  };
  out.summary = summarizeResults(out);
  mkdirSync(a.out, { recursive: true });
  const json = `${JSON.stringify(out, null, 2)}\n`;
  writeFileSync(join(a.out, "latest.json"), json);
  writeFileSync(join(a.out, `${started.toISOString().replace(/[:.]/g, "-")}${a.quick ? "-quick" : ""}.json`), json);
  const plots = writePlots(out, a.out);
  if (a.readme) updateReadme(join(ROOT, "bench", "README.md"), out, plots.map((p) => relative(join(ROOT, "bench"), p)));
  console.log(`results: ${relative(ROOT, join(a.out, "latest.json"))}${failures.length ? `; ${failures.length} failure(s):\n  ${failures.join("\n  ")}` : ""}`);
  if (failures.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});

// The long fuzz run: every target of test/fuzz/targets for ≥ 1,000,000 cases (the CI tests run the same
// properties for a few thousand). Cases are drawn in chunks (chunk k uses seed + k), so a failure is
// reproducible from the printed chunk seed and path; a failing chunk is recorded and the run goes on.
//
//   npm run fuzz                                   all targets, 1,000,000 cases each, seed 7
//   npm run fuzz -- --target blob --runs 50000     one target
//   npm run fuzz -- --max-minutes 30               stop each target after 30 minutes (counts say so)
//   npm run fuzz -- --render                       only rewrite fuzz/RESULTS.md from the recorded runs
//   npm run fuzz -- --jobs 2                       split each target's chunks over 2 child processes
//                                                  (niced to ≥ 15: they take cores others leave idle)
//
// Counts go to fuzz/results.json (the latest run per target), fuzz/history.jsonl (every run, appended)
// and fuzz/RESULTS.md (rendered from both).
import fc from "fast-check";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { join } from "node:path";
import { CI_SEED, REPO, type FuzzTarget } from "../test/fuzz/support.js";
import { TARGETS } from "../test/fuzz/targets/index.js";

interface Options {
  runs: number;
  seed: number;
  targets: string[];
  maxMinutes: number;
  chunk: number;
  write: boolean;
  render: boolean;
  jobs: number;
  /** Internal (a child of `--jobs`): run only chunks k with k mod of === index, print the result. */
  part: { index: number; of: number } | null;
}

function usage(message: string): never {
  process.stderr.write(`fuzz: ${message}\nusage: npm run fuzz -- [--runs N] [--seed S] [--target NAME]... [--max-minutes M] [--chunk N] [--jobs J] [--no-write]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const o: Options = { runs: 1_000_000, seed: CI_SEED, targets: [], maxMinutes: 0, chunk: 10_000, write: true, render: false, jobs: 1, part: null };
  const int = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (v === undefined || !Number.isSafeInteger(n) || n < 0) usage(`--${name} needs a non-negative integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--runs") o.runs = int("runs", argv[++i]);
    else if (a === "--seed") o.seed = int("seed", argv[++i]);
    else if (a === "--target") o.targets.push(argv[++i] ?? usage("--target needs a name"));
    else if (a === "--max-minutes") o.maxMinutes = int("max-minutes", argv[++i]);
    else if (a === "--chunk") o.chunk = Math.max(1, int("chunk", argv[++i]));
    else if (a === "--no-write") o.write = false;
    else if (a === "--render") o.render = true;
    else if (a === "--jobs") o.jobs = Math.max(1, int("jobs", argv[++i]));
    else if (a === "--part") {
      const m = /^(\d+)\/(\d+)$/u.exec(argv[++i] ?? "");
      if (m === null || Number(m[1]) >= Number(m[2])) usage("--part needs INDEX/COUNT");
      o.part = { index: Number(m[1]), of: Number(m[2]) };
    }
    else usage(`unknown argument \`${a}\``);
  }
  const names = TARGETS.map((t) => t.name);
  for (const t of o.targets) if (!names.includes(t)) usage(`unknown target \`${t}\`: one of ${names.join(", ")}`);
  return o;
}

interface Failure { chunkSeed: number; path: string | undefined; error: string; counterexample: string }

interface TargetResult {
  target: string;
  claim: string;
  runs: number;
  requested: number;
  failures: number;
  examples: Failure[];
  seconds: number;
  seed: number;
  stoppedByTime: boolean;
  finished: string;
}

/** The chunks of a run: chunk k holds cases k·chunk … and uses seed + k, whoever runs it. */
function chunkCount(o: Options): number {
  return Math.ceil(o.runs / o.chunk);
}

const progressEnd = process.stderr.isTTY ? "\r" : "\n";

/** Runs one target's chunks (all, or every `of`-th from `index` in a child); async properties (the
 * Worker journal's) are awaited like sync ones. */
async function runTarget(t: FuzzTarget, o: Options): Promise<TargetResult> {
  const property = t.property();
  const started = performance.now();
  const deadline = o.maxMinutes > 0 ? started + o.maxMinutes * 60_000 : Infinity;
  const part = o.part ?? { index: 0, of: 1 };
  const tag = o.part === null ? t.name : `${t.name} [${part.index + 1}/${part.of}]`;
  let done = 0;
  let failures = 0;
  let stoppedByTime = false;
  const examples: Failure[] = [];
  for (let chunk = part.index; chunk < chunkCount(o); chunk += part.of) {
    if (performance.now() > deadline) {
      stoppedByTime = true;
      break;
    }
    const n = Math.min(o.chunk, o.runs - chunk * o.chunk);
    const chunkSeed = o.seed + chunk;
    const r = await fc.check(property, { seed: chunkSeed, numRuns: n });
    done += r.failed ? r.numRuns : n;
    if (r.failed) {
      failures++;
      const f: Failure = {
        chunkSeed,
        path: r.counterexamplePath ?? undefined,
        error: String(r.errorInstance ?? "failed").split("\n")[0].slice(0, 400),
        counterexample: fc.stringify(r.counterexample).slice(0, 2000),
      };
      if (examples.length < 10) examples.push(f);
      process.stderr.write(`\n  FAIL ${tag} chunk seed ${chunkSeed} path ${f.path}: ${f.error}\n  counterexample: ${f.counterexample.slice(0, 300)}\n`);
    }
    const secs = (performance.now() - started) / 1000;
    process.stderr.write(`${tag}: ${done.toLocaleString("en-US")} cases, ${failures} failing chunks, ${secs.toFixed(0)} s   ${progressEnd}`);
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`${process.stderr.isTTY ? "\n" : ""}${tag}: done ${done.toLocaleString("en-US")} cases in ${seconds.toFixed(1)} s, ${failures} failing chunks${stoppedByTime ? " (stopped by --max-minutes)" : ""}\n`);
  return { target: t.name, claim: t.claim, runs: done, requested: o.runs, failures, examples, seconds, seed: o.seed, stoppedByTime, finished: new Date().toISOString() };
}

/** Child processes never outrank the parent, and with several they yield to everyone else's work. */
const CHILD_NICE = 15;

/** One target over `jobs` child processes (each a `--part`), results merged. */
async function runTargetInChildren(t: FuzzTarget, o: Options): Promise<TargetResult> {
  const started = performance.now();
  const common = ["--target", t.name, "--runs", String(o.runs), "--seed", String(o.seed), "--chunk", String(o.chunk), "--max-minutes", String(o.maxMinutes), "--no-write"];
  const parts = await Promise.all(
    Array.from({ length: o.jobs }, (_, index) => new Promise<TargetResult>((resolve, reject) => {
      const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...common, "--part", `${index}/${o.jobs}`], { stdio: ["ignore", "pipe", "inherit"] });
      try {
        setPriority(child.pid!, Math.max(getPriority(), CHILD_NICE));
      } catch {
        // Not permitted here: the child keeps the parent's priority.
      }
      let out = "";
      child.stdout!.on("data", (b: Buffer) => { out += b.toString("utf8"); });
      child.on("error", reject);
      child.on("close", (code) => {
        const line = out.split("\n").find((l) => l.startsWith("RESULT "));
        if (line === undefined) reject(new Error(`${t.name} part ${index}/${o.jobs} exited ${code} without a result`));
        else resolve(JSON.parse(line.slice("RESULT ".length)) as TargetResult);
      });
    })),
  );
  const examples = parts.flatMap((p) => p.examples).sort((a, b) => a.chunkSeed - b.chunkSeed).slice(0, 10);
  return {
    target: t.name,
    claim: t.claim,
    runs: parts.reduce((n, p) => n + p.runs, 0),
    requested: o.runs,
    failures: parts.reduce((n, p) => n + p.failures, 0),
    examples,
    seconds: (performance.now() - started) / 1000,
    seed: o.seed,
    stoppedByTime: parts.some((p) => p.stoppedByTime),
    finished: new Date().toISOString(),
  };
}

const DIR = join(REPO, "fuzz");
const JSON_FILE = join(DIR, "results.json");
const MD_FILE = join(DIR, "RESULTS.md");
const HISTORY_FILE = join(DIR, "history.jsonl");

function readResults(): Record<string, TargetResult> {
  return existsSync(JSON_FILE) ? JSON.parse(readFileSync(JSON_FILE, "utf8")) : {};
}

function readHistory(): TargetResult[] {
  if (!existsSync(HISTORY_FILE)) return [];
  return readFileSync(HISTORY_FILE, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as TargetResult);
}

/** Every latest result is in the history too (runs recorded before the history existed included). */
function syncHistory(): TargetResult[] {
  const history = readHistory();
  const known = new Set(history.map((h) => `${h.target}@${h.finished}`));
  for (const r of Object.values(readResults())) {
    if (!known.has(`${r.target}@${r.finished}`)) {
      appendFileSync(HISTORY_FILE, JSON.stringify(r) + "\n");
      history.push(r);
    }
  }
  return history.sort((a, b) => (a.finished < b.finished ? -1 : a.finished > b.finished ? 1 : 0));
}

function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Runs `fn` holding fuzz/.lock, so two runs recording at once do not lose each other's results. */
function locked(fn: () => void): void {
  const lock = join(DIR, ".lock");
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || Date.now() > until) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    fn();
  } finally {
    rmdirSync(lock);
  }
}

function record(result: TargetResult): void {
  mkdirSync(DIR, { recursive: true });
  locked(() => recordLocked(result));
}

function recordLocked(result: TargetResult): void {
  // Merge with what other runs (other targets, other processes) recorded.
  const all = readResults();
  all[result.target] = result;
  const ordered: Record<string, TargetResult> = {};
  for (const t of TARGETS) if (all[t.name] !== undefined) ordered[t.name] = all[t.name];
  writeAtomic(JSON_FILE, JSON.stringify(ordered, null, 2) + "\n");
  writeAtomic(MD_FILE, render(ordered, syncHistory()));
}

function row(r: TargetResult): string {
  return `| \`${r.target}\` | ${r.runs.toLocaleString("en-US")}${r.runs < r.requested ? ` of ${r.requested.toLocaleString("en-US")}` : ""} | ${r.failures} | ${r.seconds.toFixed(0)} | ${r.seed} | ${r.finished.slice(0, 16).replace("T", " ")} |`;
}

function render(all: Record<string, TargetResult>, history: TargetResult[]): string {
  const rows = Object.values(all).map(row);
  const latest = new Set(Object.values(all).map((r) => `${r.target}@${r.finished}`));
  const earlier = history.filter((h) => !latest.has(`${h.target}@${h.finished}`));
  const claims = Object.values(all).map((r) => `- \`${r.target}\`: ${r.claim}.`);
  const fails = Object.values(all).flatMap((r) => r.examples.map((f) => `- \`${r.target}\` (chunk seed ${f.chunkSeed}, path ${f.path}): ${f.error}`));
  return [
    "# Fuzz results",
    "",
    "Written by `npm run fuzz` (scripts/fuzz.ts); the properties are test/fuzz/targets/*.ts, the same ones the CI",
    "tests run with a few thousand cases (test/fuzz/fuzz.test.ts). Cases are drawn in chunks of 10,000; chunk k uses",
    "seed + k, whichever process runs it (`--jobs J` splits a target's chunks over J child processes; seconds are",
    "wall time). A failing chunk stops at its first (shrunk) counterexample, which is listed below; the run goes on.",
    "",
    "| target | cases | failing chunks | seconds | seed | finished (UTC) |",
    "|---|---:|---:|---:|---:|---|",
    ...rows,
    "",
    "What each target claims:",
    "",
    ...claims,
    "",
    "Failures in the latest runs:",
    "",
    ...(fails.length > 0 ? fails : ["- none"]),
    "",
    "Earlier runs (fuzz/history.jsonl; a target's property may have grown since, and failures found",
    "there were fixed: docs/security.md lists them):",
    "",
    "| target | cases | failing chunks | seconds | seed | finished (UTC) |",
    "|---|---:|---:|---:|---:|---|",
    ...earlier.map(row),
    "",
    ...earlier.flatMap((r) => r.examples.slice(0, 2).map((f) => `- \`${r.target}\` ${r.finished.slice(0, 16).replace("T", " ")} (chunk seed ${f.chunkSeed}): ${f.error}`)),
    "",
  ].join("\n");
}

const options = parseArgs(process.argv.slice(2));
if (options.render) {
  mkdirSync(DIR, { recursive: true });
  writeAtomic(MD_FILE, render(readResults(), syncHistory()));
  process.exit(0);
}
const chosen = options.targets.length > 0 ? TARGETS.filter((t) => options.targets.includes(t.name)) : TARGETS;
if (options.part !== null) {
  // A child of --jobs: one target, its share of the chunks, the result on stdout for the parent.
  if (chosen.length !== 1) usage("--part runs exactly one --target");
  const r = await runTarget(chosen[0], options);
  process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  process.exit(0);
}
let failing = 0;
for (const t of chosen) {
  const r = options.jobs > 1 ? await runTargetInChildren(t, options) : await runTarget(t, options);
  if (options.jobs > 1) process.stderr.write(`${t.name}: ${r.runs.toLocaleString("en-US")} cases over ${options.jobs} processes in ${r.seconds.toFixed(1)} s, ${r.failures} failing chunks\n`);
  failing += r.failures;
  if (options.write) record(r);
}
process.exit(failing > 0 ? 1 : 0);

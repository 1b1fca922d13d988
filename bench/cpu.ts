// CPU time (user + system, all of it: GC included) per guard.check on the airline mix (64 candidates, one
// call each, session scope, released) and per guard.observe of one tool result (the layerb variant's
// workload, bench/lib/cpu-workload.ts): a loaded machine stretches wall time, much less a process's own
// CPU time. Prints min and median of five rounds.
//   npx tsx bench/cpu.ts [calls]                      this checkout
//   npx tsx bench/cpu.ts --ab OLD.mjs NEW.mjs [calls]  two builds in one process, rounds alternating
// (CPU_CHECK_ONLY=1: checks only; CPU_ROUNDS=n: rounds, default 5, 7 with --ab)
// where each .mjs is an esbuild bundle of bench/lib/cpu-workload.ts (bench/cpu-ab.sh REV makes both).
import { pathToFileURL } from "node:url";
import { cpuWorkload, type CpuWorkload } from "./lib/cpu-workload.js";

const args = process.argv.slice(2);
const ab = args[0] === "--ab";
const N = Number((ab ? args[3] : args[0]) ?? 300000);
let sink = 0;

function round(fn: (i: number) => number, n: number): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) sink ^= fn(i);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / n;
}

const stat = (xs: number[]): string => {
  const s = xs.slice().sort((a, b) => a - b);
  return `min ${s[0].toFixed(0)} med ${s[s.length >> 1].toFixed(0)}`;
};

const workloads: [string, CpuWorkload][] = [];
if (ab) {
  for (const file of [args[1], args[2]]) {
    const m = (await import(pathToFileURL(file).href)) as { cpuWorkload: () => CpuWorkload };
    workloads.push([file, m.cpuWorkload()]);
  }
} else workloads.push(["this checkout", cpuWorkload()]);

const M = process.env.CPU_CHECK_ONLY === "1" ? 0 : Math.round(N / 6);
for (const [, w] of workloads) {
  for (let i = 0; i < 100000; i++) sink ^= w.check(i);
  for (let i = 0; i < Math.min(M, 20000); i++) sink ^= w.observe(i);
}
const checks = workloads.map(() => [] as number[]);
const observes = workloads.map(() => [] as number[]);
const rounds = Number(process.env.CPU_ROUNDS ?? (ab ? 7 : 5));
for (let rep = 0; rep < rounds; rep++) {
  for (let k = 0; k < workloads.length; k++) checks[k].push(round(workloads[k][1].check, N));
  if (M > 0) for (let k = 0; k < workloads.length; k++) observes[k].push(round(workloads[k][1].observe, M));
}
for (let k = 0; k < workloads.length; k++) {
  console.log(`${workloads[k][0]}: check cpu ns/call ${stat(checks[k])}${M > 0 ? ` | observe ${stat(observes[k])}` : ""}`);
}
if (ab) {
  // Each round measured both builds back to back: the ratio per round cancels most of the load's drift.
  const ratio = (a: number[], b: number[]) => stat(a.map((x, i) => (1000 * b[i]) / x)).replace(/(\d+)/g, (d) => `${(Number(d) / 10).toFixed(1)}%`);
  console.log(`second / first per round: check ${ratio(checks[0], checks[1])}${M > 0 ? ` | observe ${ratio(observes[0], observes[1])}` : ""}`);
}
console.log(sink & 1);

// The program bench/icount-ab.sh runs under valgrind (bundled from a commit and from the tree):
// n calls of the CPU workload (bench/lib/cpu-workload.ts), checks, or observes with `observe`.
//   node bench/out/icount-new.mjs 30000 [observe]
import { cpuWorkload } from "./cpu-workload.js";

const n = Number(process.argv[2] ?? 10000);
const w = cpuWorkload();
const fn = process.argv[3] === "observe" ? w.observe : w.check;
let sink = 0;
for (let i = 0; i < n; i++) sink ^= fn(i);
console.log(sink & 1);

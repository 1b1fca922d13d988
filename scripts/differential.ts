// Long differential run: the WebAssembly core vs the plain-TS reference on generated cases.
//   npx tsx scripts/differential.ts --runs 1000000 --seed 1
// Cases are drawn in chunks of 10,000 (chunk k uses seed + k), so a failure is reproducible from the
// printed chunk seed and index. Prints the tally of reasons, the timing and every disagreement found.
import fc from "fast-check";
import { Reason, Status } from "../src/abi.js";
import { readOutput } from "../src/core/record.js";
import { loadCore, pairFor } from "../test/differential/backends.js";
import { caseArb } from "../test/differential/generators.js";
import { hex, runOn, sameBytes, statusOf } from "../test/differential/harness.js";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`--${name} needs a non-negative integer`);
  return v;
}

const runs = arg("runs", 1_000_000);
const seed = arg("seed", 1);
const CHUNK = 10_000;
const core = loadCore();
const tally = new Map<string, number>();
let done = 0;
let disagreements = 0;
let genMs = 0;
let runMs = 0;
const started = performance.now();

for (let chunk = 0; done < runs; chunk++) {
  const n = Math.min(CHUNK, runs - done);
  const t0 = performance.now();
  const cases = fc.sample(caseArb, { numRuns: n, seed: seed + chunk });
  const t1 = performance.now();
  cases.forEach(({ tables, record }, i) => {
    const pair = pairFor(core, tables);
    const w = runOn(pair.wasm, record);
    const r = runOn(pair.reference, record);
    const status = statusOf(r);
    const key = status !== Status.Ok ? `status ${Status[status]}` : Reason[readOutput(new DataView(r.buffer)).reason];
    tally.set(key, (tally.get(key) ?? 0) + 1);
    if (!sameBytes(w, r)) {
      disagreements++;
      if (disagreements <= 5) {
        console.log(`DISAGREE chunk seed ${seed + chunk} case ${i}\n  wasm      ${hex(w)}\n  reference ${hex(r)}`);
      }
    }
  });
  genMs += t1 - t0;
  runMs += performance.now() - t1;
  done += n;
  if (chunk % 10 === 9 || done === runs) {
    process.stdout.write(`${done.toLocaleString("en")} cases, ${disagreements} disagreements, ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

console.log(`\nseed ${seed}: ${done.toLocaleString("en")} cases, ${disagreements} disagreements`);
console.log(`time: ${(genMs / 1000).toFixed(1)} s generating, ${(runMs / 1000).toFixed(1)} s encoding + running both backends`);
for (const [k, v] of [...tally].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(22)} ${v}`);
process.exitCode = disagreements === 0 ? 0 : 1;

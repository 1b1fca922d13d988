// npm run fuzz:shell [-- cases [seed]]: the shell guard's executed corpus at a larger volume than CI
// (test/shell/corpus.ts): approved → run with bash → undo → identical manifest; prints the report.
import { loadBashParser } from "../src/shell/index.js";
import { buildTemplates, emptyReport, removeTemplates, runCase, sampleCases } from "../test/shell/corpus.js";

const n = Number(process.argv[2] ?? 5000);
const seed = Number(process.argv[3] ?? 20260424);
await loadBashParser();
const t = buildTemplates();
const report = emptyReport();
const started = Date.now();
try {
  for (const c of sampleCases(seed, n)) await runCase(t, c, report);
} finally {
  removeTemplates(t);
}
console.log(JSON.stringify({ seed, ...report, wrong: report.wrong.length, seconds: Math.round((Date.now() - started) / 1000) }));
for (const w of report.wrong) console.log(JSON.stringify(w));
process.exitCode = report.wrong.length === 0 ? 0 : 1;

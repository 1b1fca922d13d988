// Node side of the cross-runtime conformance run, executed by plain `node` in the folder where the
// packed package is installed: compiles the corpus's ontologies with `polar-guard/compiler`, writes
// input.json for the other runtimes, and prints this runtime's results.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile } from "polar-guard/compiler";
import { runConformance } from "./conformance.mjs";

const [corpus] = process.argv.slice(2);
const cases = readdirSync(join(corpus, "cases"))
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(corpus, "cases", f), "utf8")));
const ontologies = {};
for (const name of new Set(cases.map((c) => c.ontology))) {
  const result = compile(readFileSync(join(corpus, "ontologies", name), "utf8"), { name });
  if (!result.ok) throw new Error(`ontology ${name} does not compile: ${JSON.stringify(result.diagnostics[0])}`);
  ontologies[name] = Buffer.from(result.blob).toString("base64");
}
const input = { ontologies, cases: cases.map(({ name, ontology, state, forward, options }) => ({ name, ontology, state, forward, options })) };
writeFileSync("input.json", JSON.stringify(input));
process.stdout.write(JSON.stringify(await runConformance(input)));

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
  .map((file) => ({ file, ...JSON.parse(readFileSync(join(corpus, "cases", file), "utf8")) }));
// A case names an ontology file in ./ontologies or carries the source inline (as the corpus runner reads it).
const ontologies = {};
function ontologyKey(c) {
  const inline = !/^[\w.-]+\.polar$/.test(c.ontology);
  const key = inline ? `${c.name}.polar` : c.ontology;
  if (!(key in ontologies)) {
    const source = inline ? c.ontology : readFileSync(join(corpus, "ontologies", c.ontology), "utf8");
    const result = compile(source, { name: key });
    if (!result.ok) throw new Error(`ontology ${key} does not compile: ${JSON.stringify(result.diagnostics[0])}`);
    ontologies[key] = Buffer.from(result.blob).toString("base64");
  }
  return key;
}
const input = {
  ontologies,
  cases: cases.map((c) => ({ name: c.file.replace(/\.json$/, ""), ontology: ontologyKey(c), state: c.state, forward: c.forward, options: c.options })),
};
writeFileSync("input.json", JSON.stringify(input));
process.stdout.write(JSON.stringify(await runConformance(input)));

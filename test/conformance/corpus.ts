// Loads the conformance corpus: one JSON case per file in ./cases, each naming an ontology (a file in
// ./ontologies or inline source), a Layer B state, a forward sequence, verdict options and the verdict
// expected by hand from docs/semantics.md.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecutedCall, ReasonName, TierName, VerdictOptions } from "../../src/core/types.js";

const HERE = dirname(fileURLToPath(import.meta.url));

export interface ExpectedStep {
  call: number;
  tool: string | null;
  tier: TierName;
  annotation: string;
  arguments: Record<string, unknown> | null;
}

export interface ConformanceCase {
  file: string;
  name: string;
  description: string;
  ontology: string;
  state: unknown;
  forward: ExecutedCall[];
  options: VerdictOptions;
  expected: {
    reason: ReasonName;
    complete: boolean;
    phi: number;
    loss: number;
    nodes?: number;
    steps: ExpectedStep[];
    bottleneck: { call: number; tool: string | null; reason: ReasonName; annotation: string | null };
  };
}

/** The ontology source of a case: a file name in ./ontologies, or the source text itself. */
export function ontologySource(c: ConformanceCase): { name: string; source: string } {
  if (/^[\w.-]+\.polar$/.test(c.ontology)) {
    return { name: c.ontology, source: readFileSync(join(HERE, "ontologies", c.ontology), "utf8") };
  }
  return { name: `${c.name}.polar`, source: c.ontology };
}

export function loadCases(): ConformanceCase[] {
  const dir = join(HERE, "cases");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<ConformanceCase, "file">) }));
}

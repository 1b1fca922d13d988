// Shared by the ontology tests: paths (repo root, τ²-bench data via POLAR_TAU2_DIR), compiling a
// domain's ontology, projecting its real database, and a verifier over the reference backend (and the
// WebAssembly core when it is built).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "../../src/compiler/index.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { createVerifier, type Verifier } from "../../src/core/verifier.js";
import { instantiateCoreSync } from "../../src/core/wasm.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { LayerB, parseProjectionRules, parseTomlDocument, projectDocument, type ProjectionRules } from "../../src/projection/index.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export { TAU2_DIR, HAS_TAU2, describeTau2, itTau2 } from "../tau2/data-dir.js";
import { TAU2_DIR } from "../tau2/data-dir.js";
export const ONTOLOGIES = join(ROOT, "ontologies");

export type Domain = "airline" | "retail" | "telecom";
export const DOMAINS: Domain[] = ["airline", "retail", "telecom"];

/** τ²-bench's fixed clocks (domains/<d>/policy.md; airline's book_reservation stamps it as created_at). */
export const NOW: Record<Domain, string> = {
  airline: "2024-05-15T15:00:00",
  retail: "2024-05-15T15:00:00",
  telecom: "2025-02-25T12:08:00",
};

export function ontologyPath(d: Domain): string {
  return join(ONTOLOGIES, d, `${d}.polar`);
}

const compiled = new Map<Domain, OntologyTables>();

export function tablesOf(d: Domain): OntologyTables {
  let t = compiled.get(d);
  if (t === undefined) {
    const r = compile(readFileSync(ontologyPath(d), "utf8"), { name: `${d}.polar` });
    if (!r.ok) throw new Error(`${d}.polar does not compile: ${r.diagnostics.map((x) => x.message).join("; ")}`);
    t = r.tables;
    compiled.set(d, t);
  }
  return t;
}

export function rulesOf(d: Domain): ProjectionRules {
  return parseProjectionRules(JSON.parse(readFileSync(join(ONTOLOGIES, d, "projection.json"), "utf8")));
}

const states = new Map<Domain, LayerB>();

/** Layer B of the domain's real database (a fresh clone per call: tests may apply results to it). */
export function stateOf(d: Domain): LayerB {
  let s = states.get(d);
  if (s === undefined) {
    const rules = rulesOf(d);
    const base = join(TAU2_DIR, "domains", d);
    if (d === "telecom") {
      s = projectDocument(rules, parseTomlDocument(readFileSync(join(base, "db.toml"), "utf8")));
      projectDocument(rules, parseTomlDocument(readFileSync(join(base, "user_db.toml"), "utf8")), s, { document: "user_db" });
    } else {
      s = projectDocument(rules, JSON.parse(readFileSync(join(base, "db.json"), "utf8")));
    }
    states.set(d, s);
  }
  return s.clone();
}

export function manifestOf(d: Domain): Array<{ name: string; kind: string; side?: string; params: Record<string, string> }> {
  return JSON.parse(readFileSync(join(TAU2_DIR, "tools", `${d}.json`), "utf8"));
}

const WASM = join(ROOT, "build", "polar-core.wasm");

/** The backends a scenario runs on: the reference always, the WebAssembly core once it is built. */
export function backendsOf(tables: OntologyTables, blob?: Uint8Array): Array<{ kind: string; backend: SearchBackend }> {
  const out: Array<{ kind: string; backend: SearchBackend }> = [{ kind: "reference", backend: createReferenceBackend(tables) }];
  if (existsSync(WASM) && blob !== undefined) {
    const core = instantiateCoreSync(readFileSync(WASM));
    out.push({ kind: "wasm", backend: core.load(blob) });
  }
  return out;
}

export function verifiersOf(d: Domain): Array<{ kind: string; verifier: Verifier }> {
  const r = compile(readFileSync(ontologyPath(d), "utf8"), { name: `${d}.polar` });
  if (!r.ok) throw new Error(`${d}.polar does not compile`);
  return backendsOf(r.tables, r.blob).map(({ kind, backend }) => ({
    kind,
    verifier: createVerifier(r.tables, backend, { now: NOW[d] }),
  }));
}

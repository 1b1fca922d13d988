// What a τ²-bench domain needs from the package to be guarded: its compiled ontology, its projection
// rules and a verdict backend. Shared by `polar demo`, `polar eval tau2` and the tests, so that no
// library module reaches up into a CLI command for it. Node only (it reads files).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { blobDigestHex, decodeBlob } from "../blob/index.js";
import { compile } from "../compiler/index.js";
import { instantiateCoreSync } from "../core/wasm.js";
import type { AuditSink, BackendFactory, Decision } from "../guard/index.js";
import type { LayerB } from "../projection/layer-b.js";
import type { OntologyTables } from "../ontology/tables.js";
import { parseProjectionRules, type ProjectionRules } from "../projection/index.js";
import { createReferenceBackend } from "../reference/index.js";
import type { Trajectory } from "./adapter.js";
import { readTau2Data, type Tau2Data } from "./data.js";
import { advisoryGuardFactory } from "./guard.js";
import { projectAll, type ReplayGuardFactory } from "./replay.js";

export type DomainLoadErrorCode = "no-ontology" | "ontology-errors" | "no-projection" | "bad-option" | "core-unavailable" | "no-domain" | "no-trajectories";

/** A domain's ontology, rules or backend could not be loaded: a stable code, a one-line message, a help. */
export class DomainLoadError extends Error {
  constructor(
    readonly code: DomainLoadErrorCode,
    message: string,
    readonly help?: string,
  ) {
    super(message);
    this.name = "DomainLoadError";
  }
}

export interface LoadedOntology {
  ontology: { tables: OntologyTables; hash: string; blob: Uint8Array };
  /** Where it came from: the shipped blob, or the source compiled now (and why). */
  note: string;
  source: string | null;
}

/** The domain's compiled ontology under `<root>/ontologies/<domain>/`: the shipped blob, or (when it is
 * refused, e.g. stale after a format change in a development checkout) the source compiled now. */
export function loadDomainOntology(root: string, domain: string): LoadedOntology {
  const dir = join(root, "ontologies", domain);
  const blobPath = join(dir, `${domain}.blob`);
  const srcPath = join(dir, `${domain}.polar`);
  const source = existsSync(srcPath) ? readFileSync(srcPath, "utf8") : null;
  let refused = "";
  if (existsSync(blobPath)) {
    const blob = new Uint8Array(readFileSync(blobPath));
    try {
      return { ontology: { tables: decodeBlob(blob), hash: blobDigestHex(blob), blob }, note: `ontologies/${domain}/${domain}.blob`, source };
    } catch (err) {
      refused = `the shipped blob is refused (${err instanceof Error ? err.message : String(err)}); `;
    }
  }
  if (source === null) {
    throw new DomainLoadError("no-ontology", `no ontology for domain \`${domain}\` in \`${dir}\``, `expected ${domain}.blob or ${domain}.polar`);
  }
  const result = compile(source, { name: `${domain}.polar` });
  if (!result.ok) {
    throw new DomainLoadError("ontology-errors", `the ontology \`ontologies/${domain}/${domain}.polar\` has errors`, "run `polar check` on it");
  }
  return {
    ontology: { tables: result.tables, hash: blobDigestHex(result.blob), blob: result.blob },
    note: `${refused}compiled from ontologies/${domain}/${domain}.polar`,
    source,
  };
}

/** Whether `<root>/ontologies/<domain>/` holds an ontology at all. */
export function hasDomainOntology(root: string, domain: string): boolean {
  const dir = join(root, "ontologies", domain);
  return existsSync(join(dir, `${domain}.blob`)) || existsSync(join(dir, `${domain}.polar`));
}

export function loadDomainRules(root: string, domain: string): ProjectionRules {
  const path = join(root, "ontologies", domain, "projection.json");
  if (!existsSync(path)) throw new DomainLoadError("no-projection", `no projection rules for domain \`${domain}\``, `expected ${path}`);
  return parseProjectionRules(JSON.parse(readFileSync(path, "utf8")));
}

/** The verdict backend by name: `reference`, `wasm` (the built core, else an error) or `auto` (the
 * built core when there is one). Every backend gives the same verdicts. */
export function loadCoreBackend(root: string, wanted: string): { factory: BackendFactory; name: string } {
  if (wanted !== "wasm" && wanted !== "reference" && wanted !== "auto") {
    throw new DomainLoadError("bad-option", `--backend \`${wanted}\` is not wasm, reference or auto`);
  }
  if (wanted !== "reference") {
    for (const rel of ["dist/polar-core.wasm", "build/polar-core.wasm"]) {
      const file = join(root, rel);
      if (!existsSync(file)) continue;
      const module = new WebAssembly.Module(readFileSync(file));
      return {
        // A fresh instance per guard: each guard loads its own blob into its own core.
        factory: (tables, blob) => (blob ? instantiateCoreSync(module).load(blob) : createReferenceBackend(tables)),
        name: `wasm (${rel})`,
      };
    }
    if (wanted === "wasm") throw new DomainLoadError("core-unavailable", "the core `polar-core.wasm` was not found", "run `npm run build:wasm`, or pass `--backend reference`");
  }
  return { factory: (tables) => createReferenceBackend(tables), name: wanted === "auto" ? "reference (no wasm core built)" : "reference" };
}

/** Everything needed to replay one domain's runs through an advisory guard (what `polar demo` shows). */
export interface DomainReplay {
  data: Tau2Data;
  domain: string;
  /** Where the ontology came from (./domains.ts `loadDomainOntology`). */
  ontologyNote: string;
  backendName: string;
  rules: ProjectionRules;
  documents: Readonly<Record<string, unknown>>;
  /** The domain's documents projected once. */
  base: LayerB;
  guard: ReplayGuardFactory<Decision>;
  trajectories: Trajectory[];
}

export interface DomainReplayOptions {
  root: string;
  dataDir: string;
  domain: string;
  task?: string;
  /** At most this many trajectories (in file order). */
  limit: number;
  backend: string;
  /** A decision log for each guard the replay creates (one per trajectory and scope). */
  log?: () => AuditSink;
}

/** Loads the data, the domain's ontology, rules and backend, and picks the trajectories to replay. */
export function openDomainReplay(o: DomainReplayOptions): DomainReplay {
  const data = readTau2Data(o.dataDir);
  if (!data.domainNames.includes(o.domain)) {
    throw new DomainLoadError("no-domain", `\`${o.dataDir}\` has no domain \`${o.domain}\``, `domains: ${data.domainNames.join(", ") || "none"}`);
  }
  const { ontology, note } = loadDomainOntology(o.root, o.domain);
  const rules = loadDomainRules(o.root, o.domain);
  const backend = loadCoreBackend(o.root, o.backend);
  const dom = data.domain(o.domain);
  let trajectories = data.resultsFiles().flatMap((f) => data.readResultsFile(f)).filter((t) => t.domain === o.domain);
  if (o.task !== undefined) trajectories = trajectories.filter((t) => t.taskId === o.task);
  trajectories = trajectories.slice(0, o.limit);
  if (trajectories.length === 0) {
    throw new DomainLoadError("no-trajectories", `no ${o.domain} trajectories${o.task !== undefined ? ` for task \`${o.task}\`` : ""} in \`${join(o.dataDir, "results")}\``);
  }
  return {
    data,
    domain: o.domain,
    ontologyNote: note,
    backendName: backend.name,
    rules,
    documents: dom.documents,
    base: projectAll(rules, dom.documents),
    guard: o.log === undefined ? advisoryGuardFactory({ ontology, rules, backend: backend.factory }) : (state, scope) => advisoryGuardFactory({ ontology, rules, backend: backend.factory, config: { log: o.log!() } })(state, scope),
    trajectories,
  };
}

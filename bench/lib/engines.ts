// Building the engines under test: the WebAssembly core or the TypeScript reference as a search
// backend, a verifier over either, and a guard over either (veto policy, session scope, audit sink).
import { readFileSync } from "node:fs";
import type { SearchBackend } from "../../src/core/backend.js";
import { instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import { createGuard, type AuditSink, type Guard, type GuardOptions } from "../../src/guard/index.js";
import type { Decision } from "../../src/guard/decision.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import type { LayerB } from "../../src/projection/layer-b.js";
import type { ProjectionRules } from "../../src/projection/rules.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { consume } from "./stats.js";
import { WASM_PATH } from "./paths.js";

export type BackendKind = "wasm" | "reference";

let module: WebAssembly.Module | null = null;

export function coreModule(): WebAssembly.Module {
  module ??= new WebAssembly.Module(readFileSync(WASM_PATH));
  return module;
}

export function newCore(): CoreInstance {
  return instantiateCoreSync(coreModule());
}

export function backendOf(kind: BackendKind, tables: OntologyTables, blob: Uint8Array): SearchBackend {
  return kind === "wasm" ? newCore().load(blob) : createReferenceBackend(tables);
}

/** The audit sink of the benchmark: takes every decision (the guard builds the full record) and keeps
 * only a count and a fold of it, so memory stays flat over millions of checks. */
export function countingSink(): AuditSink & { count: number } {
  const s = {
    count: 0,
    append(d: Decision): void {
      s.count++;
      consume(d.seq ^ d.route.length);
    },
  };
  return s;
}

export interface GuardSetup {
  kind: BackendKind;
  tables: OntologyTables;
  blob: Uint8Array;
  hash: string;
  state: LayerB;
  /** Projection rules for observe(); none when the run never observes. */
  rules?: ProjectionRules;
  now: string;
  log: AuditSink;
}

export function guardOf(s: GuardSetup): Guard {
  return createGuard(guardOptions(s));
}

/** The options guardOf creates its guard with (the decision variant resolves the same ones). */
export function guardOptions(s: GuardSetup): GuardOptions {
  return {
    ontology: { tables: s.tables, hash: s.hash, blob: s.blob },
    backend: (tables, blob) => (s.kind === "wasm" ? newCore().load(blob ?? s.blob) : createReferenceBackend(tables)),
    state: s.state,
    policy: "veto",
    scope: "session",
    config: s.rules === undefined ? { now: s.now, log: s.log } : { now: s.now, projection: s.rules, log: s.log },
  };
}

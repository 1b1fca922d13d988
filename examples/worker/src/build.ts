// A session's guard from its creation request, on the isolate's ready domain (domains.ts): the same
// function builds a Durable Object's guard and the isolate's warm-up session (warmup.ts).
import { createHash } from "node:crypto";
import {
  loadGuard,
  projectDocument,
  type CoreInstance,
  type Decision,
  type Guard,
  type GuardConfig,
  type PolicyName,
  type PreparedOntology,
  type ProjectionRules,
  type Scope,
  type GuardSnapshot,
} from "polar-guard";
import type { Resume } from "./journal.js";
import { TrackedLayerB } from "./layer.js";

/** A domain made ready for guards (domains.ts): its core, its validated ontology, its parsed
 * projection rules. */
export interface ReadyDomain {
  core: Promise<CoreInstance>;
  ontology: PreparedOntology;
  projection: ProjectionRules;
}

/** A session's creation request, as stored. */
export interface Meta {
  domain: string;
  document: unknown;
  state: unknown;
  policy: PolicyName;
  scope: Scope;
  config: Record<string, unknown>;
}

/** workerd's native SHA-256 (node:crypto; wrangler.toml's nodejs_compat), synchronous as the guard's
 * `config.sha256` and the log chain need: JavaScript's costs milliseconds per record in a cold isolate. */
export const sha256 = (data: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest());

/** What storage keeps of a session's creation: its initial Layer B as JSON in place of the document
 * (the same state), so a woken object rebuilds it from JSON instead of running the projection rules
 * over the document again (~2.5× less CPU, and far less cold). `guard` must be the session's guard
 * before any operation ran. */
export function storedMeta(meta: Meta, guard: Guard): Meta {
  if (meta.document === undefined) return meta;
  return { ...meta, document: undefined, state: (guard.state as TrackedLayerB).toJSON() };
}

/** Nothing here validates the ontology again: the domain holds it validated. With `resume` (a stored
 * session woken), the guard goes on from the stored snapshot on the stored Layer B (./journal.ts). */
export async function buildGuard(domain: ReadyDomain, meta: Meta, log: (d: Decision) => void, resume?: Resume): Promise<Guard> {
  const { projection, ontology } = domain;
  const initial = (): TrackedLayerB =>
    meta.document !== undefined ? (projectDocument(projection, meta.document, new TrackedLayerB()) as TrackedLayerB) : TrackedLayerB.from(meta.state ?? { entities: {} });
  const state = resume === undefined ? initial() : resume.state(initial);
  // The journal chains the records (./journal.ts): a rebuild goes on from the stored head.
  const config = { ...meta.config, projection, sha256, log: { append: log } } as GuardConfig;
  return loadGuard({ blob: ontology.blob, core: await domain.core, state, policy: meta.policy, scope: meta.scope, config, resume: resume?.snapshot as GuardSnapshot | undefined });
}

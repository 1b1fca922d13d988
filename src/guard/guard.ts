// createGuard: what an agent developer calls. A guard holds one compiled ontology, one search backend
// (recreated after a trap), a view of Layer B and a decision policy. check() judges a proposed call
// and returns a Decision (never throws for an expected outcome); observe() feeds an executed call's
// result back into Layer B and, in session scope, into the forward sequence; checkpoint() clears it.
//
// The parts (each a module with its own tests): options → resolved config (./options.ts), the engine
// (./engine.ts), the lifecycle of executions (./lifecycle.ts), the consent book (./consent-book.ts),
// `before` snapshots (./before.ts), check → judge → record, the hot path (./judge.ts), observe
// (./observe.ts), snapshots (./snapshot.ts). Shared types: ./types.ts.
import { BeforeReader } from "./before.js";
import { callKey } from "./call.js";
import { ConsentBook } from "./consent-book.js";
import { Engine } from "./engine.js";
import { describeError, GuardError } from "./errors.js";
import { Judge } from "./judge.js";
import { Lifecycle } from "./lifecycle.js";
import { Observer } from "./observe.js";
import { resolveOptions } from "./options.js";
import { readSnapshot, writeSnapshot } from "./snapshot.js";
import type { Guard, GuardOptions, SafeGuardResult } from "./types.js";
import { UnknownMarks } from "./unknown.js";

export type {
  AuditSink,
  BackendFactory,
  CheckContext,
  ConversationMessage,
  Guard,
  GuardConfig,
  GuardOptions,
  ObserveOptions,
  ObserveReport,
  OntologyInput,
  PendingExecution,
  SafeGuardResult,
} from "./types.js";

export function createGuard(options: GuardOptions): Guard {
  const o = resolveOptions(options);
  const engine = new Engine(o.tables, o.blob, o.backend);
  const lifecycle = new Lifecycle(o.scope, o.config.maxDepth, callKey);
  const unknown = new UnknownMarks();
  const book = new ConsentBook(o.config.consent, o.detector, engine);
  const before = new BeforeReader(o.tables, o.state);
  const judge = new Judge(o, engine, lifecycle, unknown, book, before);
  const observer = new Observer(o, engine, lifecycle, unknown, before);
  const binding = { ontologyHash: o.ontologyHash, configHash: o.configHash, policy: o.policy.name, scope: o.scope };
  if (options.resume !== undefined) {
    const snap = readSnapshot(options.resume, { ...binding, maxDepth: o.config.maxDepth });
    judge.seq = snap.seq;
    lifecycle.restoreState(snap);
    unknown.restore(snap.unknown);
    book.restore(snap.questions);
  }
  return {
    ontologyHash: o.ontologyHash,
    configHash: o.configHash,
    config: o.config,
    scope: o.scope,
    policy: o.policy.name,
    state: o.state,
    tables: o.tables,
    check: (call, context) => judge.check(call, context),
    checkAsync: (call, context) => judge.checkAsync(call, context),
    observe: (call, result, opts) => observer.observe(call, result, opts),
    release(execution: string): boolean {
      const x = typeof execution === "string" ? lifecycle.get(execution) : undefined;
      if (x === undefined || x.state !== "pending") return false;
      lifecycle.release(x);
      return true;
    },
    pending: () => lifecycle.pending().map((x) => ({ execution: x.id, seq: x.seq, call: x.call })),
    markKnown(entity?: string, id?: string): void {
      unknown.clear(entity, id);
    },
    checkpoint(): void {
      lifecycle.checkpoint();
    },
    sequence: () => lifecycle.sequence().map((c) => ({ ...c })),
    snapshot: () => writeSnapshot(binding, judge.seq, lifecycle.exportState(), book.list(), unknown.list() ?? []),
  };
}

/** createGuard without throwing: `{ ok: false, error }` carries the typed GuardError. */
export function safeCreateGuard(options: GuardOptions): SafeGuardResult {
  try {
    return { ok: true, guard: createGuard(options) };
  } catch (e) {
    if (e instanceof GuardError) return { ok: false, error: e };
    return { ok: false, error: new GuardError("invalid-config", describeError(e), undefined, { cause: e }) };
  }
}

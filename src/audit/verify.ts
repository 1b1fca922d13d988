// Replaying a decision log: every record is re-derived from the record alone (its call, forward
// sequence, recorded Layer B reads, user messages, model answers and configuration) against the
// ontology named by its hash, and every derived field is compared with what the record says.
import type { StateView } from "../core/types.js";
import { createVerifier, type Verifier } from "../core/verifier.js";
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { createReferenceBackend } from "../reference/index.js";
import { canonicalJson } from "../projection/canonical.js";
import { ENGINE_VERSION } from "../version.js";
import { DEFAULT_CONSENT_DETECTOR_ID, defaultConsentDetector, type ConsentDetector } from "../policies/consent.js";
import { BUILTIN_POLICIES } from "../policies/index.js";
import type { DecisionPolicy } from "../policies/types.js";
import type { TargetState } from "../policies/classifier.js";
import { configHash, resolveConfig, tauFixed, type EffectiveConfig } from "../guard/config.js";
import { DECISION_FORMAT, type Decision } from "../guard/decision.js";
import { describeError } from "../guard/errors.js";
import { evaluate, type ModelAnswers } from "../guard/evaluate.js";
import type { BackendFactory } from "../guard/guard.js";
import { recordedMarks } from "../guard/unknown.js";
import { ReplayView, readsDigest, type Read } from "../guard/reads.js";
import { splitJsonl } from "./jsonl.js";
import { HOOK_RECORD_FORMAT } from "./hook-record.js";
import { CHAIN_GENESIS, EMPTY_HEAD, recordHash, type ChainHead } from "./chain.js";
import { OUTCOME_FORMAT, outcomeProblems } from "./outcome.js";

export interface Mismatch {
  /** 1-based line number in the log. */
  line: number;
  field: string;
  expected: unknown; // what the replay derived
  actual: unknown; // what the record says
}

export interface VerifyOptions {
  /** Ontologies by hash (blobDigestHex): blob bytes, or decoded tables. A blob's hash is checked. */
  ontologies: Record<string, Uint8Array | OntologyTables> | Array<Uint8Array>;
  /** Default: the TypeScript reference backend. */
  backend?: BackendFactory;
  /** Custom policies by name (veto, escalate and advisory are built in). */
  policies?: Record<string, DecisionPolicy>;
  /** Custom consent detectors by id (the default detector is built in). */
  consentDetectors?: Record<string, ConsentDetector>;
  /** Refuse records written by another engine version (default true). */
  strictEngineVersion?: boolean;
  /** A synchronous SHA-256 for blob hashes, reads digests and the chain (Node: node:crypto's); default
   * the JavaScript one. */
  sha256?: Sha256;
  /** An anchored head (a record hash stored elsewhere, `polar audit head`): the log must still hold
   * that record, unchanged, with everything before it. Catches a truncated or rewritten tail. */
  head?: string;
  /** Count records that failed closed on a backend fault the replay cannot reproduce as accounted for
   * (listed in `transient`) instead of as mismatches. Default false: such a record claims an outcome
   * that does not follow from its inputs, which is also what a hidden approval looks like. */
  acceptTransient?: boolean;
  /** An empty log verifies (default false: an empty log is reported, it proves nothing). */
  allowEmpty?: boolean;
  /** Re-derives a coding-agent hook's read-only shell approval (polar-guard/shell's `readOnlyChecker`):
   * without it such an approval is a mismatch, never taken on trust. */
  shellReadOnly?: { catalogue: string; check(command: string, cwd: string): string | null };
}

export interface VerifyReport {
  ok: boolean;
  /** Records read. */
  total: number;
  /** Records re-derived with every field equal. */
  verified: number;
  mismatches: Mismatch[];
  /** Records that failed closed because the backend itself failed (e.g. a trap) where the replay does
   * not fail: listed here when `acceptTransient` is set (they never approve), else mismatches. */
  transient: number[];
  /** The log's last record (index and hash): what to anchor. */
  head: ChainHead;
  /** Of `total`, outcome records (src/audit/outcome.ts), and of `verified`, those that checked out
   * (both present only when the log holds outcome records). */
  outcomes?: number;
  outcomesVerified?: number;
}

interface Engine {
  tables: OntologyTables;
  verifier: Verifier;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isSeq(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 1;
}

function same(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a ?? null) === canonicalJson(b ?? null);
  } catch {
    return false;
  }
}

/** Compared one by one so a report names exactly what differs. */
const DERIVED_FIELDS = [
  "route", "approved", "admissible", "reason", "detail", "verdict", "targets", "classification", "message",
  "refusal", "question", "consent", "reads", "stateDigest",
] as const;

export function verifyAuditLog(input: string | Iterable<string>, options: VerifyOptions): VerifyReport {
  const lines = typeof input === "string" ? splitJsonl(input) : [...input].map((text, i) => ({ line: i + 1, text })).filter((l) => l.text.trim() !== "");
  const factory: BackendFactory = options.backend ?? ((t) => createReferenceBackend(t));
  const sources = new Map<string, { tables: OntologyTables; blob: Uint8Array | null }>();
  const addBlob = (blob: Uint8Array): void => {
    sources.set(blobDigestHex(blob, options.sha256), { tables: decodeBlob(blob, { sha256: options.sha256 }), blob });
  };
  if (Array.isArray(options.ontologies)) {
    for (const b of options.ontologies) addBlob(b);
  } else {
    for (const [hash, o] of Object.entries(options.ontologies)) {
      if (o instanceof Uint8Array) {
        const digest = blobDigestHex(o, options.sha256);
        if (digest !== hash) throw new Error(`ontology given for hash \`${hash}\` has hash \`${digest}\``);
        addBlob(o);
      } else {
        sources.set(hash, { tables: o, blob: null });
      }
    }
  }
  const engines = new Map<string, Engine>();
  const engineFor = (hash: string): Engine | null => {
    let e = engines.get(hash);
    if (e === undefined) {
      const src = sources.get(hash);
      if (src === undefined) return null;
      e = { tables: src.tables, verifier: createVerifier(src.tables, factory(src.tables, src.blob)) };
      engines.set(hash, e);
    }
    return e;
  };

  const mismatches: Mismatch[] = [];
  const transient: number[] = [];
  let verified = 0;
  let outcomes = 0;
  let outcomesVerified = 0;
  // The chain: the previous record's hash (null after a line that is not a record, already reported)
  // and the guard's seq of the previous record.
  let prevHash: string | null = CHAIN_GENESIS;
  let prevSeq = 0;
  let head: ChainHead = EMPTY_HEAD;
  // The current guard run's decisions by seq: whether it was approved with an execution, and whether
  // an outcome record already answered it (outcome records: src/audit/outcome.ts).
  let run = new Map<number, { execution: string | null; answered: boolean }>();
  let anchored = options.head === undefined;
  if (lines.length === 0 && options.allowEmpty !== true) {
    mismatches.push({ line: 0, field: "log", expected: "at least one decision record", actual: "an empty log" });
  }
  if (typeof input === "string" && lines.length > 0 && !/\n\s*$/u.test(input)) {
    // The sinks end every record with a newline: a log that stops mid-line was cut off while written.
    const last = lines[lines.length - 1].line;
    mismatches.push({ line: last, field: "truncated", expected: "a log ending in a newline", actual: "the last line has no newline" });
  }
  lines.forEach(({ line, text }, position) => {
    const found: Mismatch[] = [];
    const miss = (field: string, expected: unknown, actual: unknown): void => {
      found.push({ line, field, expected, actual });
    };
    let rec: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      if (!isRecord(parsed)) throw new Error("not an object");
      rec = parsed;
    } catch (e) {
      mismatches.push({ line, field: "json", expected: "a decision record", actual: describeError(e) });
      prevHash = null;
      prevSeq = -1;
      return;
    }
    let hash: string;
    try {
      hash = recordHash(rec, options.sha256);
    } catch (e) {
      mismatches.push({ line, field: "json", expected: "a decision record", actual: describeError(e) });
      prevHash = null;
      prevSeq = -1;
      return;
    }
    if (rec.format === OUTCOME_FORMAT) {
      // What finally happened to an approved call: in the chain, not in the guard's numbering.
      checkLink(rec, position + 1, prevHash, miss);
      prevHash = hash;
      head = { index: position + 1, hash };
      if (hash === options.head) anchored = true;
      const problems = outcomeProblems(rec);
      if (problems.length > 0) miss("outcome", "a polar-outcome/1 record", problems.join("; "));
      else {
        const d = run.get(rec.seq as number);
        if (d === undefined || d.execution !== rec.execution) miss("outcome.seq", "an approved decision of this guard's run earlier in the log", rec.seq);
        else if (d.answered) miss("outcome.seq", "one outcome per approved decision", `a second outcome for seq ${String(rec.seq)}`);
        else d.answered = true;
      }
      outcomes++;
      if (found.length === 0) {
        verified++;
        outcomesVerified++;
      }
      mismatches.push(...found);
      return;
    }
    checkChain(rec, position + 1, prevHash, prevSeq, miss);
    if (rec.seq === 1) run = new Map();
    if (isSeq(rec.seq)) run.set(rec.seq, { execution: rec.approved === true && typeof rec.execution === "string" ? rec.execution : null, answered: false });
    prevHash = hash;
    // An invalid seq is reported once, on its own line; the next record is not judged against it.
    prevSeq = isSeq(rec.seq) ? rec.seq : -1;
    head = { index: position + 1, hash };
    if (hash === options.head) anchored = true;
    try {
      if (rec.format === HOOK_RECORD_FORMAT) replayHook(rec, miss, transient, line);
      else {
        if (rec.format !== DECISION_FORMAT) miss("format", DECISION_FORMAT, rec.format);
        replay(rec as unknown as Decision, miss, transient, line);
      }
    } catch (e) {
      miss("record", "a replayable decision record", describeError(e));
    }
    if (found.length === 0) verified++;
    mismatches.push(...found);
  });
  if (!anchored) {
    mismatches.push({ line: lines.length === 0 ? 0 : lines[lines.length - 1].line, field: "head", expected: options.head, actual: "no record of the log has the anchored hash (truncated or rewritten)" });
  }
  const report: VerifyReport = { ok: mismatches.length === 0, total: lines.length, verified, mismatches, transient, head };
  if (outcomes > 0) {
    report.outcomes = outcomes;
    report.outcomesVerified = outcomesVerified;
  }
  return report;

  /** The record's place in the chain and in its guard's numbering. */
  function checkChain(rec: Record<string, unknown>, index: number, prev: string | null, lastSeq: number, miss: (f: string, e: unknown, a: unknown) => void): void {
    checkLink(rec, index, prev, miss);
    // A guard numbers its decisions 1, 2, 3…; a log may hold several guards one after another, each
    // starting again at 1.
    const seq = rec.seq;
    if (!isSeq(seq)) miss("seq", "a positive integer", seq);
    else if (seq !== 1 && lastSeq >= 0 && seq !== lastSeq + 1) miss("seq", lastSeq + 1, seq);
  }

  function checkLink(rec: Record<string, unknown>, index: number, prev: string | null, miss: (f: string, e: unknown, a: unknown) => void): void {
    const link = rec.chain as { index?: unknown; prev?: unknown } | undefined;
    if (!isRecord(link)) {
      miss("chain", "a chain link `{ index, prev }`", link);
    } else {
      if (link.index !== index) miss("chain.index", index, link.index);
      if (prev !== null && link.prev !== prev) miss("chain.prev", prev, link.prev);
    }
  }

  /** A coding-agent hook's record (src/hooks): each core decision inside it is replayed, and its answer
   * must follow from them: `allow` only when every decision approved (at least one), or with the
   * approval a user gave for exactly this call (`polar approve`) over an escalation. */
  function replayHook(rec: Record<string, unknown>, miss: (f: string, e: unknown, a: unknown) => void, transientLines: number[], line: number): void {
    const decisions = rec.decisions;
    if (!Array.isArray(decisions)) {
      miss("decisions", "a list of decision records", decisions);
      return;
    }
    decisions.forEach((d: unknown, i) => {
      if (!isRecord(d) || d.format !== DECISION_FORMAT) {
        miss(`decisions[${i}]`, "a decision record", d);
        return;
      }
      replay(d as unknown as Decision, (f, e, a) => miss(`decisions[${i}].${f}`, e, a), transientLines, line);
    });
    if (!["allow", "ask", "deny"].includes(rec.action as string)) miss("action", "allow, ask or deny", rec.action);
    if (rec.action === "allow") {
      const all = decisions.length > 0 && decisions.every((d) => isRecord(d) && d.approved === true);
      // A read-only shell command is approved by the shell dispatcher without asking the core: its
      // evidence (the line, its directory, the catalogue) is dispatched again (docs/hooks.md, "Audit").
      const readOnly = decisions.length === 0 && rec.code === "read_only" && readOnlyHolds(rec, miss);
      const approved = typeof rec.approval === "string" && decisions.length > 0 && decisions.every((d) => isRecord(d) && (d.approved === true || d.route === "ConsentEscalated"));
      if (!all && !approved && !readOnly) miss("action", "deny (no decision approves the call)", rec.action);
    }
  }

  function readOnlyHolds(rec: Record<string, unknown>, miss: (f: string, e: unknown, a: unknown) => void): boolean {
    const ev = rec.readOnly as { command?: unknown; cwd?: unknown; catalogue?: unknown } | undefined;
    if (!isRecord(ev) || typeof ev.command !== "string" || typeof ev.cwd !== "string" || typeof ev.catalogue !== "string") {
      miss("readOnly", "the evidence of a read-only approval { command, cwd, catalogue }", ev);
      return false;
    }
    const input = rec.input as { command?: unknown } | undefined;
    if (!isRecord(input) || input.command !== ev.command) {
      miss("readOnly.command", isRecord(input) ? input.command : undefined, ev.command);
      return false;
    }
    const checker = options.shellReadOnly;
    if (checker === undefined) {
      miss("readOnly", "a shell dispatcher to re-derive it (shellReadOnly)", ev);
      return false;
    }
    if (checker.catalogue !== ev.catalogue) {
      miss("readOnly.catalogue", checker.catalogue, ev.catalogue);
      return false;
    }
    const why = checker.check(ev.command, ev.cwd);
    if (why !== null) {
      miss("readOnly", why, "read-only");
      return false;
    }
    return true;
  }

  function replay(rec: Decision, miss: (f: string, e: unknown, a: unknown) => void, transientLines: number[], line: number): void {
    if ((options.strictEngineVersion ?? true) && rec.engineVersion !== ENGINE_VERSION) miss("engineVersion", ENGINE_VERSION, rec.engineVersion);
    const engine = engineFor(String(rec.ontologyHash));
    if (engine === null) {
      miss("ontologyHash", "an ontology given to the verifier", rec.ontologyHash);
      return;
    }
    // The configuration must be one the guard could have run with, and hash to the recorded hash.
    const c = rec.config as EffectiveConfig;
    if (!isRecord(c)) {
      miss("config", "an effective configuration", c);
      return;
    }
    const config = resolveConfig({ ...c, env: undefined });
    if (!same(config, c)) miss("config", config, c);
    // The hash covers the configuration as recorded, every key of it, canonically (it cannot throw:
    // recordHash has already written the whole record canonically).
    const hash = configHash(c);
    if (hash !== rec.configHash) miss("configHash", hash, rec.configHash);
    if (rec.scope !== config.scope) miss("scope", config.scope, rec.scope);
    if (rec.policy !== config.policy) miss("policy", config.policy, rec.policy);
    const policy = (BUILTIN_POLICIES as Record<string, DecisionPolicy>)[config.policy] ?? options.policies?.[config.policy];
    if (policy === undefined) {
      miss("policy", "a known policy", config.policy);
      return;
    }
    const detector = config.consentDetector === DEFAULT_CONSENT_DETECTOR_ID ? defaultConsentDetector : options.consentDetectors?.[config.consentDetector];
    if (detector === undefined) {
      miss("consentDetector", "a known consent detector", config.consentDetector);
      return;
    }
    // The record's lists are lists: a missing or wrong-shaped one is reported, never replayed as empty.
    for (const f of ["forward", "userMessages", "reads"] as const) {
      if (!Array.isArray(rec[f])) {
        miss(f, "a list", rec[f]);
        return;
      }
    }
    if (rec.targets !== null && !Array.isArray(rec.targets)) {
      miss("targets", "a list of target evaluations or null", rec.targets);
      return;
    }
    // Recorded digests must match the recorded reads (an edited value shows up here).
    const reads = rec.reads;
    const recordedDigest = readsDigest(reads, options.sha256);
    if (recordedDigest !== rec.stateDigest) miss("stateDigest", recordedDigest, rec.stateDigest);
    const targets = rec.targets;
    for (let i = 0; targets !== null && i < targets.length; i++) {
      const t: unknown = targets[i];
      if (!isRecord(t) || !Array.isArray(t.reads)) {
        miss(`targets[${i}]`, "a target evaluation with its reads", t);
        return;
      }
      const d = readsDigest(t.reads as Read[], options.sha256);
      if (d !== t.stateDigest) miss(`targets[${i}].stateDigest`, d, t.stateDigest);
    }
    const model: ModelAnswers = {
      classification: rec.classification ?? null,
      targets: targets === null ? null : targets.map((t): TargetState => ({ label: t.label, assertions: t.assertions })),
      // Failures outside the record (a model component, an unreadable context, a guard fault) are stated
      // by the record and injected again, as the guard injected them.
      error: rec.reason === "internal_error" && typeof rec.detail === "string" && /^(?:model|context|guard): /u.test(rec.detail) ? rec.detail : null,
    };
    const view = new ReplayView(reads);
    const targetViews: ReplayView[] = [];
    const ev = evaluate({
      tables: engine.tables,
      verifier: engine.verifier,
      config,
      policy,
      detector,
      call: rec.call,
      forward: rec.forward,
      state: view as StateView,
      userMessages: rec.userMessages,
      consentContext: rec.consentContext ?? null,
      model,
      sha256: options.sha256,
      unknown: recordedMarks(rec.unknown),
      targetView: (i) => {
        // Asked only for the targets of `model`, which are the record's.
        const v = new ReplayView(targets![i].reads);
        targetViews.push(v);
        return v;
      },
    });
    if (ev.backendFailed) {
      // The replay's own backend failed: rebuild it for the next record and report this one.
      engines.delete(String(rec.ontologyHash));
      miss("backend", "a working backend", ev.detail);
      return;
    }
    const transientFault = rec.reason === "internal_error" && model.error === null && ev.reason !== "internal_error";
    if (transientFault && options.acceptTransient === true) {
      // A backend fault at decision time that the replay does not reproduce: accepted only on request,
      // and then only as a plain fail-closed veto (what the guard records for a fault).
      const route = config.policy === "advisory" ? "AdvisoryPassthrough" : "Vetoed";
      if (rec.route !== route || rec.approved !== (route === "AdvisoryPassthrough") || rec.admissible !== false) miss("route", `${route} (internal_error)`, rec.route);
      transientLines.push(line);
      return;
    }
    // Otherwise a record claiming an internal error the replay does not reproduce is compared like any
    // other: its claim does not follow from its inputs.
    const unrecorded = [view, ...targetViews].flatMap((v) => v.unrecorded);
    if (unrecorded.length > 0) miss("reads", "every value the verdict reads", `missing: ${unrecorded.slice(0, 5).join("; ")}`);
    const derived = { ...ev, stateDigest: ev.digest.get() } as unknown as Record<string, unknown>;
    const recorded = rec as unknown as Record<string, unknown>;
    for (const f of DERIVED_FIELDS) if (!same(derived[f], recorded[f])) miss(f, derived[f], recorded[f]);
    if (rec.tau !== tauFixed(config)) miss("tau", tauFixed(config), rec.tau);
  }
}

// A guard's own state as plain data (docs/guard.md, "Snapshot and resume"): everything its future
// decisions depend on besides the ontology, the configuration and Layer B (which is the caller's). A
// snapshot is bound to the guard that wrote it (its ontology hash, configuration hash, policy and
// scope); reading one back checks every field and copies it, so a snapshot and a guard never share an
// object. A wrong snapshot is a typed error (`bad-snapshot`), never a guard that runs on it.
import type { ExecutedCall, ToolCall } from "../core/types.js";
import { checkCallShape, define } from "./call.js";
import { GuardError, describeError } from "./errors.js";
import { MAX_MARKS, type UnknownMark } from "./unknown.js";
import {
  MAX_HISTORY,
  MAX_QUESTIONS,
  MAX_TRACKED,
  SNAPSHOT_FORMAT,
  type GuardSnapshot,
  type LifecycleState,
  type SnapshotBinding,
  type SnapshotExecution,
  type SnapshotObserved,
  type SnapshotSequenceEntry,
} from "./types.js";

export { MAX_QUESTIONS, SNAPSHOT_FORMAT, type GuardSnapshot, type SnapshotBinding, type SnapshotExecution, type SnapshotObserved, type SnapshotSequenceEntry };

const KEYS = ["format", "ontologyHash", "configHash", "policy", "scope", "seq", "executions", "sequence", "history", "questions", "unknown"];
/** Deeper than any value a guard holds (calls and results are copied at most 64 deep). */
const MAX_JSON_DEPTH = 512;
const HASH = /^[0-9a-f]{64}$/u;

function bad(message: string): never {
  throw new GuardError("bad-snapshot", message, "pass what `guard.snapshot()` returned (through JSON if you like) to a guard with the same ontology, config, policy and scope");
}

function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

/** An object with exactly the `required` keys and some of the `optional` ones. */
function record(v: unknown, path: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  const all = [...required, ...optional];
  const shape = `\`{ ${required.join(", ")}${optional.length > 0 ? `, ${optional.map((k) => `${k}?`).join(", ")}` : ""} }\``;
  if (!isPlain(v)) bad(`the snapshot's \`${path}\` is not an object: ${shape} expected`);
  for (const k of Object.keys(v)) if (!all.includes(k)) bad(`the snapshot's \`${path}\` has an unknown key \`${k}\`: ${shape} expected`);
  for (const k of required) if (!Object.prototype.hasOwnProperty.call(v, k)) bad(`the snapshot's \`${path}\` has no \`${k}\`: ${shape} expected`);
  return v;
}

function list(v: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(v)) bad(`the snapshot's \`${path}\` is not an array`);
  if (v.length > max) bad(`the snapshot's \`${path}\` has ${v.length} entries: at most ${max} expected`);
  return v;
}

function integer(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) bad(`the snapshot's \`${path}\` is \`${String(v)}\`: an integer from ${min} to ${max} expected`);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== "boolean") bad(`the snapshot's \`${path}\` is not a boolean`);
  return v;
}

function text(v: unknown, path: string): string {
  if (typeof v !== "string") bad(`the snapshot's \`${path}\` is not a string`);
  return v;
}

/** A frozen copy of JSON data; anything else (a class instance, a non-finite number, a hole, a value
 * nested past MAX_JSON_DEPTH) is refused. */
function json(v: unknown, path: string, depth = 0): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) bad(`the snapshot's \`${path}\` is not a finite number: JSON data expected`);
    return Object.is(v, -0) ? 0 : v;
  }
  if (depth >= MAX_JSON_DEPTH) bad(`the snapshot's \`${path}\` is nested more than ${MAX_JSON_DEPTH} deep: JSON data expected`);
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) bad(`the snapshot's \`${path}[${i}]\` is a hole: JSON data expected`);
      out.push(json(v[i], `${path}[${i}]`, depth + 1));
    }
    return Object.freeze(out);
  }
  if (!isPlain(v)) bad(`the snapshot's \`${path}\` is ${typeof v === "object" ? "not a plain object" : `a ${typeof v}`}: JSON data expected`);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) define(out, k, json(v[k], `${path}.${k}`, depth + 1));
  return Object.freeze(out);
}

/** A call `{ name, arguments }` (arguments frozen; the call itself not, as a checked call is). */
function call(v: unknown, path: string): ToolCall {
  const r = record(v, path, ["name", "arguments"]);
  const checked = checkCallShape({ name: r.name, arguments: json(r.arguments, `${path}.arguments`) }, `the snapshot's \`${path}\``);
  if (!checked.ok) bad(checked.problem);
  return checked.call;
}

function slots(v: unknown, path: string): Record<string, unknown> {
  if (!isPlain(v)) bad(`the snapshot's \`${path}\` is not an object of slot values`);
  return json(v, path) as Record<string, unknown>;
}

/** A forward-sequence entry, frozen all the way down as the guard keeps it. */
function executed(v: unknown, path: string): ExecutedCall {
  const r = record(v, path, ["name", "arguments"], ["result", "before"]);
  const c = call({ name: r.name, arguments: r.arguments }, path);
  const out: ExecutedCall = { name: c.name, arguments: c.arguments };
  if ("result" in r) out.result = json(r.result, `${path}.result`);
  if ("before" in r) out.before = slots(r.before, `${path}.before`);
  return Object.freeze(out);
}

function mark(v: unknown, path: string): UnknownMark {
  const r = record(v, path, ["entity", "id", "tool", "execution"]);
  const id = r.id === null ? null : text(r.id, `${path}.id`);
  const execution = r.execution === null ? null : text(r.execution, `${path}.execution`);
  return Object.freeze({ entity: text(r.entity, `${path}.entity`), id, tool: text(r.tool, `${path}.tool`), execution });
}

/** A plain copy of the guard's own data, as `JSON.parse(JSON.stringify(v))` gives it (the guard holds
 * only JSON values: undefined members are left out, as JSON does) in one pass: nothing of it is shared
 * with the guard, nothing frozen. */
export function plainCopy(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return typeof v === "number" && !Number.isFinite(v) ? null : v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i] === undefined ? null : plainCopy(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) define(out, k, plainCopy(x));
  }
  return out;
}

/** The guard's own state as a snapshot: its binding, the last seq, the lifecycle's exported state,
 * the open consent questions and the unknown marks, as plain JSON of its own (plainCopy): nothing of
 * it is shared with the guard (or with Layer B). */
export function writeSnapshot(
  binding: Omit<SnapshotBinding, "maxDepth">,
  seq: number,
  lifecycle: LifecycleState,
  questions: GuardSnapshot["questions"],
  unknown: readonly UnknownMark[],
): GuardSnapshot {
  const data: GuardSnapshot = {
    format: SNAPSHOT_FORMAT,
    ontologyHash: binding.ontologyHash,
    configHash: binding.configHash,
    policy: binding.policy,
    scope: binding.scope,
    seq,
    executions: lifecycle.executions,
    sequence: lifecycle.sequence,
    history: lifecycle.history,
    questions: questions as GuardSnapshot["questions"],
    unknown: unknown as UnknownMark[],
  };
  return plainCopy(data) as GuardSnapshot;
}

/** Checks a snapshot against the guard being built and answers an own, frozen copy of it. */
export function readSnapshot(value: unknown, binding: SnapshotBinding): GuardSnapshot {
  try {
    return readChecked(value, binding);
  } catch (e) {
    if (e instanceof GuardError) throw e;
    // A getter that throws, a revoked proxy: not data.
    bad(`the snapshot could not be read: ${describeError(e)}`);
  }
}

function readChecked(value: unknown, binding: SnapshotBinding): GuardSnapshot {
  if (!isPlain(value)) bad("the snapshot is not an object: what `guard.snapshot()` returned expected");
  const format = value.format;
  if (format !== SNAPSHOT_FORMAT) bad(`unknown snapshot format \`${String(format)}\`: \`${SNAPSHOT_FORMAT}\` expected`);
  const v = record(value, "(snapshot)", KEYS);
  for (const [key, what] of [["ontologyHash", "ontology"], ["policy", "policy"], ["scope", "scope"], ["configHash", "configuration"]] as const) {
    if (v[key] !== binding[key]) bad(`the snapshot is of another ${what} (\`${key}\` \`${String(v[key])}\`): this guard's \`${binding[key]}\` expected`);
  }
  const seq = integer(v.seq, "seq", 0, Number.MAX_SAFE_INTEGER);

  let last = 0;
  const executions = list(v.executions, "executions", MAX_TRACKED).map((e, i): SnapshotExecution => {
    const at = `executions[${i}]`;
    const r = record(e, at, ["seq", "call", "admitted", "committed"], ["before"]);
    const s = integer(r.seq, `${at}.seq`, last + 1, seq);
    last = s;
    const x: SnapshotExecution = { seq: s, call: call(r.call, `${at}.call`), admitted: bool(r.admitted, `${at}.admitted`), committed: bool(r.committed, `${at}.committed`) };
    if ("before" in r) x.before = slots(r.before, `${at}.before`);
    return x;
  });

  const sequence = list(v.sequence, "sequence", binding.scope === "session" ? binding.maxDepth : 0).map((e, i): SnapshotSequenceEntry => {
    const r = record(e, `sequence[${i}]`, ["seq", "call"]);
    return { seq: integer(r.seq, `sequence[${i}].seq`, 0, seq), call: executed(r.call, `sequence[${i}].call`) };
  });

  const history = list(v.history, "history", MAX_HISTORY).map((e, i): SnapshotObserved => {
    const at = `history[${i}]`;
    const r = record(e, at, ["call", "admitted"], ["before"]);
    const o: SnapshotObserved = { call: call(r.call, `${at}.call`), admitted: bool(r.admitted, `${at}.admitted`) };
    if ("before" in r) o.before = slots(r.before, `${at}.before`);
    return o;
  });

  const hashes = new Set<string>();
  const questions = list(v.questions, "questions", MAX_QUESTIONS).map((q, i) => {
    const r = record(q, `questions[${i}]`, ["hash", "asked"]);
    const hash = text(r.hash, `questions[${i}].hash`);
    if (!HASH.test(hash)) bad(`the snapshot's \`questions[${i}].hash\` is not 64 lower-case hex digits (a call's SHA-256)`);
    if (hashes.has(hash)) bad(`the snapshot's \`questions[${i}].hash\` repeats an earlier question: one entry per call expected`);
    hashes.add(hash);
    return { hash, asked: integer(r.asked, `questions[${i}].asked`, 0, Number.MAX_SAFE_INTEGER) };
  });

  const marked = new Set<string>();
  let everything = false;
  const unknown = list(v.unknown, "unknown", MAX_MARKS + 1).map((m, i) => {
    const x = mark(m, `unknown[${i}]`);
    if (x.id === null) {
      if (everything) bad(`the snapshot's \`unknown[${i}]\` is a second mark on everything (\`id: null\`): at most one expected`);
      everything = true;
    } else {
      const key = `${x.entity}\u0000${x.id}`;
      if (marked.has(key)) bad(`the snapshot's \`unknown[${i}]\` repeats the mark on \`${x.entity}\` \`${x.id}\`: one per entity expected`);
      marked.add(key);
    }
    return x;
  });
  if (marked.size > MAX_MARKS) bad(`the snapshot's \`unknown\` marks ${marked.size} entities: at most ${MAX_MARKS} expected`);

  return {
    format: SNAPSHOT_FORMAT,
    ontologyHash: binding.ontologyHash,
    configHash: binding.configHash,
    policy: binding.policy,
    scope: binding.scope,
    seq,
    executions,
    sequence,
    history,
    questions,
    unknown,
  };
}

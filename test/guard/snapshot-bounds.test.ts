// readSnapshot (src/guard/snapshot.ts) at its bounds: every list is taken at its bound and refused one
// past it, every integer at the ends of its range, JSON values as deep as the reader goes, and the
// forms of JSON data a store may hand back (prototype-free objects, -0). Each refusal is a
// `bad-snapshot` error whose one-line message names the field.
import { describe, expect, it } from "vitest";
import { GuardError } from "../../src/guard/errors.js";
import { plainCopy, readSnapshot } from "../../src/guard/snapshot.js";
import { MAX_HISTORY, MAX_QUESTIONS, MAX_TRACKED, SNAPSHOT_FORMAT } from "../../src/guard/types.js";
import { MAX_MARKS } from "../../src/guard/unknown.js";

const binding = { ontologyHash: "o", configHash: "c", policy: "veto", scope: "session" as const, maxDepth: 8 };
const call = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };

function snapshot(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: SNAPSHOT_FORMAT, ontologyHash: "o", configHash: "c", policy: "veto", scope: "session", seq: 1000, executions: [], sequence: [], history: [], questions: [], unknown: [], ...over };
}

function refusal(value: unknown): string {
  try {
    readSnapshot(value, binding);
  } catch (e) {
    expect(e).toBeInstanceOf(GuardError);
    expect((e as GuardError).code).toBe("bad-snapshot");
    expect((e as GuardError).message).not.toMatch(/\n/u);
    expect((e as GuardError).help).toBe("pass what `guard.snapshot()` returned (through JSON if you like) to a guard with the same ontology, config, policy and scope");
    return (e as GuardError).message;
  }
  throw new Error("the snapshot was read");
}

const hash = (i: number) => i.toString(16).padStart(64, "0");
const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

describe("the lists at their bounds", () => {
  it("executions: 512 are read, 513 refused", () => {
    const xs = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: i + 1, call, admitted: true, committed: false }));
    expect(readSnapshot(snapshot({ executions: xs(MAX_TRACKED) }), binding).executions).toHaveLength(MAX_TRACKED);
    expect(refusal(snapshot({ executions: xs(MAX_TRACKED + 1) }))).toBe(`the snapshot's \`executions\` has ${MAX_TRACKED + 1} entries: at most ${MAX_TRACKED} expected`);
  });

  it("the session's sequence: maxDepth entries are read, one more refused", () => {
    const seq = (n: number) => Array.from({ length: n }, () => ({ seq: 0, call }));
    expect(readSnapshot(snapshot({ sequence: seq(8) }), binding).sequence).toHaveLength(8);
    expect(refusal(snapshot({ sequence: seq(9) }))).toBe("the snapshot's `sequence` has 9 entries: at most 8 expected");
  });

  it("history: MAX_HISTORY entries are read, one more refused", () => {
    const h = (n: number) => Array.from({ length: n }, () => ({ call, admitted: true }));
    expect(readSnapshot(snapshot({ history: h(MAX_HISTORY) }), binding).history).toHaveLength(MAX_HISTORY);
    expect(refusal(snapshot({ history: h(MAX_HISTORY + 1) }))).toMatch(/^the snapshot's `history` has \d+ entries/u);
  });

  it("questions: MAX_QUESTIONS are read, one more refused", () => {
    const q = (n: number) => Array.from({ length: n }, (_, i) => ({ hash: hash(i), asked: i }));
    expect(readSnapshot(snapshot({ questions: q(MAX_QUESTIONS) }), binding).questions).toHaveLength(MAX_QUESTIONS);
    expect(refusal(snapshot({ questions: q(MAX_QUESTIONS + 1) }))).toMatch(/^the snapshot's `questions` has \d+ entries/u);
  });

  it("unknown: MAX_MARKS entity marks and one on everything are read; one entity more is refused", () => {
    const marks = (n: number) => Array.from({ length: n }, (_, i) => ({ entity: "reservation", id: `R${i}`, tool: "t", execution: null }));
    const everything = { entity: "*", id: null, tool: "t", execution: "x1" };
    expect(readSnapshot(snapshot({ unknown: [...marks(MAX_MARKS), everything] }), binding).unknown).toHaveLength(MAX_MARKS + 1);
    expect(refusal(snapshot({ unknown: marks(MAX_MARKS + 1) }))).toBe(`the snapshot's \`unknown\` marks ${MAX_MARKS + 1} entities: at most ${MAX_MARKS} expected`);
    expect(refusal(snapshot({ unknown: [...marks(MAX_MARKS + 1), everything] }))).toMatch(/^the snapshot's `unknown` has \d+ entries/u);
  });
});

describe("integers at the ends of their ranges", () => {
  it("seq from 0 to the largest safe integer", () => {
    expect(readSnapshot(snapshot({ seq: 0 }), binding).seq).toBe(0);
    expect(readSnapshot(snapshot({ seq: Number.MAX_SAFE_INTEGER }), binding).seq).toBe(Number.MAX_SAFE_INTEGER);
    expect(refusal(snapshot({ seq: 1.5 }))).toBe(`the snapshot's \`seq\` is \`1.5\`: an integer from 0 to ${Number.MAX_SAFE_INTEGER} expected`);
    expect(refusal(snapshot({ seq: 2 ** 53 }))).toMatch(/`seq` is `9007199254740992`/u);
  });

  it("an execution's seq: after the one before it, at most the snapshot's own", () => {
    const x = (seq: number) => ({ seq, call, admitted: false, committed: true });
    expect(readSnapshot(snapshot({ seq: 3, executions: [x(1), x(3)] }), binding).executions.map((e) => e.seq)).toEqual([1, 3]);
    expect(refusal(snapshot({ seq: 3, executions: [x(1), x(4)] }))).toBe("the snapshot's `executions[1].seq` is `4`: an integer from 2 to 3 expected");
    expect(refusal(snapshot({ seq: 3, executions: [x(2), x(2)] }))).toBe("the snapshot's `executions[1].seq` is `2`: an integer from 3 to 3 expected");
    expect(refusal(snapshot({ seq: 3, executions: [x(0)] }))).toBe("the snapshot's `executions[0].seq` is `0`: an integer from 1 to 3 expected");
  });

  it("a sequence entry's seq from 0 (observed without a check) to the snapshot's; a question asked from 0", () => {
    const s = readSnapshot(snapshot({ seq: 5, sequence: [{ seq: 0, call }, { seq: 5, call }], questions: [{ hash: hash(1), asked: 0 }] }), binding);
    expect(s.sequence.map((e) => e.seq)).toEqual([0, 5]);
    expect(s.questions).toEqual([{ hash: hash(1), asked: 0 }]);
    expect(refusal(snapshot({ seq: 5, sequence: [{ seq: 6, call }] }))).toBe("the snapshot's `sequence[0].seq` is `6`: an integer from 0 to 5 expected");
    expect(refusal(snapshot({ questions: [{ hash: hash(1), asked: -1 }] }))).toMatch(/`questions\[0\]\.asked` is `-1`/u);
  });
});

describe("JSON values", () => {
  it("a value nested 511 deep below a `before` is read; 512 deep is refused", () => {
    const at = (d: number) => snapshot({ history: [{ call, admitted: true, before: { x: nested(d) } }] });
    expect(readSnapshot(at(511), binding).history[0].before).toEqual({ x: nested(511) });
    expect(refusal(at(512))).toMatch(/^the snapshot's `history\[0\]\.before\.x(\[0\])+` is nested more than 512 deep: JSON data expected$/u);
  });

  it("a hole in a list is refused, naming it", () => {
    // eslint-disable-next-line no-sparse-arrays
    const args = { flights: [1, , 3] };
    expect(refusal(snapshot({ history: [{ call: { name: "t", arguments: args }, admitted: true }] }))).toBe(
      "the snapshot's `history[0].call.arguments.flights[1]` is a hole: JSON data expected",
    );
  });

  it("objects without a prototype are read as plain data (a store's decoder may make them)", () => {
    const bare = <T extends object>(o: T): T => Object.assign(Object.create(null) as T, o);
    const s = readSnapshot(bare(snapshot({ history: [bare({ call: bare({ name: "t", arguments: bare({ a: bare({ b: 1 }) }) }), admitted: true })] })), binding);
    expect(s.history[0].call).toEqual({ name: "t", arguments: { a: { b: 1 } } });
  });

  it("-0 is read as 0, as JSON text would have it", () => {
    const s = readSnapshot(snapshot({ history: [{ call: { name: "t", arguments: { a: -0, b: [-0] } }, admitted: true, before: { n: -0 } }] }), binding);
    expect(Object.is(s.history[0].call.arguments.a, 0)).toBe(true);
    expect(Object.is((s.history[0].call.arguments.b as number[])[0], 0)).toBe(true);
    expect(Object.is(s.history[0].before!.n, 0)).toBe(true);
  });

  it("a `before` that is a list, or an object of a class, is refused", () => {
    expect(refusal(snapshot({ history: [{ call, admitted: true, before: [1] }] }))).toBe("the snapshot's `history[0].before` is not an object of slot values");
    expect(refusal(snapshot({ history: [{ call, admitted: true, before: new Map() }] }))).toBe("the snapshot's `history[0].before` is not an object of slot values");
    expect(refusal(snapshot({ history: [{ call: { name: "t", arguments: { m: new Map() } }, admitted: true }] }))).toBe(
      "the snapshot's `history[0].call.arguments.m` is not a plain object: JSON data expected",
    );
    expect(refusal(snapshot({ history: [{ call: { name: "t", arguments: { f: () => 1 } }, admitted: true }] }))).toBe(
      "the snapshot's `history[0].call.arguments.f` is a function: JSON data expected",
    );
  });
});

describe("marks", () => {
  it("an id and an execution are strings or null", () => {
    const m = (over: Record<string, unknown>) => snapshot({ unknown: [{ entity: "reservation", id: "R1", tool: "t", execution: null, ...over }] });
    expect(readSnapshot(m({ execution: "x3" }), binding).unknown).toEqual([{ entity: "reservation", id: "R1", tool: "t", execution: "x3" }]);
    expect(refusal(m({ id: 5 }))).toBe("the snapshot's `unknown[0].id` is not a string");
    expect(refusal(m({ execution: 3 }))).toBe("the snapshot's `unknown[0].execution` is not a string");
    expect(refusal(m({ entity: null }))).toBe("the snapshot's `unknown[0].entity` is not a string");
    expect(refusal(m({ tool: 1 }))).toBe("the snapshot's `unknown[0].tool` is not a string");
  });

  it("one mark per entity: the same entity and id twice is refused, the same id of two entities is not", () => {
    const mk = (entity: string) => ({ entity, id: "R1", tool: "t", execution: null });
    expect(readSnapshot(snapshot({ unknown: [mk("reservation"), mk("user")] }), binding).unknown).toHaveLength(2);
    expect(refusal(snapshot({ unknown: [mk("reservation"), mk("reservation")] }))).toBe("the snapshot's `unknown[1]` repeats the mark on `reservation` `R1`: one per entity expected");
  });
});

describe("the shape of an entry", () => {
  it("names the keys it expects, optional ones marked", () => {
    expect(refusal(snapshot({ executions: [{ seq: 1, call, admitted: true, committed: false, extra: 1 }] }))).toBe(
      "the snapshot's `executions[0]` has an unknown key `extra`: `{ seq, call, admitted, committed, before? }` expected",
    );
    expect(refusal(snapshot({ questions: [{ hash: hash(1) }] }))).toBe("the snapshot's `questions[0]` has no `asked`: `{ hash, asked }` expected");
    expect(refusal(snapshot({ sequence: [5] }))).toBe("the snapshot's `sequence[0]` is not an object: `{ seq, call }` expected");
    expect(refusal(snapshot({ sequence: [{ seq: 0, call: { ...call, result: 1, extra: 2 } }] }))).toBe(
      "the snapshot's `sequence[0].call` has an unknown key `extra`: `{ name, arguments, result?, before? }` expected",
    );
  });
});

describe("each refusal names the field", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown top-level key", { layerB: {} }, "the snapshot's `(snapshot)` has an unknown key `layerB`: `{ format, ontologyHash, configHash, policy, scope, seq, executions, sequence, history, questions, unknown }` expected"],
    ["an execution's call without a name", { executions: [{ seq: 1, call: { name: "", arguments: {} }, admitted: true, committed: false }] }, "the snapshot's `executions[0].call` has no tool name (`name` is not a non-empty string)"],
    ["an execution's admitted", { executions: [{ seq: 1, call, admitted: 1, committed: false }] }, "the snapshot's `executions[0].admitted` is not a boolean"],
    ["an execution's committed", { executions: [{ seq: 1, call, admitted: true, committed: "no" }] }, "the snapshot's `executions[0].committed` is not a boolean"],
    ["a history entry's admitted", { history: [{ call, admitted: null }] }, "the snapshot's `history[0].admitted` is not a boolean"],
    ["a history entry's call", { history: [{ call: { name: "t", arguments: [] }, admitted: true }] }, "the snapshot's `history[0].call` (`t`): `arguments` is not a plain object"],
    ["a sequence entry's result", { sequence: [{ seq: 0, call: { ...call, result: Number.NaN } }] }, "the snapshot's `sequence[0].call.result` is not a finite number: JSON data expected"],
    ["a sequence entry's before", { sequence: [{ seq: 0, call: { ...call, before: { s: Infinity } } }] }, "the snapshot's `sequence[0].call.before.s` is not a finite number: JSON data expected"],
    ["a question's hash that is not a string", { questions: [{ hash: 7, asked: 0 }] }, "the snapshot's `questions[0].hash` is not a string"],
  ])("%s", (_what, over, message) => {
    expect(refusal(snapshot(over))).toBe(message);
  });

  it("a question's hash is exactly 64 lower-case hex digits: nothing before or after them", () => {
    const q = (h: string) => snapshot({ questions: [{ hash: h, asked: 0 }] });
    expect(readSnapshot(q(hash(9)), binding).questions[0].hash).toBe(hash(9));
    for (const h of [`x${hash(9)}`, `${hash(9)}x`, `${hash(9)}0`, hash(9).slice(1), hash(9).toUpperCase().replace(/0/gu, "A")]) {
      expect(refusal(q(h))).toBe("the snapshot's `questions[0].hash` is not 64 lower-case hex digits (a call's SHA-256)");
    }
  });
});

describe("plainCopy: the guard's data as JSON text would give it back", () => {
  it("leaves out undefined members, writes undefined list entries and non-finite numbers as null", () => {
    const v = { a: undefined, b: [undefined, Number.NaN, -Infinity, 1], c: { d: undefined, e: "x" }, n: Infinity };
    const copy = plainCopy(v);
    expect(copy).toStrictEqual({ b: [null, null, null, 1], c: { e: "x" }, n: null });
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(v)));
  });
});

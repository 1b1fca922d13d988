// writeSnapshot (src/guard/snapshot.ts): the guard's state as a snapshot of plain JSON data of its own,
// which readSnapshot takes back for the same binding.
import { describe, expect, it } from "vitest";
import { readSnapshot, writeSnapshot } from "../../src/guard/snapshot.js";
import { SNAPSHOT_FORMAT, type LifecycleState } from "../../src/guard/types.js";

const binding = { ontologyHash: "o", configHash: "c", policy: "veto", scope: "session" as const };
const call = Object.freeze({ name: "cancel_reservation", arguments: Object.freeze({ reservation_id: "R1" }) });

describe("writeSnapshot", () => {
  it("writes every field in the format's order, as unfrozen plain copies", () => {
    const before = Object.freeze({ status: "confirmed" });
    const state: LifecycleState = {
      executions: [{ seq: 2, call, admitted: true, committed: false, before }],
      sequence: [{ seq: 1, call: Object.freeze({ ...call, result: "ok" }) }],
      history: [{ call, admitted: true }],
    };
    const marks = [Object.freeze({ entity: "reservation", id: "R2", tool: "t", execution: null })];
    const s = writeSnapshot(binding, 2, state, [{ hash: "a".repeat(64), asked: 1 }], marks);
    expect(Object.keys(s)).toEqual(["format", "ontologyHash", "configHash", "policy", "scope", "seq", "executions", "sequence", "history", "questions", "unknown"]);
    expect(s).toMatchObject({ format: SNAPSHOT_FORMAT, ...binding, seq: 2 });
    expect(s.executions[0]).toEqual({ seq: 2, call, admitted: true, committed: false, before });
    expect(s.executions[0].call).not.toBe(call);
    expect(Object.isFrozen(s.executions[0].call.arguments)).toBe(false);
    expect(s.unknown[0]).not.toBe(marks[0]);
    expect(s.sequence[0].call).toEqual({ ...call, result: "ok" });
    const back = readSnapshot(JSON.parse(JSON.stringify(s)), { ...binding, maxDepth: 8 });
    expect(back).toEqual(s);
  });

  it("an empty guard's snapshot", () => {
    expect(writeSnapshot(binding, 0, { executions: [], sequence: [], history: [] }, [], [])).toEqual({
      format: SNAPSHOT_FORMAT, ...binding, seq: 0, executions: [], sequence: [], history: [], questions: [], unknown: [],
    });
  });
});

// What the shell and SQL dispatchers read off the core's Decision (src/guard/dispatched.ts): π's steps as
// they journal and show them, the worst tier, and the core's reason in the dispatchers' words. Through
// the dispatchers: test/shell/guard-verdicts.test.ts, test/sql/guard-verdicts.test.ts.
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/guard/decision.js";
import { coreReason, inverseOf, tierOf, tierRank } from "../../src/guard/dispatched.js";

const step = (tier: string, over: Record<string, unknown> = {}) => ({
  call: 0, forwardTool: "write_file", tool: "restore_file", arguments: { path: "a.txt", content: "x" }, tier, annotation: "restores the old bytes",
  line: 3, col: 1, phi: 0, loss: 0, lossClass: null, sink: null, ...over,
});
const decision = (steps: ReturnType<typeof step>[] | null, reason = "ok"): Decision => ({ reason, verdict: steps === null ? null : { steps } }) as unknown as Decision;

describe("what a dispatcher reads off a decision", () => {
  it("tiers rank by their number; T0 (read-only) lowest", () => {
    expect(["T0", "T1", "T2", "T3", "T4", "T5"].map(tierRank)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("the worst tier of π's steps, whichever step it is on; none without steps or a verdict", () => {
    expect(tierOf(decision([step("T1")]))).toBe("T1");
    expect(tierOf(decision([step("T2"), step("T1")]))).toBe("T2");
    expect(tierOf(decision([step("T1"), step("T5"), step("T3")]))).toBe("T5");
    expect(tierOf(decision([step("T3"), step("T3")]))).toBe("T3");
    expect(tierOf(decision([]))).toBeNull();
    expect(tierOf(decision(null))).toBeNull();
  });

  it("the inverse steps, in π's order, with what they undo; a fail-closed step has no tool (\"\") and no arguments ({})", () => {
    expect(inverseOf(decision([step("T2"), step("T5", { tool: null, arguments: null, forwardTool: "rm", annotation: "gone" })]))).toEqual([
      { tool: "restore_file", arguments: { path: "a.txt", content: "x" }, forwardTool: "write_file", tier: "T2", annotation: "restores the old bytes" },
      { tool: "", arguments: {}, forwardTool: "rm", tier: "T5", annotation: "gone" },
    ]);
    expect(inverseOf(decision(null))).toEqual([]);
    expect(inverseOf(decision([]))).toEqual([]);
  });

  it("the core's reason in the dispatchers' words; any other reason as it is", () => {
    expect(coreReason(decision(null, "irreversibly_consumes"))).toBe("irreversible");
    expect(coreReason(decision(null, "external_side_effect"))).toBe("external_effect");
    expect(coreReason(decision(null, "missing_entity"))).toBe("unknown_state");
    for (const r of ["ok", "bound_violated", "unknown_tool", "internal_error", "unknown_state"]) expect(coreReason(decision(null, r))).toBe(r);
  });
});

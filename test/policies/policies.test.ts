import { describe, expect, it } from "vitest";
import {
  advisoryPolicy,
  consentQuestion,
  defaultConsentDetector,
  escalatePolicy,
  formatFixed,
  refusalText,
  resolvePolicy,
  vetoPolicy,
  type PolicyInput,
} from "../../src/policies/index.js";
import { airline } from "../guard/helpers.js";

function input(over: Partial<PolicyInput>): PolicyInput {
  return {
    call: { name: "send_certificate", arguments: {} },
    admissible: false,
    reason: "no_candidate",
    verdict: null,
    tau: 800000,
    userMessages: [],
    consent: defaultConsentDetector,
    tables: airline.tables,
    ...over,
  };
}

describe("policies", () => {
  it("route every case as specified", () => {
    const ok = input({ admissible: true, reason: "ok" });
    expect(vetoPolicy.decide(ok).route).toBe("Approved");
    expect(escalatePolicy.decide(ok).route).toBe("Approved");
    expect(advisoryPolicy.decide(ok).route).toBe("Approved");
    const no = input({});
    expect(vetoPolicy.decide(no)).toMatchObject({ route: "Vetoed", consent: null });
    expect(escalatePolicy.decide(no)).toMatchObject({ route: "ConsentEscalated", consent: { consent: false } });
    expect(escalatePolicy.decide({ ...no, userMessages: ["yes"] })).toMatchObject({ route: "ConsentApproved", message: null });
    expect(advisoryPolicy.decide(no)).toEqual({ route: "AdvisoryPassthrough", message: null, consent: null });
    for (const reason of ["malformed_call", "unknown_tool", "missing_entity", "internal_error", "unknown_state"] as const) {
      const out = escalatePolicy.decide({ ...no, reason, userMessages: ["yes"] });
      expect(out.route).toBe("Vetoed");
      expect(out.message).toContain(`reason \`${reason}\``);
    }
  });

  it("write deterministic texts", () => {
    expect(formatFixed(800000)).toBe("0.8");
    expect(formatFixed(1000000)).toBe("1");
    expect(formatFixed(0)).toBe("0");
    expect(formatFixed(855000)).toBe("0.855");
    expect(formatFixed(1)).toBe("0.000001");
    expect(formatFixed(10)).toBe("0.00001");
    expect(formatFixed(100000)).toBe("0.1");
    expect(formatFixed(1234567)).toBe("1.234567");
    expect(formatFixed(-2500000)).toBe("-2.5");
    expect(formatFixed(-1)).toBe("-0.000001");
    expect(formatFixed(12000050)).toBe("12.00005");
    // The bottleneck as the refusal names it: annotation (with its line), tool, either alone, neither.
    const at = (b: { annotation: string | null; line: number | null; tool: string | null }) =>
      refusalText(input({ verdict: { complete: true, phi: 500000, bottleneck: { call: 0, reason: "below_threshold", col: null, ...b } } as never }));
    expect(at({ annotation: "e1", line: 7, tool: "t" })).toBe("I can't run `send_certificate`: it cannot be safely undone (reason `no_candidate`, φ = 0.5 < τ = 0.8; bottleneck annotation `e1` at line 7 on `t`).");
    expect(at({ annotation: "e1", line: null, tool: null })).toBe("I can't run `send_certificate`: it cannot be safely undone (reason `no_candidate`, φ = 0.5 < τ = 0.8; bottleneck annotation `e1`).");
    expect(at({ annotation: null, line: null, tool: "t" })).toBe("I can't run `send_certificate`: it cannot be safely undone (reason `no_candidate`, φ = 0.5 < τ = 0.8; bottleneck on `t`).");
    expect(at({ annotation: null, line: null, tool: null })).toBe("I can't run `send_certificate`: it cannot be safely undone (reason `no_candidate`, φ = 0.5 < τ = 0.8).");
    expect(refusalText(input({ reason: "unknown_tool" }))).toBe("I can't run `send_certificate`: the guard has no reversibility annotation for this tool (reason `unknown_tool`).");
    expect(refusalText(input({}))).toBe("I can't run `send_certificate`: it cannot be safely undone (reason `no_candidate`).");
    expect(consentQuestion(input({ reason: "depth_exceeded" }))).toBe("Running `send_certificate`: working out how to undo it took more steps than the guard allows, so it is treated as not undoable. Do you confirm? (yes/no)");
    expect(consentQuestion(input({}))).toBe(consentQuestion(input({})));
  });

  it("resolve by name, refuse unknown names", () => {
    expect(resolvePolicy(undefined)).toBe(vetoPolicy);
    expect(resolvePolicy("escalate")).toBe(escalatePolicy);
    expect(resolvePolicy("toString" as never)).toBeNull();
    expect(resolvePolicy({ name: "x" } as never)).toBeNull();
  });
});

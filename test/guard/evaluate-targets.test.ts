// The choice among the intent parser's candidate targets: each is searched; the first admissible one
// decides (its verdict is the decision's), and with none admissible the one with the best score (the
// first on ties). A target whose search failed is never outvoted, wherever it stands.
import { describe, expect, it } from "vitest";
import type { Verifier } from "../../src/core/verifier.js";
import { NO_MODEL } from "../../src/guard/evaluate.js";
import type { TargetState } from "../../src/policies/classifier.js";
import { configAt, run, verifier } from "./evaluate-fixture.js";

const target = (label: string, status: string, note: string): TargetState => ({
  label,
  assertions: [{ entity: "order", id: "O1", slot: "status", value: status }, { entity: "order", id: "O1", slot: "note", value: note }],
});
// Under τ 0.8 both are admissible: held scores 0.9, open 0.99; their inverses restore different notes.
const held = target("held", "held", "h");
const open = target("open", "open", "o");
const withTargets = (targets: TargetState[], tau = 0.8, v: Verifier = verifier) => run({ config: configAt(tau), verifier: v, model: { ...NO_MODEL, targets } });
const noteOf = (e: ReturnType<typeof run>) => (e.verdict?.steps[0]?.arguments as { note?: string } | null)?.note;

describe("several admissible targets", () => {
  it("the first admissible one decides, even when a later one scores higher", () => {
    const e = withTargets([held, open]);
    expect(e).toMatchObject({ route: "Approved", admissible: true, reason: "ok" });
    expect(e.targets?.map((t) => [t.label, t.admissible, t.verdict?.phi])).toEqual([["held", true, 900000], ["open", true, 990000]]);
    expect(e.verdict).toEqual(e.targets?.[0].verdict);
    expect(noteOf(e)).toBe("h");
  });

  it("in the other order, the other one", () => {
    const e = withTargets([open, held]);
    expect(e.verdict).toEqual(e.targets?.[0].verdict);
    expect(noteOf(e)).toBe("o");
  });

  it("an admissible target after inadmissible ones decides", () => {
    const cancelled = target("cancelled", "cancelled", "c");
    const e = withTargets([cancelled, held, open]);
    expect(e.targets?.map((t) => t.admissible)).toEqual([false, true, true]);
    expect(e.verdict).toEqual(e.targets?.[1].verdict);
  });
});

describe("no admissible target", () => {
  it("the best score decides, the first on ties", () => {
    // τ 0.95: held (0.9) is below it, open (0.99) is not; two held targets tie.
    const held2 = target("held2", "held", "h2");
    const tie = withTargets([held, held2], 0.95);
    expect(tie).toMatchObject({ route: "Vetoed", admissible: false, reason: "below_threshold" });
    expect(tie.verdict).toEqual(tie.targets?.[0].verdict);
    expect(noteOf(tie)).toBe("h");
    expect(noteOf(withTargets([held2, held], 0.95))).toBe("h2");
  });
});

describe("a target whose search failed", () => {
  it("is never outvoted by an admissible one, first or last", () => {
    for (const failAt of [0, 1]) {
      let n = 0;
      const flaky: Verifier = { ...verifier, verdict: (...a) => (n++ === failAt ? (() => { throw new Error("trap"); })() : verifier.verdict(...a)) };
      const e = withTargets([open, held], 0.8, flaky);
      const label = failAt === 0 ? "open" : "held";
      expect(e).toMatchObject({ route: "Vetoed", admissible: false, reason: "internal_error", verdict: null, detail: `target \`${label}\`: internal_error`, backendFailed: true });
      expect(e.targets?.map((t) => t.reason)).toEqual(failAt === 0 ? ["internal_error", "ok"] : ["ok", "internal_error"]);
    }
  });
});

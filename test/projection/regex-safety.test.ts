// Properties of the regex judge (src/projection/regex-safety.ts): it answers every pattern the engine
// compiles (never throws), refuses every repeated group that holds a quantifier or an alternation, and
// an accepted pattern run on adversarial text up to its bound stays far inside the step budget (CPU
// time, not wall time: test/cpu-time.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgeRegex } from "../../src/projection/regex-safety.js";
import { cpuTime } from "../cpu-time.js";

const QUANTS = ["*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?"];

/** Patterns over `a`, `b`, `.`, classes and escapes, with groups, alternations and quantifiers. */
const patternArb: fc.Arbitrary<string> = fc.letrec<{ p: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom("a", "b", ".", "[ab]", "[^a]", "\\d", "\\w", "\\s", "x") },
    { weight: 2, arbitrary: tie("p").map((p) => `(${p})`) },
    { weight: 1, arbitrary: tie("p").map((p) => `(?:${p})`) },
  ),
  p: fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(tie("atom"), fc.option(fc.constantFrom(...QUANTS), { nil: "" })).map((parts) => parts.map(([a, q]) => a + q).join("")), { minLength: 1, maxLength: 4 }).map((xs) => xs.join("")) },
    { weight: 1, arbitrary: fc.tuple(tie("p"), tie("p")).map(([a, b]) => `${a}|${b}`) },
  ),
})).p.map((p) => (p.length > 80 ? p.slice(0, 80) : p)).filter((p) => {
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
});

/** Text an accepted pattern backtracks on most: long runs of what its atoms match, ending in a miss. */
function adversarial(n: number): string[] {
  return ["a".repeat(n - 1) + "!", "ab".repeat(n >> 1).slice(0, n - 1) + "!", "1".repeat(n - 1) + "!"];
}

describe("the regex judge", () => {
  it("answers any string the engine compiles as a pattern, and never throws", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.constantFrom("", "i", "m", "s", "u"), (p, flags) => {
        try {
          new RegExp(p, flags);
        } catch {
          return;
        }
        const v = judgeRegex(p, flags);
        expect(typeof v.ok).toBe("boolean");
        if (v.ok) expect(v.maxInput).toBeGreaterThan(0);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it("refuses a group holding a quantifier or `|` when the group repeats", () => {
    fc.assert(
      fc.property(patternArb, fc.constantFrom("*", "+", "{2,}", "{3}"), (inner, q) => {
        if (!/[*+?}|]/u.test(inner)) return;
        const v = judgeRegex(`(${inner})${q}`, "");
        expect(v.ok, `(${inner})${q}`).toBe(false);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("an accepted pattern runs on adversarial text at its bound in bounded CPU time", () => {
    fc.assert(
      fc.property(patternArb, (p) => {
        const v = judgeRegex(p, "");
        if (!v.ok) return;
        const n = Math.min(v.maxInput, 5000);
        const re = new RegExp(p);
        const { ms } = cpuTime(() => {
          for (const s of adversarial(n)) re.exec(s);
        });
        expect(ms, `${p} on ${n} characters`).toBeLessThan(1500);
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});

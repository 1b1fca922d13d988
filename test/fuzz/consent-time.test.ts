// The consent detector reads user text, which an attacker controls: 1 MB of it must be answered in
// linear time. A linear pass over 1 MB takes well under a second here; a quadratic one (regex
// backtracking over a run of the detector's own tokens) needs on the order of 10^11 steps, minutes, so
// an absolute bound of a few seconds separates the two without a flaky small-vs-large ratio.
import { describe, expect, it } from "vitest";
import { defaultConsentDetector } from "../../src/policies/consent.js";

const MB = 1 << 20;

/** 1 MB (in UTF-16 code units, roughly) of a repeated unit, with an optional tail. */
function fill(unit: string, size: number, tail = ""): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + tail;
}

const SHAPES: [string, (size: number) => string][] = [
  ["one letter", (n) => fill("a", n)],
  ["spaces then yes", (n) => fill(" ", n, "yes")],
  ["yes repeated", (n) => fill("yes ", n)],
  ["no repeated", (n) => fill("no ", n)],
  ["apostrophes", (n) => fill("'", n, "n't")],
  ["n't repeated", (n) => fill("n't", n)],
  ["ok comma", (n) => fill("ok, ", n, "?")],
  ["one sentence per char", (n) => fill(".", n)],
  ["newlines", (n) => fill("\n", n)],
  ["hangul", (n) => fill("네", n)],
  ["hangul with spaces", (n) => fill("네 ", n, "요")],
  ["korean negation stem", (n) => fill("안", n)],
  ["mixed scripts", (n) => fill("yes네да是😀 ", n)],
  ["control characters", (n) => fill("\u0000\u0007\u001b", n)],
  ["lone surrogates", (n) => fill("\ud800", n)],
  ["combining marks", (n) => fill("e\u0301", n)],
  ["fullwidth", (n) => fill("ＹＥＳ", n)],
  ["hmm", (n) => fill("hm", n)],
  ["question run", (n) => fill("yes?", n)],
];

function timeOf(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const r = defaultConsentDetector.detect([text]);
    best = Math.min(best, performance.now() - t0);
    expect(typeof r.consent).toBe("boolean");
  }
  return best;
}

describe("consent detector on 1 MB of hostile text", () => {
  for (const [what, make] of SHAPES) {
    it(`${what}: a boolean in linear time`, () => {
      // 3 s for 1 MB leaves room for a loaded CI machine (NFKC normalisation alone is ~0.1-0.5 s).
      expect(timeOf(make(MB))).toBeLessThan(3000);
    });
  }

  it("three 1 MB messages at once (the detector's whole window)", () => {
    const t0 = performance.now();
    const r = defaultConsentDetector.detect([fill("yes ", MB), fill("네 ", MB), fill("no ", MB)]);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.consent).toBe(false);
  });
});

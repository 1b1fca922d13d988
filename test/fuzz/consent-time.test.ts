// The consent detector reads user text, which an attacker controls: 1 MB of it must be answered in
// linear time. A linear pass over 1 MB takes well under a second here; a quadratic one (regex
// backtracking over a run of the detector's own tokens) needs on the order of 10^11 steps, minutes, so
// an absolute bound of a few seconds separates the two without a flaky small-vs-large ratio.
import { describe, expect, it } from "vitest";
import { defaultConsentDetector } from "../../src/policies/consent.js";
import { scopedConsentDetector } from "../../src/policies/consent-scoped.js";
import { cpuTime } from "../cpu-time.js";

const MB = 1 << 20;

/** 1 MB (in UTF-16 code units, roughly) of a repeated unit, with an optional tail. */
function fill(unit: string, size: number, tail = ""): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + tail;
}

/** Each shape, and the consent it holds: the word that consents, or null for no consent. A bare "yes"
 * after a megabyte of padding still consents; a question, a negation or noise never does. */
const SHAPES: [string, (size: number) => string, string | null][] = [
  ["one letter", (n) => fill("a", n), null],
  ["spaces then yes", (n) => fill(" ", n, "yes"), "yes"],
  ["yes repeated", (n) => fill("yes ", n), "yes"],
  ["no repeated", (n) => fill("no ", n), null],
  ["apostrophes", (n) => fill("'", n, "n't"), null],
  ["n't repeated", (n) => fill("n't", n), null],
  ["ok comma", (n) => fill("ok, ", n, "?"), null],
  ["one sentence per char", (n) => fill(".", n), null],
  ["newlines", (n) => fill("\n", n), null],
  ["hangul", (n) => fill("네", n), null],
  ["hangul with spaces", (n) => fill("네 ", n, "요"), "네"],
  ["korean negation stem", (n) => fill("안", n), null],
  ["mixed scripts", (n) => fill("yes네да是😀 ", n), null],
  ["control characters", (n) => fill("\u0000\u0007\u001b", n), null],
  ["lone surrogates", (n) => fill("\ud800", n), null],
  ["combining marks", (n) => fill("e\u0301", n), null],
  ["fullwidth", (n) => fill("ＹＥＳ", n), null],
  ["hmm", (n) => fill("hm", n), null],
  ["question run", (n) => fill("yes?", n), null],
];

function timeOf(text: string, consent: string | null): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const { value: r, ms } = cpuTime(() => defaultConsentDetector.detect([text]));
    best = Math.min(best, ms);
    expect(r.consent).toBe(consent !== null);
    if (consent !== null) expect(r.evidence).toBe(consent);
  }
  return best;
}

describe("consent detector on 1 MB of hostile text", () => {
  for (const [what, make, consent] of SHAPES) {
    it(`${what}: ${consent === null ? "no consent" : `consent by \`${consent}\``}, in linear time`, () => {
      // 3 s of CPU for 1 MB leaves room for a slow CI machine (NFKC normalisation alone is ~0.1-0.5 s).
      expect(timeOf(make(MB), consent)).toBeLessThan(3000);
    });
  }

  it("three 1 MB messages at once (the detector's whole window)", () => {
    const { value: r, ms } = cpuTime(() => defaultConsentDetector.detect([fill("yes ", MB), fill("네 ", MB), fill("no ", MB)]));
    expect(ms).toBeLessThan(5000);
    expect(r.consent).toBe(false);
  });
});

describe("the scoped detector (τ²-bench replay) on 1 MB of hostile text, with a context", () => {
  // Its own shapes: quotes it neutralizes (a quadratic quote match took 3.8 s here before it was bounded),
  // sentence runs it scopes, negations it weighs against the question's names.
  const context = { question: fill("swap other any other ", 4096), names: ["cancel", "cancellation", "update"] };
  const shapes: [string, string, boolean][] = [
    ["curly quotes never closed", fill("“a b ", MB), false],
    ["straight quotes", fill('"a b ', MB), false],
    ["answer sentences", fill("Yes, go ahead. ", MB), true],
    ["yes, then a megabyte of words", "Yes. " + fill("word ", MB), true],
    ["declined alternatives", fill("I don't want to change my plan. ", MB), false],
    ["em dashes", fill("\u2014", MB), false],
    ["topic shifts", "Yes, go ahead. " + fill("Also, now, ", MB), true],
    ["requests", fill("please cancel ", MB), true],
    // @5's concessions, acknowledgements, answers to an aside and met conditions (one question, read once).
    ["concessions", "Yes, go ahead. " + fill("even if it is, ", MB), true],
    ["if-clauses then anyway", fill("if so,  ", MB, " go ahead anyway."), true], // 8 characters: whole units
    ["acknowledgements", "Yes, go ahead. " + fill("I understand if I won't get a refund. ", MB), true],
    ["asides", "Yes, go ahead. Also, " + fill("did it ship? If not, fine. ", MB), true],
    ["met conditions", "Yes, go ahead " + fill("as long as I get the full refund, ", MB), false],
    ["firsts", "Yes, please update it " + fill("first ", MB), false],
    ["kept things", "Yes, go ahead. " + fill("keep the pet bed. ", MB), false],
  ];
  const offered = { question: fill("We can provide a full refund. Shall I update it first, except for the pet bed? ", MB), names: ["update"] };
  for (const [what, text, consent] of shapes) {
    it(`${what}: ${consent ? "consent" : "no consent"}, in linear time`, () => {
      const { value: r, ms } = cpuTime(() => scopedConsentDetector.detect([text], /^(?:met conditions|firsts|kept things)$/u.test(what) ? offered : context));
      expect(r.consent).toBe(consent);
      expect(ms).toBeLessThan(3000);
    });
  }
});

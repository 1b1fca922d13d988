// Consent text through the default detector (src/policies/consent.ts): any user text (unicode of every
// plane, mixed scripts, control characters, lone surrogates, long runs of the detector's own tokens)
// gets a boolean answer, quickly. The detector's evidence must point inside the messages it was given.
import fc from "fast-check";
import { defaultConsentDetector } from "../../../src/policies/consent.js";
import { caseBudgetMs, fail, withinTime, type FuzzTarget } from "../support.js";

const PIECES = [
  "yes", "Yes!", "ok", "okay", "sure", "go ahead", "proceed", "please", "confirm", "no", "not", "don't", "n't", "never mind",
  "maybe", "but", "if", "?", ".", "!", "\n", " ", "  ", "\t", "'", "’", "…", "yes?", "yes, but",
  "네", "예", "예약", "진행해 주세요", "안 돼", "취소", "잠깐", "그렇게 해 주세요", "아니요", "좋아요", "할까요?",
  "да", "نعم", "はい", "是的", "sí", "oui", "ja", "כן", "हाँ", "ναι",
  "\u0000", "\u0007", "\u001b[31m", "\u200b", "\u200e", "\u202e", "\ufeff", "\ufffd", "\ud800", "\udc00", "\ud83d", "😀", "👍🏽", "🇰🇷",
  "e\u0301", "ﬁ", "Ⅻ", "ＹＥＳ", "ｏｋ", "𝐲𝐞𝐬", "Ｎｏ",
];

const soup: fc.Arbitrary<string> = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((p) => p.join(""));
const units: fc.Arbitrary<string> = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 300 });
const graphemes: fc.Arbitrary<string> = fc.string({ unit: "grapheme", maxLength: 200 });
/** A piece repeated many times: the inputs a backtracking regex would choke on. */
const runs: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(...PIECES, "a", "ye", "n", "'", "no ", "yes ", "ok, "), fc.integer({ min: 100, max: 20_000 }), fc.constantFrom("", "!", "?", "x", "\ud800"))
  .map(([p, n, end]) => p.repeat(n) + end);

const message: fc.Arbitrary<string> = fc.oneof({ arbitrary: soup, weight: 4 }, { arbitrary: units, weight: 2 }, { arbitrary: graphemes, weight: 2 }, { arbitrary: runs, weight: 1 });

export function checkConsent(messages: string[]): void {
  const r = withinTime(caseBudgetMs(1500), "consent detection", () => defaultConsentDetector.detect(messages));
  if (r === null || typeof r !== "object" || typeof r.consent !== "boolean") fail("the detector gave no boolean");
  if (!Number.isInteger(r.message) || r.message < -1 || r.message >= messages.length) fail(`evidence index ${r.message} outside the messages`);
  if (r.consent && r.message < 0) fail("consent without a deciding message");
}

export const consentTarget: FuzzTarget = {
  name: "consent",
  claim: "any user text (unicode, mixed scripts, control characters, lone surrogates, long runs) gets a boolean from the default detector within the time bound",
  ciRuns: 2000,
  property() {
    return fc.property(fc.array(message, { maxLength: 5 }), (messages) => checkConsent(messages));
  },
};

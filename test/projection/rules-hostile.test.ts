// Issue 21 item 16: a rules document is the author's, but the text its expressions run on is the
// model's. `safeParseProjectionRules` returns issues (never throws) on rules nested thousands of levels
// deep, and a regular expression cannot run for minutes on model-controlled text: patterns that
// backtrack exponentially are refused when the rules are parsed, and every other pattern only runs on
// text short enough for its worst case to fit a fixed step budget (src/projection/regex-safety.ts).
import { describe, expect, it } from "vitest";
import { LayerB, parseProjectionRules, projectDocument, ProjectionError, safeParseProjectionRules } from "../../src/projection/index.js";
import { MAX_RULES_DEPTH } from "../../src/projection/rules.js";
import { judgeRegex, REGEX_MAX_INPUT, REGEX_STEP_BUDGET } from "../../src/projection/regex-safety.js";
import { cpuTime } from "../cpu-time.js";

const rulesWith = (slot: unknown) => ({
  format: "polar-projection/1",
  domain: "d",
  entities: { t: { fields: "*", slots: { v: slot } } },
  documents: { db: [{ entity: "t", from: "items", id: "$key" }] },
});

function nest(depth: number, leaf: unknown, wrap: (e: unknown) => unknown): unknown {
  let e = leaf;
  for (let i = 0; i < depth; i++) e = wrap(e);
  return e;
}

function evalSlot(slot: unknown, rec: unknown): unknown {
  return projectDocument(parseProjectionRules(rulesWith(slot)), { items: { x: rec } }, new LayerB()).slot("t", "x", "v");
}

describe("depth", () => {
  it.each([
    ["not", (e: unknown) => ({ not: e })],
    ["and", (e: unknown) => ({ and: [e, { const: true }] })],
    ["if", (e: unknown) => ({ if: e, then: { const: 1 } })],
    ["map", (e: unknown) => ({ map: "xs", to: e })],
  ])("a 5,000-deep `%s` expression gives a too-deep issue, not a RangeError", (_op, wrap) => {
    const rules = rulesWith(nest(5000, "$.x", wrap));
    let r: ReturnType<typeof safeParseProjectionRules> | undefined;
    expect(() => (r = safeParseProjectionRules(rules))).not.toThrow();
    expect(r!.ok).toBe(false);
    if (r!.ok) return;
    expect(r!.issues.map((i) => i.code)).toEqual(["too-deep"]);
    expect(r!.issues[0].message).toBe(`the rules nest more than ${MAX_RULES_DEPTH} levels deep here`);
    expect(r!.issues[0].path).toMatch(/^\/entities\/t\/slots\/v\//u);
    // The throwing variant throws its own typed error.
    expect(() => parseProjectionRules(rules)).toThrow(ProjectionError);
  });

  it("an expression up to the depth limit compiles and evaluates; one level more is refused", () => {
    // The slot's expression starts at the document's depth 4 (/entities/t/slots/v).
    const fits = MAX_RULES_DEPTH - 4;
    expect(evalSlot(nest(fits, "$.x", (e) => ({ not: e })), { x: true })).toBe(true);
    expect(safeParseProjectionRules(rulesWith(nest(fits + 1, "$.x", (e) => ({ not: e })))).ok).toBe(false);
  });

  it("constants nested thousands deep (`const`, switch cases, `in` values) are too-deep issues", () => {
    const deep = nest(5000, 1, (e) => [e]);
    for (const slot of [{ const: deep }, { switch: "$.x", cases: { a: deep } }, { switch: "$.x", cases: {}, default: deep }, { in: "$.x", values: [deep] }]) {
      const r = safeParseProjectionRules(rulesWith(slot));
      expect(r.ok, JSON.stringify(Object.keys(slot))).toBe(false);
      if (!r.ok) expect(r.issues.map((i) => i.code)).toEqual(["too-deep"]);
      expect(() => parseProjectionRules(rulesWith(slot))).toThrow(ProjectionError);
    }
  });
});

describe("regular expressions on model-controlled text", () => {
  it.each([
    ["(a+)+$", "a repeated group holding a quantifier"],
    ["^(\\w+\\s?)*$", "a repeated group holding a quantifier"],
    ["(a|aa)*b", "a repeated group holding a quantifier or an alternation"],
    ["(?:x|y){2,}", "a repeated group holding a quantifier or an alternation"],
    ["(a?){30}a{30}", "a repeated group holding a quantifier"],
    ["(.+)\\1", "a backreference"],
    ["(?<w>a)\\k<w>", "a backreference"],
    ["a{0,9}b{0,9}c{0,9}d{0,9}e{0,9}f{0,9}g{0,9}h{0,9}i{0,9}", "so many branches"],
  ])("refuses %s when the rules are parsed (unsafe-regex)", (pattern, reason) => {
    const r = safeParseProjectionRules(rulesWith({ regex: "$.s", pattern }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: "unsafe-regex", path: "/entities/t/slots/v/pattern" });
    expect(r.issues[0].message).toContain(reason);
  });

  it("the shipped rules' patterns are accepted, with the input bound their shape allows", () => {
    expect(judgeRegex("Airplane Mode is now (ON|OFF)", "")).toEqual({ ok: true, maxInput: REGEX_MAX_INPUT });
    expect(judgeRegex("^gift_card_", "")).toEqual({ ok: true, maxInput: REGEX_MAX_INPUT });
    expect(judgeRegex("Certificate (certificate_\\d+) added", "")).toEqual({ ok: true, maxInput: 10_000 });
    expect(judgeRegex("^(.*[^/])/+[^/]+$", "")).toEqual({ ok: true, maxInput: Math.floor(Math.cbrt(REGEX_STEP_BUDGET)) });
    // `m` makes `^` match after every newline: every start position counts again.
    expect(judgeRegex("^a+$", "m")).toEqual({ ok: true, maxInput: 10_000 });
    expect(judgeRegex("^a+$", "")).toEqual({ ok: true, maxInput: REGEX_STEP_BUDGET > REGEX_MAX_INPUT ? REGEX_MAX_INPUT : REGEX_STEP_BUDGET });
  });

  it("a polynomial pattern on long model-controlled text is not run: the value is missing, in bounded CPU time", () => {
    // `.*a.*b.*c` has four nested choices (three quantifiers and the start position): on 60,000
    // characters without a `c` V8 would backtrack ~10^17 steps. Its bound is 100 characters.
    const long = "ab".repeat(30_000);
    const { value, ms } = cpuTime(() => evalSlot({ regex: "$.s", pattern: ".*a.*b.*c", group: 0 }, { s: long }));
    expect(value).toBeUndefined();
    expect(ms).toBeLessThan(2000);
    // Within its bound the same pattern runs as before.
    expect(evalSlot({ regex: "$.s", pattern: ".*a.*b.*c", group: 0 }, { s: "xxaxbxc" })).toBe("xxaxbxc");
    expect(evalSlot({ regex: "$.s", pattern: ".*a.*b.*c", group: 0 }, { s: "ab".repeat(50) })).toBeUndefined();
  });

  it("a safe pattern still matches long text", () => {
    const text = `${"x".repeat(500_000)} Airplane Mode is now ON`;
    expect(evalSlot({ regex: "$.s", pattern: "is now (ON|OFF)" }, { s: text })).toBe("ON");
  });
});

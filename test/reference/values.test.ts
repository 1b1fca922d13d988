// Host value conversion: exact fixed point, ISO times in UTC, interned strings, own-property paths.
import { describe, expect, it } from "vitest";
import { FIXED_ONE, SlotType, ValueTag } from "../../src/abi.js";
import { Interner } from "../../src/core/interner.js";
import { getPath, isoSeconds, numberToFixed, parseFixed, splitPath, timeToFixed, toSize, toTagged, type TaggedValue } from "../../src/core/values.js";

const holder = (): TaggedValue => ({ tag: ValueTag.Missing, value: 0n });

describe("fixed point", () => {
  it("converts decimals exactly, without float drift", () => {
    expect(numberToFixed(0.1)).toBe(100_000n);
    expect(numberToFixed(0.7)).toBe(700_000n);
    expect(numberToFixed(120.5 - 20.25)).toBe(100_250_000n);
    expect(numberToFixed(1e-7)).toBe(0n); // floored below 1e-6
    expect(numberToFixed(-1e-7)).toBe(-1n); // floor, not truncation
    expect(numberToFixed(2.5e3)).toBe(2_500_000_000n);
    expect(parseFixed("-0.000001")).toBe(-1n);
    expect(parseFixed(".5")).toBe(500_000n);
  });

  it("refuses non-finite numbers, non-decimals and values beyond i64", () => {
    expect(numberToFixed(Number.NaN)).toBeNull();
    expect(numberToFixed(Number.POSITIVE_INFINITY)).toBeNull();
    expect(parseFixed("0x10")).toBeNull();
    expect(parseFixed("1e400")).toBeNull();
    expect(parseFixed("10000000000000")).toBeNull(); // 1e13 * 1e6 > 2^63
    expect(parseFixed("9223372036854")).toBe(9_223_372_036_854_000_000n);
  });
});

describe("times", () => {
  it("reads ISO dates and date-times as UTC seconds unless a zone is given", () => {
    expect(isoSeconds("1970-01-01")).toBe(0);
    expect(isoSeconds("2024-05-15T15:00:00")).toBe(1_715_785_200);
    expect(isoSeconds("2024-05-15T15:00:00Z")).toBe(1_715_785_200);
    expect(isoSeconds("2024-05-15T17:00:00+02:00")).toBe(1_715_785_200);
    expect(isoSeconds("2024-05-15 15:00")).toBe(1_715_785_200);
  });

  it("refuses impossible or malformed dates", () => {
    expect(isoSeconds("2024-02-30")).toBeNull();
    expect(isoSeconds("2024-13-01")).toBeNull();
    expect(isoSeconds("yesterday")).toBeNull();
    expect(timeToFixed("nope")).toBeNull();
    expect(timeToFixed(new Date(Number.NaN))).toBeNull();
  });

  it("scales seconds by FIXED_ONE and accepts Date and epoch milliseconds", () => {
    expect(timeToFixed("1970-01-01T00:00:01Z")).toBe(BigInt(FIXED_ONE));
    expect(timeToFixed(new Date(1500))).toBe(BigInt(FIXED_ONE));
    expect(timeToFixed(2999)).toBe(2n * BigInt(FIXED_ONE));
  });
});

describe("tagged values", () => {
  const interner = new Interner(["open", "cancelled"]);

  it("interns strings with the ontology's ids first", () => {
    expect(toTagged("cancelled", SlotType.String, interner, holder())).toEqual({ tag: ValueTag.String, value: 1n });
    const fresh = toTagged("other", SlotType.String, interner, holder());
    expect(fresh.tag).toBe(ValueTag.String);
    expect(fresh.value).toBeGreaterThanOrEqual(2n);
    expect(toTagged("other", SlotType.String, interner, holder())).toEqual(fresh);
    expect(toTagged(42, SlotType.String, interner, holder()).value).toBe(BigInt(interner.id("42")));
  });

  it("maps null, undefined and mistyped values to Null and Missing", () => {
    expect(toTagged(null, SlotType.Number, interner, holder()).tag).toBe(ValueTag.Null);
    expect(toTagged(undefined, SlotType.String, interner, holder()).tag).toBe(ValueTag.Missing);
    expect(toTagged("yes", SlotType.Bool, interner, holder()).tag).toBe(ValueTag.Missing);
    expect(toTagged(true, SlotType.Bool, interner, holder())).toEqual({ tag: ValueTag.Bool, value: 1n });
    expect(toTagged("12.5", SlotType.Number, interner, holder())).toEqual({ tag: ValueTag.Number, value: 12_500_000n });
    expect(toTagged(Number.NaN, SlotType.Number, interner, holder()).tag).toBe(ValueTag.Missing);
    expect(toTagged("2024-05-15", SlotType.Date, interner, holder())).toEqual({ tag: ValueTag.Number, value: 1_715_731_200n * BigInt(FIXED_ONE) });
    expect(toTagged("soon", SlotType.Datetime, interner, holder()).tag).toBe(ValueTag.Missing);
    expect(toTagged([1], SlotType.List, interner, holder()).tag).toBe(ValueTag.Missing);
  });

  it("sizes lists and objects", () => {
    expect(toSize([1, 2, 3], holder())).toEqual({ tag: ValueTag.Number, value: 3n * BigInt(FIXED_ONE) });
    expect(toSize({ a: 1, b: 2 }, holder())).toEqual({ tag: ValueTag.Number, value: 2n * BigInt(FIXED_ONE) });
    expect(toSize("abc", holder()).tag).toBe(ValueTag.Missing);
    expect(toSize(null, holder()).tag).toBe(ValueTag.Missing);
  });
});

describe("argument paths", () => {
  it("walks dotted paths through objects and arrays", () => {
    const args = { passengers: [{ first_name: "Ada" }] };
    expect(getPath(args, splitPath("passengers.0.first_name"))).toBe("Ada");
    expect(getPath(args, splitPath("passengers.1.first_name"))).toBeUndefined();
  });

  it("never walks into prototypes", () => {
    expect(getPath({}, splitPath("constructor"))).toBeUndefined();
    expect(getPath({}, splitPath("__proto__"))).toBeUndefined();
    expect(getPath({ a: {} }, splitPath("a.toString"))).toBeUndefined();
    const own = JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}');
    expect(getPath(own, splitPath("__proto__.x"))).toBe(1);
    expect(getPath(own, splitPath("constructor"))).toBe("c");
  });
});

describe("interner", () => {
  it("resets scratch ids but keeps the pool", () => {
    const i = new Interner(["a", "b"]);
    expect(i.id("b")).toBe(1);
    const x = i.id("x");
    const f = i.fresh();
    expect(f).not.toBe(x);
    expect(i.id("x")).toBe(x);
    i.reset();
    expect(i.id("b")).toBe(1);
    expect(i.id("y")).toBe(2);
  });

  it("after a reset a string of an earlier verdict gets the id its first use in this verdict gives, over many verdicts and strings", () => {
    const i = new Interner(["a"]);
    for (let v = 0; v < 3000; v++) {
      // Strings of earlier verdicts come back in another order: ids follow this verdict's first uses.
      const first = `s${(v * 7) % 5000}`;
      const second = `s${(v * 7 + 3) % 5000}`;
      expect(i.id(first)).toBe(1);
      expect(i.fresh()).toBe(2);
      expect(i.id(second)).toBe(3);
      expect(i.id(first)).toBe(1);
      expect(i.id("a")).toBe(0);
      i.reset();
    }
  });
});

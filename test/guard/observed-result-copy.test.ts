// What a session keeps of a tool result the guard parsed itself (observe, session scope; src/guard/call.ts
// freezeParsed): exactly the data of the result's frozen JSON copy — within the copy's bounds (64 levels,
// 100,000 nodes) the result as parsed, past them the copy's `too deep` / `too large` markers — frozen all
// the way down. Parsed JSON that already is that copy's data is kept as it is (frozen in place), not
// copied again; whatever the copy would change, or that lies at the bounds, is copied.
import { describe, expect, it } from "vitest";
import { freezeParsed, frozenJsonSafe, NON_JSON } from "../../src/guard/call.js";
import { createGuard } from "../../src/guard/index.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

const marker = (kind: string) => ({ [NON_JSON]: kind });

function deepFrozen(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (!Object.isFrozen(v)) return false;
  return Object.values(v).every(deepFrozen);
}

/** `levels` nested lists around `leaf`: the innermost list is at depth levels - 1. */
function nestedText(levels: number, leaf = "1"): string {
  return "[".repeat(levels) + leaf + "]".repeat(levels);
}

/** A list of `n` copies of `leaf`'s JSON: 1 + n nodes. */
function listText(n: number, leaf: string): string {
  return `[${new Array(n).fill(leaf).join(",")}]`;
}

/** The list `depth` levels down. */
function down(v: unknown, depth: number): unknown {
  for (let i = 0; i < depth; i++) v = (v as unknown[])[0];
  return v;
}

const LEAVES: [string, string, unknown][] = [
  ["strings", '"s"', "s"],
  ["booleans", "true", true],
  ["nulls", "null", null],
  ["numbers", "7", 7],
  ["empty lists", "[]", []],
  ["empty objects", "{}", {}],
];

describe("a session keeps the copy's data of an observed result, frozen", () => {
  const nuke = { name: "nuke", arguments: { x: 1 } };
  function keep(text: string): unknown {
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "veto", scope: "session", config: { now: NOW } });
    g.observe(nuke, text);
    const [entry] = g.sequence();
    expect(deepFrozen(entry.result)).toBe(true);
    return entry.result;
  }

  it("64 levels are kept; the 65th is the copy's `too deep` marker", () => {
    expect(down(keep(nestedText(64)), 63)).toEqual([1]);
    expect(down(keep(nestedText(65)), 64)).toEqual(marker("too deep"));
    expect(down(keep(nestedText(66, "[]")), 64)).toEqual(marker("too deep"));
  });

  for (const [what, leaf, value] of LEAVES) {
    it(`a list of 99,999 ${what} is kept whole; past 100,000 nodes the copy's \`too large\` marker ends it`, () => {
      const whole = keep(listText(99_999, leaf)) as unknown[];
      expect(whole).toHaveLength(99_999);
      expect(whole.at(-1)).toEqual(value);
      const cut = keep(listText(100_005, leaf)) as unknown[];
      expect(cut).toHaveLength(100_000);
      expect(cut[99_998]).toEqual(value);
      expect(cut.at(-1)).toEqual(marker("too large"));
    });
  }
});

describe("freezeParsed: kept in place when already the copy's data, copied otherwise", () => {
  it("parsed JSON holding every kind of value is kept, frozen in place", () => {
    const v = JSON.parse('{"s":"x","t":true,"f":false,"n":null,"i":3,"x":-1.5,"l":["y",false,null,0,{}],"o":{"e":[]}}');
    expect(freezeParsed(v)).toBe(v);
    expect(deepFrozen(v)).toBe(true);
  });

  it("a list of 99,998 values of any kind is kept; one of 99,999 (the copy's bound in sight) is copied, with the same data", () => {
    for (const [, leaf] of LEAVES) {
      const kept = JSON.parse(listText(99_998, leaf));
      expect(freezeParsed(kept)).toBe(kept);
      const near = JSON.parse(listText(99_999, leaf));
      const copy = freezeParsed(near);
      expect(copy).not.toBe(near);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(frozenJsonSafe(JSON.parse(listText(99_999, leaf)))));
      expect(deepFrozen(copy)).toBe(true);
    }
  });

  it("what the copy would change is copied: a hole is the copy's `array hole` marker", () => {
    // eslint-disable-next-line no-sparse-arrays
    const holed = [1, , 3];
    const copy = freezeParsed(holed);
    expect(copy).not.toBe(holed);
    expect(copy).toEqual([1, marker("array hole"), 3]);
    expect(deepFrozen(copy)).toBe(true);
  });

  it("63 levels are kept; 64 (the copy's depth bound in sight) are copied, with the same data", () => {
    const kept = JSON.parse(nestedText(63));
    expect(freezeParsed(kept)).toBe(kept);
    const near = JSON.parse(nestedText(64));
    const copy = freezeParsed(near);
    expect(copy).not.toBe(near);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(frozenJsonSafe(JSON.parse(nestedText(64)))));
    expect(deepFrozen(copy)).toBe(true);
  });
});

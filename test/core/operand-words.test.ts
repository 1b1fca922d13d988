// The verifier's allocation-free encodings give the bytes of the BigInt ones: operand values written
// without a BigInt (writeTagged / writeOperandInt) and the verdict's output record kept as 32-bit words
// (outputWords / wordsToBytes, the guard's lazy hex) — byte for byte, for every kind of value.
import { describe, expect, it } from "vitest";
import { INPUT_SIZE, OUT_N_STEPS, OUTPUT_SIZE, SlotType } from "../../src/abi.js";
import { Interner } from "../../src/core/interner.js";
import { outputBytes, outputWords, wordsToBytes, writeOperand, writeOperandInt } from "../../src/core/record.js";
import { writeSize, writeTagged } from "../../src/core/verifier.js";
import { toSize, toTagged, type TaggedValue } from "../../src/core/values.js";

const bytes = (v: DataView) => Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).toString("hex");

describe("operand values without BigInt", () => {
  it("writeOperandInt writes the i64 writeOperand writes, for integers up to 2^53", () => {
    const values = [0, -0, 1, -1, 255, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, -(2 ** 32), 2 ** 32 + 7, 2 ** 53 - 1, -(2 ** 53 - 1), 9_007_199_254 * 1_000_000, -9_007_199_254 * 1_000_000, 1_715_785_200 * 1_000_000];
    for (const x of values) {
      const a = new DataView(new ArrayBuffer(INPUT_SIZE));
      const b = new DataView(new ArrayBuffer(INPUT_SIZE));
      writeOperandInt(a, 3, 3, x);
      writeOperand(b, 3, 3, BigInt(x));
      expect(bytes(a), String(x)).toBe(bytes(b));
    }
  });

  it("writeTagged writes what toTagged + writeOperand write, every type and value, with the same interned ids", () => {
    const values: unknown[] = [undefined, null, true, false, 0, -0, 1, -1, 7, 0.1, -2.5, 1e-7, 123.456, 9_007_199_254, 9_007_199_255, -9_007_199_255, 1e20, -1e20, 2 ** 53, NaN, Infinity, -Infinity,
      "", "a", "abc", " 12 ", "12", "-3.5", "1e3", "x1", "2024-05-15", "2024-05-15T15:00:00", "2024-05-15T15:00:00+02:00", "9999-12-31T23:59:59", "0001-01-01", "2024-02-30", "1969-07-20T20:17:40Z",
      [], [1, 2], {}, { a: 1 }];
    const types = [SlotType.String, SlotType.Number, SlotType.Bool, SlotType.Datetime, SlotType.Date, SlotType.List, SlotType.Object];
    const pool = ["a", "12", "open"];
    const fast = new Interner(pool);
    const slow = new Interner(pool);
    const scratch: TaggedValue = { tag: 0, value: 0n };
    let k = 0;
    for (const type of types) {
      for (const v of values) {
        const a = new DataView(new ArrayBuffer(INPUT_SIZE));
        const b = new DataView(new ArrayBuffer(INPUT_SIZE));
        writeTagged(a, k % 64, v, type, fast, scratch);
        const t = toTagged(v, type, slow, { tag: 0, value: 0n });
        writeOperand(b, k % 64, t.tag, t.value);
        expect(bytes(a), `${String(v)} as ${SlotType[type]}`).toBe(bytes(b));
        k++;
      }
    }
  });
});

describe("size operands without BigInt", () => {
  it("writeSize writes what toSize + writeOperand write: lists, objects (plain or without prototype), anything else", () => {
    const big = new Array(100_000);
    const values: unknown[] = [undefined, null, 0, "abc", true, [], [1, 2, 3], big, {}, { a: 1, b: [2] }, Object.create(null), Object.assign(Object.create(null), { x: 1 }), new Date(0), new Map([[1, 2]]), () => 1];
    for (const [i, v] of values.entries()) {
      const a = new DataView(new ArrayBuffer(INPUT_SIZE));
      const b = new DataView(new ArrayBuffer(INPUT_SIZE));
      writeSize(a, i, v);
      const t = toSize(v, { tag: 0, value: 0n });
      writeOperand(b, i, t.tag, t.value);
      expect(bytes(a), `value ${i}`).toBe(bytes(b));
    }
  });
});

describe("the output record as words", () => {
  it("wordsToBytes(outputWords(out)) is outputBytes(out), for every step count", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (const n of [0, 1, 2, 5, 256, 300]) {
      const view = new DataView(new ArrayBuffer(OUTPUT_SIZE + 64), 16, OUTPUT_SIZE);
      for (let i = 0; i < OUTPUT_SIZE; i += 4) view.setUint32(i, rnd(), true);
      view.setUint32(OUT_N_STEPS, n, true);
      const words = outputWords(view);
      expect(Buffer.from(wordsToBytes(words)).toString("hex")).toBe(Buffer.from(outputBytes(view)).toString("hex"));
    }
  });
});

describe("verdictWords", () => {
  it("is verdict() with the output record as words, and a spread copy of the verifier does not carry it", async () => {
    const { verifier, state } = await import("../guard/evaluate-fixture.js");
    const s = state();
    for (const forward of [[{ name: "edit_order", arguments: { order_id: "O1" } }], [{ name: "toggle_data", arguments: {} }], [{ name: "page_staff", arguments: {} }], [{ name: "nope", arguments: {} }]]) {
      const a = verifier.verdict(forward, s);
      const b = verifier.verdictWords!(forward, s);
      const { bytes, ...rest } = a;
      const { words, ...restWords } = b;
      expect(restWords).toEqual(rest);
      expect(Buffer.from(wordsToBytes(words)).equals(Buffer.from(bytes))).toBe(true);
    }
    expect({ ...verifier }.verdictWords).toBeUndefined();
  });
});

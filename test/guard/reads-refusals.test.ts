// ownReads (src/guard/reads.ts) fails closed: a read whose value cannot be copied as JSON is an error that
// names the read (entity, id, slot), never a record that holds the value or a placeholder for it.
import { describe, expect, it } from "vitest";
import { ownReads, type Read } from "../../src/guard/reads.js";

describe("ownReads refuses a value it cannot copy", () => {
  it.each([["NaN", Number.NaN], ["Infinity", Infinity], ["a bigint", 1n], ["a function", () => 1], ["an object holding NaN", { a: Number.NaN }], ["a Date", new Date(0)]])(
    "a read whose value is %s throws, naming the read",
    (_what, value) => {
      const reads = [["user", "u", "name", "Ann"], ["user", "u", "balance", value]] as unknown as Read[];
      expect(() => ownReads(reads)).toThrow("the value of `user` `u` `balance` cannot be copied as JSON");
      expect(Object.isFrozen(reads)).toBe(false);
    },
  );
});

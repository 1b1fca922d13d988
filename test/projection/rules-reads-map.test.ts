// The runtime rules parser refuses a `reads` that is not a map on its own: the read-rule validator
// (src/projection/reads.ts) stays out of the runtime bundle, so a host that never loads it must still
// not take `reads: []` or `reads: "x"` as valid rules.
import { expect, it } from "vitest";
import { safeParseProjectionRules } from "../../src/projection/index.js";

const base = { format: "polar-projection/1", domain: "d", entities: { thing: { fields: "*" } } };

it.each([[[]], ["x"], [3], [null]])("`reads: %j` is a bad-type issue of the rules themselves", (reads) => {
  expect(safeParseProjectionRules({ ...base, reads })).toEqual({
    ok: false,
    issues: [{ code: "bad-type", path: "/reads", message: "`reads` must be an object from tool name to a read rule" }],
  });
});

it("a map of read rules, or none, passes the rules parser", () => {
  expect(safeParseProjectionRules({ ...base, reads: {} }).ok).toBe(true);
  expect(safeParseProjectionRules(base).ok).toBe(true);
});

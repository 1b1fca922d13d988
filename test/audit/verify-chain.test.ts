// The verifier's reading of a log as a whole: the JSONL text and the list-of-lines forms, an empty or
// cut-off log, the hash chain (reordered, duplicated, deleted lines, edited links), each guard's seq
// numbering, and a head anchored elsewhere. Each case asserts the exact mismatches, so a check that
// fires on the wrong line, twice, or not at all is caught.
import { describe, expect, it } from "vitest";
import { CHAIN_GENESIS, chainHead, recordHash, verifyAuditLog, type VerifyOptions } from "../../src/audit/index.js";
import { airline } from "../guard/helpers.js";
import { edited, FIVE } from "./verify-log.js";

const ontologies = [airline.blob];
const verify = (input: string | Iterable<string>, options: Partial<VerifyOptions> = {}) => verifyAuditLog(input, { ontologies, ...options });
const fields = (input: string | Iterable<string>, options: Partial<VerifyOptions> = {}) => verify(input, options).mismatches.map((m) => [m.line, m.field]);
const text = FIVE.join("\n") + "\n";
const headOf = (lines: string[]) => ({ index: lines.length, hash: recordHash(JSON.parse(lines[lines.length - 1])) });

describe("the log's forms", () => {
  it("the fixture is one guard's five records, chained from the genesis", () => {
    const records = FIVE.map((l) => JSON.parse(l));
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(records.map((r) => r.reason)).toEqual(["ok", "external_side_effect", "missing_entity", "unknown_tool", "malformed_call"]);
    expect(records[0].chain).toEqual({ index: 1, prev: CHAIN_GENESIS });
  });

  it("a JSONL text, a list of lines and any iterable of lines verify alike", () => {
    const expected = { ok: true, total: 5, verified: 5, mismatches: [], transient: [], head: headOf(FIVE) };
    expect(verify(text)).toEqual(expected);
    expect(verify(FIVE)).toEqual(expected);
    expect(verify(new Set(FIVE).values())).toEqual(expected);
  });

  it("blank lines are skipped, and a mismatch is reported on the line where it stands", () => {
    const spaced = [FIVE[0], "", "   ", ...edited(FIVE, 4, (d) => { d.route = "Approved"; }).slice(1)];
    expect(verify(spaced)).toMatchObject({ total: 5, verified: 4 });
    expect(fields(spaced)).toEqual([[7, "route"]]);
    const spacedText = `${FIVE[0]}\n\n  \n${FIVE.slice(1).join("\n")}\n`;
    expect(verify(spacedText)).toMatchObject({ ok: true, total: 5 });
  });

  it("a log that ends without a newline was cut off while written; trailing blank lines are not a cut", () => {
    expect(verify(FIVE.join("\n")).mismatches).toEqual([{ line: 5, field: "truncated", expected: "a log ending in a newline", actual: "the last line has no newline" }]);
    expect(verify(`${text}\n  \n`).ok).toBe(true);
    expect(verify(`${text}  `).ok).toBe(true);
    // Cut inside the last record: its remains are not JSON either.
    expect(fields(text.slice(0, -40))).toEqual([[5, "truncated"], [5, "json"]]);
    // Lines given one by one carry no newlines: nothing to check.
    expect(verify(FIVE).ok).toBe(true);
  });

  it("an empty log proves nothing: reported, unless allowed", () => {
    const empty = { line: 0, field: "log", expected: "at least one decision record", actual: "an empty log" };
    for (const input of ["", "\n\n", []]) {
      expect(verify(input)).toEqual({ ok: false, total: 0, verified: 0, mismatches: [empty], transient: [], head: { index: 0, hash: CHAIN_GENESIS } });
      expect(verify(input, { allowEmpty: true })).toMatchObject({ ok: true, mismatches: [] });
    }
  });
});

describe("lines that are not records", () => {
  it("not JSON, not an object, or not canonical JSON (a number out of range) is a json mismatch", () => {
    const bad = ["{not json", "[1]", "null", FIVE[1].replace(/"tau":800000/u, '"tau":1e999')];
    expect(bad[3]).not.toBe(FIVE[1]);
    const report = verify([FIVE[0], ...bad]);
    expect(report.mismatches.map((m) => [m.line, m.field])).toEqual([[2, "json"], [3, "json"], [4, "json"], [5, "json"]]);
    expect(report.mismatches.map((m) => m.expected)).toEqual(Array(4).fill("a decision record"));
    expect(report.mismatches[1].actual).toBe("Error: not an object");
    expect(report.mismatches[3].actual).toMatch(/finite|number/u);
    expect(report).toMatchObject({ ok: false, total: 5, verified: 1, head: headOf(FIVE.slice(0, 1)) });
  });

  it("after an unreadable line the next record's link and seq are not judged against it", () => {
    // Record 5 (seq 5) after record 1 and a bad line: the bad line may have held anything, so only the
    // index, which counts lines, is wrong.
    expect(fields([FIVE[0], "{", FIVE[4]])).toEqual([[2, "json"], [3, "chain.index"]]);
    expect(fields([FIVE[0], "{", FIVE[2], FIVE[3], FIVE[4]])).toEqual([[2, "json"]]);
    const outOfRange = FIVE[1].replace(/"tau":800000/u, '"tau":1e999');
    expect(fields([FIVE[0], outOfRange, FIVE[4]])).toEqual([[2, "json"], [3, "chain.index"]]);
  });
});

describe("the hash chain", () => {
  it("a reordering breaks both records' links", () => {
    const swapped = [FIVE[0], FIVE[2], FIVE[1], FIVE[3], FIVE[4]];
    expect(fields(swapped)).toEqual([[2, "chain.index"], [2, "chain.prev"], [2, "seq"], [3, "chain.index"], [3, "chain.prev"], [3, "seq"], [4, "chain.prev"], [4, "seq"]]);
  });

  it("a duplicated or deleted line breaks the link and the numbering where it happened", () => {
    // The line after a duplicate links to the duplicate's twin, which hashes the same: only the index
    // shows, on every later line.
    expect(fields([...FIVE.slice(0, 3), FIVE[2], FIVE[3], FIVE[4]])).toEqual([[4, "chain.index"], [4, "chain.prev"], [4, "seq"], [5, "chain.index"], [6, "chain.index"]]);
    expect(fields([FIVE[0], ...FIVE.slice(2)])).toEqual([[2, "chain.index"], [2, "chain.prev"], [2, "seq"], [3, "chain.index"], [4, "chain.index"]]);
    // A log starts with some guard's first decision.
    expect(fields(FIVE.slice(1))).toEqual([[1, "chain.index"], [1, "chain.prev"], [1, "seq"], [2, "chain.index"], [3, "chain.index"], [4, "chain.index"]]);
  });

  it("an edited record breaks the next record's link; an edited link is named", () => {
    expect(fields(edited(FIVE, 1, (d) => { d.call.arguments.note = "added"; }))).toEqual([[3, "chain.prev"]]);
    const last = (edit: (d: Record<string, any>) => void) => verify(edited(FIVE, 4, edit)).mismatches;
    expect(last((d) => { d.chain.index = 9; })).toEqual([{ line: 5, field: "chain.index", expected: 5, actual: 9 }]);
    const prev = recordHash(JSON.parse(FIVE[3]));
    expect(last((d) => { d.chain.prev = CHAIN_GENESIS; })).toEqual([{ line: 5, field: "chain.prev", expected: prev, actual: CHAIN_GENESIS }]);
  });

  it("a record without a chain link, or with one that is not an object, is named", () => {
    for (const chain of [undefined, null, [5, "x"], "5"]) {
      const m = verify(edited(FIVE, 4, (d) => { d.chain = chain; })).mismatches;
      expect(m).toEqual([{ line: 5, field: "chain", expected: "a chain link `{ index, prev }`", actual: chain }]);
    }
  });

  it("a cut tail is invisible without an anchor and caught with one", () => {
    const head = headOf(FIVE).hash;
    expect(verify(FIVE.slice(0, 3)).ok).toBe(true);
    expect(verify(FIVE, { head }).ok).toBe(true);
    // A log that grew after the anchor still holds the anchored record.
    expect(verify(FIVE.slice(0, 3), { head: headOf(FIVE.slice(0, 3)).hash }).ok).toBe(true);
    expect(verify(FIVE.slice(0, 3), { head }).mismatches).toEqual([{ line: 3, field: "head", expected: head, actual: "no record of the log has the anchored hash (truncated or rewritten)" }]);
    expect(fields([], { head, allowEmpty: true })).toEqual([[0, "head"]]);
    // A rewritten last record is not the anchored one.
    expect(fields(edited(FIVE, 4, (d) => { d.call.arguments.x = 1; }), { head })).toEqual([[5, "head"]]);
  });

  it("chainHead of the text is the report's head", () => {
    expect(chainHead(text)).toEqual(verify(text).head);
  });
});

describe("each guard's seq", () => {
  const seqOf = (lines: string[]) => lines.map((l) => JSON.parse(l).seq as number);

  it("a seq that is not a positive integer is named once, on its own line", () => {
    for (const seq of ["4", 3.5, 0, -4, null]) {
      const m = verify(edited(FIVE, 3, (d) => { d.seq = seq; })).mismatches;
      // The edit also breaks the next link; the next seq (5) is not judged against the bad one.
      expect(m).toEqual([{ line: 4, field: "seq", expected: "a positive integer", actual: seq }, expect.objectContaining({ line: 5, field: "chain.prev" })]);
    }
    for (const seq of [6, 1.5, undefined]) expect(fields(edited(FIVE, 4, (d) => { d.seq = seq; }))).toEqual([[5, "seq"]]);
  });

  it("a gap or a repeat in one guard's numbering names the seq it expected", () => {
    expect(verify(edited(FIVE, 4, (d) => { d.seq = 7; })).mismatches).toEqual([{ line: 5, field: "seq", expected: 5, actual: 7 }]);
    expect(verify(edited(FIVE, 4, (d) => { d.seq = 4; })).mismatches).toEqual([{ line: 5, field: "seq", expected: 5, actual: 4 }]);
    expect(verify(edited(FIVE, 4, (d) => { d.seq = 2; })).mismatches).toEqual([{ line: 5, field: "seq", expected: 5, actual: 2 }]);
  });

  it("a second guard writing after the first starts again at 1", () => {
    expect(seqOf(FIVE)).toEqual([1, 2, 3, 4, 5]);
    const restarted = edited(FIVE, 4, (d) => { d.seq = 1; });
    expect(verify(restarted).ok).toBe(true);
  });
});

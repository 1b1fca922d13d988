// Outcome records (src/audit/outcome.ts, issue 21 item 11): what finally happened to an approved call,
// in the same hash chain as the decisions. An honest log with them verifies and summarises (a call
// approved and then refused counts as blocked); an outcome that names no approved decision, a second
// outcome for one, a malformed one and an edited one are mismatches.
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.js";
import { chainHead, createMemorySink, outcomeRecord, summarizeLog, verifyAuditLog } from "../../src/audit/index.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "../guard/helpers.js";

const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
const certificate = { name: "send_certificate", arguments: { user_id: "mia" } };

function log(): { lines: string[]; approvedSeq: number; vetoedSeq: number } {
  const sink = createMemorySink();
  const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "turn", config: { now: NOW, projection: airlineRules, log: sink } });
  const a = g.check(cancel);
  expect(a.approved).toBe(true);
  g.release(a.execution!);
  sink.outcome(outcomeRecord(a.seq, a.execution!, "refused", "the inverse's tool is not on the server"));
  const v = g.check(certificate);
  expect(v.approved).toBe(false);
  return { lines: sink.lines(), approvedSeq: a.seq, vetoedSeq: v.seq };
}

const options = { ontologies: [airline.blob] };

/** Re-chains edited lines (an honest writer of the edited content), so only the edit itself is judged. */
function rechain(records: Record<string, unknown>[]): string[] {
  const sink = createMemorySink();
  for (const r of records) {
    const { chain: _c, ...rest } = r;
    if (rest.format === "polar-outcome/1") sink.outcome(rest as never);
    else sink.append(rest as never);
  }
  return sink.lines();
}

describe("outcome records", () => {
  it("an honest log with an outcome verifies, and the summary counts the approved-then-refused call as blocked", () => {
    const { lines } = log();
    const report = verifyAuditLog(lines, options);
    expect(report.mismatches).toEqual([]);
    expect(report).toMatchObject({ ok: true, total: 3, verified: 3, outcomes: 1, outcomesVerified: 1 });
    const s = summarizeLog(`${lines.join("\n")}\n`);
    expect(s).toMatchObject({ decisions: 2, ran: 0, blocked: 2, unreadable: [] });
    expect(s.outcomes).toEqual({ refused: 1 });
  });

  it("a log whose last record is an outcome has a head (the gateway's logs end so), the one verify reports", () => {
    const { lines } = log();
    const approvedThenRefused = lines.slice(0, 2);
    expect(JSON.parse(approvedThenRefused[1]).format).toBe("polar-outcome/1");
    const text = `${approvedThenRefused.join("\n")}\n`;
    expect(chainHead(text)).toEqual(verifyAuditLog(approvedThenRefused, options).head);
  });

  it("an outcome for a vetoed decision, a second outcome, a malformed one are mismatches", () => {
    const { lines, vetoedSeq, approvedSeq } = log();
    const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const forVetoed = rechain([...recs, { ...outcomeRecord(vetoedSeq, `x${vetoedSeq}`, "ran") }]);
    expect(verifyAuditLog(forVetoed, options).mismatches.map((m) => m.field)).toEqual(["outcome.seq"]);
    const twice = rechain([...recs, { ...outcomeRecord(approvedSeq, `x${approvedSeq}`, "ran") }]);
    expect(verifyAuditLog(twice, options).mismatches.map((m) => m.field)).toEqual(["outcome.seq"]);
    const malformed = rechain([...recs.slice(0, 1), { ...recs[1], outcome: "maybe", extra: 1 }, recs[2]]);
    expect(verifyAuditLog(malformed, options).mismatches.map((m) => m.field)).toEqual(["outcome"]);
    const before = rechain([{ ...outcomeRecord(1, "x1", "ran") }, ...recs]);
    expect(verifyAuditLog(before, options).ok).toBe(false);
  });

  it("an outcome edited in place (refused → ran) breaks the chain", () => {
    const { lines } = log();
    const edited = lines.map((l, i) => (i === 1 ? l.replace('"outcome":"refused"', '"outcome":"ran"') : l));
    expect(edited[1]).toContain('"outcome":"ran"');
    expect(verifyAuditLog(edited, options).mismatches.map((m) => m.field)).toContain("chain.prev");
  });
});

// Shadow mode: the guard runs advisory in front of the agent, every call runs, and the log says what
// enforcement would have done; `polar audit summary LOG` reads it back for a person.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { summarizeLog } from "../../src/audit/api.js";
import { createSession, judgedCall } from "../../src/adapters/core.js";
import { calls, fixture } from "./fixtures.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

function shadowLog(): string {
  const f = fixture("advisory");
  const s = createSession(f.guard);
  for (const c of [calls.editFlights, calls.certificate, calls.certificate, calls.cancelMissing, { name: "drop_database", arguments: {} }, calls.cancelR1]) {
    const d = s.decide(judgedCall(c.name, JSON.stringify(c.arguments)));
    expect(d.approved).toBe(true); // advisory: nothing is blocked
    s.release(d); // judged only; not run here (a pending execution would join later checks)
  }
  return f.lines().join("\n") + "\n";
}

describe("shadow mode and polar audit summary", () => {
  test("summarizeLog: calls, what ran, would-have-vetoed by reason and tool, what Escalate would have asked", () => {
    const s = summarizeLog(shadowLog() + "not json\n");
    expect(s.decisions).toBe(6);
    expect(s.ran).toBe(6);
    expect(s.blocked).toBe(0);
    expect(s.routes).toEqual({ Approved: 2, AdvisoryPassthrough: 4 });
    expect(s.wouldVeto.total).toBe(4);
    expect(s.wouldVeto.byReason).toEqual({ external_side_effect: 2, missing_entity: 1, unknown_tool: 1 });
    expect(s.wouldVeto.byTool).toEqual({ send_certificate: 2, cancel_reservation: 1, drop_database: 1 });
    // missing_entity and unknown_tool are refused even by Escalate: only the certificate is asked.
    expect(s.wouldAsk).toEqual({ total: 2, byTool: { send_certificate: 2 } });
    expect(s.unreadable).toEqual([7]);
  });

  test("arguments sent as JSON text are parsed once and kept raw in the record", () => {
    const f = fixture();
    const raw = '{"reservation_id": "R1",  "flights": []}';
    const d = createSession(f.guard).decide(judgedCall("update_reservation_flights", raw));
    expect(d.call).toEqual({ name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [] }, raw });
    const bad = createSession(f.guard).decide(judgedCall("update_reservation_flights", "{not json"));
    expect([bad.route, bad.reason]).toEqual(["Vetoed", "malformed_call"]);
  });

  test("polar audit summary LOG prints it", () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-shadow-"));
    const log = join(dir, "shadow.jsonl");
    writeFileSync(log, shadowLog());
    const out = execFileSync("npx", ["tsx", "src/cli/index.ts", "audit", "summary", log], { cwd: root, encoding: "utf8" });
    expect(out).toContain("6 decisions; 6 ran, 0 blocked");
    expect(out).toMatch(/would have vetoed \(policy veto\): 4 \(66\.7%\)/);
    expect(out).toMatch(/2\s+send_certificate/);
    expect(out).toMatch(/1\s+unknown_tool/);
  });
});

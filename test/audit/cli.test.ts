import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.js";
import { createMemorySink, recordHash } from "../../src/audit/index.js";
import { runAuditVerify } from "../../src/cli/commands/audit.js";
import { airline, airlineState, NOW } from "../guard/helpers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "polar-audit-"));
const blobFile = join(dir, "airline.blob");
writeFileSync(blobFile, airline.blob);

const sink = createMemorySink();
const g = createGuard({ ontology: airline.blob, state: airlineState(), policy: "escalate", config: { now: NOW, log: sink } });
g.check({ name: "update_reservation_flights", arguments: { reservation_id: "R1", flights: [] } });
g.check({ name: "send_certificate", arguments: { user_id: "mia" } }, { userMessages: ["yes please go ahead"] });
g.check({ name: "send_certificate", arguments: { user_id: "mia" } }, { userMessages: ["아니요"] });
const good = join(dir, "good.jsonl");
writeFileSync(good, sink.lines().join("\n") + "\n");
const bad = join(dir, "bad.jsonl");
const lines = sink.lines();
lines[2] = lines[2].replace('"route":"ConsentEscalated"', '"route":"ConsentApproved"');
writeFileSync(bad, lines.join("\n") + "\n");

function cli(args: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync("npx", ["tsx", "src/cli/index.ts", ...args], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: err.stdout + err.stderr };
  }
}

describe("polar audit verify", () => {
  it("verifies a log and reports a tampered line (in process)", () => {
    expect(runAuditVerify(good, { ontology: blobFile }).report).toMatchObject({ ok: true, total: 3, verified: 3 });
    const r = runAuditVerify(bad, { ontology: [blobFile], backend: "wasm" });
    expect(r.report.ok).toBe(false);
    expect(r.text).toContain(`${bad}:3: mismatch in \`route\``);
  });

  it("exits 0 on a clean log, 1 on a mismatch, 2 on bad usage", () => {
    const ok = cli(["audit", "verify", good, "--ontology", blobFile]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("3 of 3 decisions re-derived, 0 mismatches");
    const mismatch = cli(["audit", "verify", bad, "--ontology", blobFile]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.out).toContain(":3: mismatch in `route`");
    expect(cli(["audit", "verify", good]).code).toBe(2);
  });

  it("prints the head to anchor, and `--head` catches a cut tail", () => {
    const head = cli(["audit", "head", good]);
    expect(head.code).toBe(0);
    expect(head.out).toBe(`${recordHash(JSON.parse(sink.lines()[2]))}\n`);
    const cut = join(dir, "cut.jsonl");
    writeFileSync(cut, sink.lines().slice(0, 2).join("\n") + "\n");
    expect(runAuditVerify(cut, { ontology: blobFile }).report.ok).toBe(true);
    const anchored = runAuditVerify(cut, { ontology: blobFile, head: head.out.trim() });
    expect(anchored.report.mismatches.map((m) => m.field)).toEqual(["head"]);
    expect(runAuditVerify(good, { ontology: blobFile, head: head.out.trim() }).report.ok).toBe(true);
    expect(cli(["audit", "verify", good, "--ontology", blobFile, "--head", "xyz"]).code).toBe(2);
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    expect(runAuditVerify(empty, { ontology: blobFile }).report.ok).toBe(false);
    expect(runAuditVerify(empty, { ontology: blobFile, allowEmpty: true }).report.ok).toBe(true);
  });
});

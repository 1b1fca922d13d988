// `--audit-log FILE` on `polar demo` and `polar eval tau2`: the replay's decision log, which
// `polar audit verify` re-derives record by record (in process, on the shipped τ²-bench sample).
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { runAuditVerify } from "../../src/cli/commands/audit.js";
import { runDemo } from "../../src/cli/commands/demo.js";
import { evalTau2 } from "../../src/cli/commands/eval.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "polar-audit-log-"));
const blob = join(root, "ontologies/airline/airline.blob");

function records(file: string): { seq: number; route: string; scope: string }[] {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

describe("--audit-log", () => {
  test("polar demo --audit-log: every decision of the replay, one guard's records after another, re-derived by audit verify", () => {
    const file = join(dir, "demo.jsonl");
    const out: string[] = [];
    runDemo({ auditLog: file, backend: "reference", out: (s) => out.push(s) });
    const recs = records(file);
    expect(recs.length).toBeGreaterThan(10);
    // Both scopes of both sample runs: four guards, each a block whose seq runs 1…n.
    const starts = recs.filter((r) => r.seq === 1).length;
    expect(starts).toBe(4);
    recs.forEach((r, i) => expect(r.seq === 1 || r.seq === recs[i - 1].seq + 1).toBe(true));
    expect(out.join("")).toContain(`audit log: ${recs.length} decisions written to ${file}`);
    const { report } = runAuditVerify(file, { ontology: blob });
    expect(report).toMatchObject({ ok: true, total: recs.length, verified: recs.length });
  });

  test("polar eval tau2 --audit-log: the main configuration's decisions, re-derived by audit verify", () => {
    const file = join(dir, "eval.jsonl");
    const { decisions } = evalTau2({ data: join(root, "samples/tau2-airline"), out: join(dir, "eval"), resamples: 10, progress: false, auditLog: file });
    const recs = records(file);
    expect(decisions).toBe(recs.length);
    expect(recs.length).toBeGreaterThan(10);
    const { report } = runAuditVerify(file, { ontology: blob });
    expect(report).toMatchObject({ ok: true, total: recs.length, verified: recs.length });
  });

  test("polar eval tau2 --out OUT --audit-log OUT/decisions.jsonl creates OUT (through the CLI)", () => {
    const out = join(dir, "not-yet", "out");
    const file = join(out, "decisions.jsonl");
    expect(existsSync(out)).toBe(false);
    const cli = [join(root, "node_modules", "tsx", "dist", "cli.mjs"), join(root, "src", "cli", "index.ts")];
    const r = spawnSync(process.execPath, [...cli, "eval", "tau2", "--data", join(root, "samples/tau2-airline"), "--out", out, "--audit-log", file, "--resamples", "10", "--no-progress"], { encoding: "utf8", timeout: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(records(file).length).toBeGreaterThan(10);
    expect(existsSync(join(out, "tau2-eval.json"))).toBe(true);
  });
});

// The benchmark harness end to end with a tiny budget: every variant (`--quick`, 5 ms warm-up and 10 ms
// per figure; the shell variant on a 1,000-file repository, the hooks with 5 daemon calls and one fresh
// process per case), results written to a temporary folder, the README left alone, so a variant cannot
// break unseen. Checks the shape of the JSON and the Cedar agreement, never the speed. Needs dist/ (the
// package entry and the hook daemon run from it), git and curl.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(new URL("../../", import.meta.url)));
const out = mkdtempSync(join(tmpdir(), "polar-bench-"));

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every job of `bench/run.ts --quick`, in order. A new variant adds its job ids here (bench/README.md,
 * "Adding a variant"); `sql-delete` is a slot until bench/variants/sql.ts exists (reported skipped). */
const QUICK_JOBS = [
  "core-wasm", "core-reference", "verifier-wasm", "verifier-reference", "guard-wasm", "guard-reference", "decision-wasm", "cedar",
  "scale-tools-10", "scale-tools-100", "scale-tools-1000", "scale-tools-10000", "scale-slots-1000", "scale-slots-100000",
  "layerb", "memory", "shell", "hooks", "sql-delete",
  "cold-node", "cold-node-trusted", "cold-node-entry", "cold-node-entry-builtins", "cold-workerd", "cold-worker-example",
];

describe("bench harness", () => {
  it("runs every variant with a tiny budget and writes results JSON of the documented shape", () => {
    const tsx = join(root, "node_modules", ".bin", "tsx");
    try {
      execFileSync(tsx, ["bench/run.ts", "--quick", "--out", out, "--no-readme", "--warmup-ms", "5", "--measure-ms", "10"], {
        cwd: root,
        stdio: "pipe",
        timeout: 600_000,
      });
    } catch (e) {
      // The harness exits 1 when a variant failed; its failures are in the JSON (and on stdout).
      const failures = existsSync(join(out, "latest.json")) ? JSON.parse(readFileSync(join(out, "latest.json"), "utf8")).failures : [];
      throw new Error(`bench/run.ts failed: ${JSON.stringify(failures).slice(0, 4000)} ${String((e as { stdout?: unknown }).stdout ?? "").slice(-2000)}`);
    }
    const r = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));
    expect(r).toMatchObject({ format: "polar-bench/1", quick: true, failures: [] });
    expect(r.command).toContain("--quick");
    expect(typeof r.machine.cpu).toBe("string");
    expect(r.machine.cores).toBeGreaterThan(0);
    expect(r.machine.node).toBe(process.version);
    expect(r.results.map((x: { id: string }) => x.id)).toEqual(QUICK_JOBS);
    const core = r.results.find((x: { id: string }) => x.id === "core-wasm");
    expect(core).toMatchObject({ id: "core-wasm", engine: "core", backend: "wasm" });
    expect(typeof core.sink).toBe("number");
    for (const n of ["1", "4"]) {
      const f = core.figures.mixed[n];
      for (const k of ["batch", "samples", "calls", "p50", "p99", "p999", "mean", "throughput"]) expect(Number.isFinite(f[k])).toBe(true);
      expect(f.p50).toBeGreaterThan(0);
      expect(f.p50).toBeLessThanOrEqual(f.p99);
      expect(f.p99).toBeLessThanOrEqual(f.p999);
    }
    // A length the db cannot build (the vendored sample's short history) is named, never measured short.
    for (const n of ["16", "64"]) {
      if (core.figures.mixed[n] === undefined) expect(core.skipped.join("\n")).toContain(`mixed n=${n}:`);
    }
    // Every one of the 64 candidates of the mix reaches a verdict.
    expect(Object.values(core.outcomes["mixed/1"] as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(64);
    // The guard variants measure every length they build; Cedar decides every case as the search does.
    for (const id of ["guard-wasm", "guard-reference", "decision-wasm"]) expect(Number.isFinite(r.results.find((x: { id: string }) => x.id === id).figures.mixed["1"].p50)).toBe(true);
    const cedar = r.results.find((x: { id: string }) => x.id === "cedar");
    expect(Object.keys(cedar.agreement).length).toBeGreaterThan(0);
    for (const [k, a] of Object.entries(cedar.agreement as Record<string, { agree: number; total: number; disagreements: string[] }>)) {
      expect({ k, agree: a.agree, disagreements: a.disagreements }).toEqual({ k, agree: a.total, disagreements: [] });
    }
    expect(r.summary.targets.find((t: { target: string }) => t.target.startsWith("core verdict, one call")).measured).toMatch(/ns|µs/);
    // Coding-agent hooks: every case answered the same by the command hook, the http hook and a fresh
    // process, allow where it should; cold start measured.
    const hooks = r.results.find((x: { id: string }) => x.id === "hooks");
    expect(hooks.cases.map((c: { id: string }) => c.id)).toEqual(["mcp-read", "shell-git-status", "shell-reset-hard-clean", "mcp-delete"]);
    for (const c of hooks.cases) {
      expect(c.sameAnswer).toBe(true);
      for (const k of ["command", "http", "fresh"]) expect(c[k].p50).toBeGreaterThan(0);
    }
    expect(hooks.coldStart.n).toBe(1);
    expect(existsSync(join(out, "sequence-length.svg"))).toBe(true);
    // The new paths (issue 27 §4), side by side in the same run: the shell guard's verdicts and restore
    // points, the hook through the daemon and in a fresh process, the SQL slot.
    const shell = r.results.find((x: { id: string }) => x.id === "shell");
    for (const k of ["parse", "warm:repo", "warm:plain", "cold:repo", "restorePointFirst", "restorePointAgain"]) expect(Number.isFinite(shell.figures[k].p50), k).toBe(true);
    expect(shell.restorePoint.files).toBeGreaterThan(shell.files);
    expect(Number.isFinite(hooks.coldStart.p50)).toBe(true);
    // polar-guard/sql: the point DELETE approved with its one row kept, the unbounded one asked over the
    // bound, on SQLite and PGlite.
    const sql = r.results.find((x: { id: string }) => x.id === "sql-delete");
    expect(sql.skipped).toBeUndefined();
    for (const k of ["pointDelete", "unboundedDelete", "pglitePointDelete", "pgliteUnboundedDelete"]) expect(Number.isFinite(sql.figures[k].p50), k).toBe(true);
    for (const d of ["sqlite", "postgres"]) expect(sql.dialects[d].verdicts).toMatchObject({ point: "restore_point", unbounded: "over_bound" });
    const paths = r.summary.paths.map((p: { path: string }) => p.path).join("\n");
    for (const p of ["shell: verdict warm", "shell: restore point", "hook mcp-read: command hook", "hook mcp-read: http hook", "hook mcp-read: a fresh process", "SQL: point DELETE"]) expect(paths).toContain(p);
    expect(r.summary.targets.map((t: { target: string }) => t.target)).toEqual(expect.arrayContaining(["shell: verdict warm: p50 ≤ 2 ms (issue 23)", "hook mcp-read: command hook: p50 ≤ 10 ms, p95 ≤ 50 ms (issue 24, allow path)", "hook shell-git-status: http hook: p50 ≤ 10 ms, p95 ≤ 50 ms (issue 24, allow path)", "SQL: p50 ≤ 5 ms (issue 25)"]));
  }, 600_000);
});

// The benchmark harness end to end with a tiny budget: one variant (the wasm core), results written to
// a temporary folder, the README left alone. Checks the shape of the JSON, not the speed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(new URL("../../", import.meta.url)));
const out = mkdtempSync(join(tmpdir(), "polar-bench-"));

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("bench harness", () => {
  it("runs one variant with a tiny budget and writes results JSON of the documented shape", () => {
    const tsx = join(root, "node_modules", ".bin", "tsx");
    execFileSync(tsx, ["bench/run.ts", "--quick", "--only", "core-wasm", "--out", out, "--no-readme", "--warmup-ms", "5", "--measure-ms", "10"], {
      cwd: root,
      stdio: "pipe",
      timeout: 120_000,
    });
    const r = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));
    expect(r).toMatchObject({ format: "polar-bench/1", quick: true, failures: [] });
    expect(r.command).toContain("--only core-wasm");
    expect(typeof r.machine.cpu).toBe("string");
    expect(r.machine.cores).toBeGreaterThan(0);
    expect(r.machine.node).toBe(process.version);
    expect(r.results).toHaveLength(1);
    const core = r.results[0];
    expect(core).toMatchObject({ id: "core-wasm", engine: "core", backend: "wasm" });
    expect(typeof core.sink).toBe("number");
    for (const n of ["1", "4", "16", "64"]) {
      const f = core.figures.mixed[n];
      for (const k of ["batch", "samples", "calls", "p50", "p99", "p999", "mean", "throughput"]) expect(Number.isFinite(f[k])).toBe(true);
      expect(f.p50).toBeGreaterThan(0);
      expect(f.p50).toBeLessThanOrEqual(f.p99);
      expect(f.p99).toBeLessThanOrEqual(f.p999);
    }
    // Every one of the 64 candidates of the mix reaches a verdict.
    expect(Object.values(core.outcomes["mixed/1"] as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(64);
    expect(r.summary.targets.find((t: { target: string }) => t.target.startsWith("core verdict, one call")).measured).toMatch(/ns|µs/);
    expect(existsSync(join(out, "sequence-length.svg"))).toBe(true);
  });
});

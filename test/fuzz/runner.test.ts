// The long-run script (scripts/fuzz.ts) with --jobs: a target's chunks are split over child processes
// (chunk k to child k mod J, each chunk with seed + k), every chunk runs exactly once, and the parent
// merges the children's counts into one result.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support.js";

function runFuzz(args: string[]): { status: number | null; stderr: string } {
  // --no-write: the test must not touch fuzz/results.json.
  const r = spawnSync(process.execPath, ["--import", "tsx", join(REPO, "scripts", "fuzz.ts"), ...args, "--no-write"], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr };
}

describe("npm run fuzz -- --jobs", () => {
  it("splits a target's chunks over the child processes, each chunk once, and merges the counts", () => {
    // 5 chunks of 10: child 1 runs chunks 0, 2, 4 (30 cases), child 2 chunks 1, 3 (20 cases).
    const r = runFuzz(["--target", "consent-timing", "--runs", "50", "--chunk", "10", "--jobs", "2"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/consent-timing \[1\/2\]: done 30 cases/u);
    expect(r.stderr).toMatch(/consent-timing \[2\/2\]: done 20 cases/u);
    expect(r.stderr).toMatch(/consent-timing: 50 cases over 2 processes/u);
  }, 90_000);

  it("refuses --part without exactly one target", () => {
    const r = runFuzz(["--part", "0/2"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--part runs exactly one --target/u);
  }, 60_000);
});

describe("withinTime: the per-case bound of a fuzz target", () => {
  it("counts the CPU a case burns, not the time it waited", async () => {
    const { withinTime, FuzzFailure } = await import("./support.js");
    // Waiting 400 ms (a stopped or starved process) is within a 100 ms bound: no CPU is spent.
    const waited = withinTime(100, "waiting", () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400));
    expect(waited).toBe("timed-out");
    // Spinning for 300 ms of CPU is not.
    const spin = () => {
      const t0 = process.cpuUsage();
      while ((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000 < 300);
    };
    expect(() => withinTime(100, "spinning", spin)).toThrow(FuzzFailure);
    expect(() => withinTime(100, "spinning", spin)).toThrow(/spinning took \d+ ms of CPU, more than 100 ms/u);
  });
});

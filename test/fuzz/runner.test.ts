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

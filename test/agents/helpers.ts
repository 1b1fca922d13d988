// The real coding-agent CLIs, installed outside the lockfile by .ci/run (`npm i --no-save` into
// $POLAR_AGENTS_DIR, default .cache/agents): suites that run them are skipped by name when they are
// absent, and fail instead when POLAR_REQUIRE_AGENTS=1 (CI).
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const AGENTS_DIR = process.env.POLAR_AGENTS_DIR ?? join(ROOT, ".cache/agents");
export const POLAR = join(ROOT, "bin/polar.js");

export function agentBin(bin: string): string {
  return join(AGENTS_DIR, "node_modules/.bin", bin);
}

export function hasAgent(bin: string): boolean {
  return existsSync(agentBin(bin));
}

/** A suite needing the agent CLI `bin`: skipped by name without it, an error with POLAR_REQUIRE_AGENTS=1. */
export function describeAgent(bin: string, name: string, fn: () => void): void {
  if (hasAgent(bin)) {
    describe(name, fn);
    return;
  }
  const why = `needs the ${bin} CLI at ${agentBin(bin)} (set POLAR_AGENTS_DIR; .ci/run installs it)`;
  if (process.env.POLAR_REQUIRE_AGENTS === "1") throw new Error(`${why} (POLAR_REQUIRE_AGENTS=1)`);
  console.warn(`skipped: ${name} [${why}]`);
  describe(name, () => it.skipIf(true)(`${name} [${why}]`, () => {}));
}

export interface Workspace {
  repo: string;
  home: string;
  polarHome: string;
}

/** A real git repository with one commit, a fresh HOME and a fresh polar home. */
export function gitWorkspace(files: Record<string, string> = {}): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "polar-agent-")));
  const repo = join(base, "repo");
  const home = join(base, "home");
  const polarHome = join(base, "p");
  execFileSync("mkdir", ["-p", repo, home]);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  for (const [f, c] of Object.entries(files)) execFileSync("sh", ["-c", `mkdir -p "$(dirname "$1")" && printf '%s' "$2" > "$1"`, "sh", join(repo, f), c]);
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "init");
  return { repo, home, polarHome };
}

export function polar(ws: Workspace, args: string[], cwd = ws.repo): string {
  return execFileSync(process.execPath, [POLAR, ...args], { cwd, env: { ...process.env, HOME: ws.home, POLAR_HOME: ws.polarHome }, encoding: "utf8" });
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (the scripted API answers in this process). */
export function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    c.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => c.kill("SIGKILL"), opts.timeoutMs ?? 90_000);
    c.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export function stopDaemon(ws: Workspace): void {
  try {
    polar(ws, ["serve", "--stop"]);
  } catch {
    // not running
  }
}

export function daemonPid(ws: Workspace): number | null {
  try {
    return Number(readFileSync(join(ws.polarHome, "polar.pid"), "utf8").trim());
  } catch {
    return null;
  }
}

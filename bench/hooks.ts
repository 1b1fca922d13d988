// Coding-agent hooks, end to end as the agent runs them: one hook process per call, its stdin the
// agent's JSON, timed from spawn to exit (the agent's own cost of a hook). Three figures:
//   daemon       `bin/polar-hook claude-code` (sh + curl to the warm `polar serve`)
//   fresh        `node bin/polar.js hook claude-code --in-process` (the same verdict, a new process each call)
//   cold start   `polar serve` spawned until it answers on its socket
// Allow path: an MCP read-only call judged by the core guard (mcp-memory ontology), and a read-only
// shell command (`git status`) when the build has the shell guard. Needs `npm run build` (dist/).
// Run: `npx tsx bench/hooks.ts [--calls N] [--fresh N] [--json FILE]`.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/paths.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CALLS = opt("--calls", 300);
const FRESH = opt("--fresh", 40);
const COLD = opt("--cold", 8);
const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : null;

const home = mkdtempSync(join(os.tmpdir(), "polar-bench-hooks-"));
const repo = mkdtempSync(join(os.tmpdir(), "polar-bench-repo-"));
execFileSync("git", ["init", "-q"], { cwd: repo });
writeFileSync(join(home, "config.json"), JSON.stringify({ mcp: { memory: { ontology: join(ROOT, "ontologies/mcp-memory/memory.blob") } } }));
const env = { ...process.env, POLAR_HOME: home };
const polar = join(ROOT, "bin/polar.js");
const hookSh = join(ROOT, "bin/polar-hook");

function payload(tool: string, input: Record<string, unknown>, session = "bench"): string {
  return JSON.stringify({ session_id: session, transcript_path: "/dev/null", cwd: repo, permission_mode: "default", hook_event_name: "PreToolUse", tool_name: tool, tool_input: input, tool_use_id: "toolu_bench" });
}

function timeOne(cmd: string, argv: string[], input: string): { ms: number; stdout: string; status: number | null } {
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { input, env, encoding: "utf8" });
  return { ms: performance.now() - t0, stdout: r.stdout, status: r.status };
}

/** CPU time (user + system, ms) per call of the hook processes, from a bash loop's `times` (its
 * children's totals), plus the daemon's own CPU over the same calls from /proc: what an idle machine
 * would show, where wall time on a shared one also counts the time other processes held the cores. */
function cpuPerCall(argv: string[], input: string, n: number, daemonPid: number | null): { hook: number; daemon: number | null } {
  const file = join(home, "payload.json");
  writeFileSync(file, input);
  const procCpu = (pid: number): number => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks (100 Hz) → ms
  };
  const d0 = daemonPid === null ? 0 : procCpu(daemonPid);
  const script = `for i in $(seq ${n}); do "$@" < "${file}" > /dev/null 2>&1; done; times`;
  const r = spawnSync("bash", ["-c", script, "bash", ...argv], { env, encoding: "utf8" });
  const d1 = daemonPid === null ? 0 : procCpu(daemonPid);
  const line = r.stdout.trim().split("\n")[1] ?? "";
  const m = [...line.matchAll(/(\d+)m([\d.]+)s/gu)].map((x) => Number(x[1]) * 60_000 + Number(x[2]) * 1000);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return { hook: r2((m[0] + m[1]) / n), daemon: daemonPid === null ? null : r2((d1 - d0) / n) };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function summary(xs: number[]): { n: number; p50: number; p95: number; min: number } {
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: xs.length, p50: r(pct(xs, 50)), p95: r(pct(xs, 95)), min: r(Math.min(...xs)) };
}

async function coldStart(): Promise<number> {
  spawnSync(process.execPath, [polar, "serve", "--stop"], { env });
  const t0 = performance.now();
  const child = spawn(process.execPath, [polar, "serve"], { env, stdio: "ignore", detached: true });
  child.unref();
  for (;;) {
    const r = spawnSync("curl", ["-s", "--unix-socket", join(home, "polar.sock"), "http://polar/status"], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.includes("pid")) return performance.now() - t0;
    await new Promise((r2) => setTimeout(r2, 2));
  }
}

const cases: Array<{ id: string; input: string; expect: RegExp }> = [
  { id: "mcp-read (core guard, allow)", input: payload("mcp__memory__read_graph", {}), expect: /^\{\}$/u },
  { id: "mcp-delete (core guard, deny)", input: payload("mcp__memory__delete_entities", { entityNames: ["x"] }), expect: /"deny"/u },
  { id: "shell git status", input: payload("Bash", { command: "git status" }), expect: /./u },
];

const out: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(), calls: CALLS, fresh: FRESH };
const cold: number[] = [];
for (let i = 0; i < COLD; i++) cold.push(await coldStart());
out.coldStart = summary(cold);
console.log(`daemon cold start (spawn → answers): ${JSON.stringify(out.coldStart)} ms`);
for (const c of cases) {
  // Warm the session and the guard first.
  for (let i = 0; i < 5; i++) timeOne(hookSh, ["claude-code"], c.input);
  const daemon: number[] = [];
  let answer = "";
  for (let i = 0; i < CALLS; i++) {
    const r = timeOne(hookSh, ["claude-code"], c.input);
    if (r.status !== 0) throw new Error(`${c.id}: hook exit ${r.status}`);
    answer = r.stdout.trim();
    daemon.push(r.ms);
  }
  const fresh: number[] = [];
  let freshAnswer = "";
  for (let i = 0; i < FRESH; i++) {
    const r = timeOne(process.execPath, [polar, "hook", "claude-code", "--in-process"], c.input);
    freshAnswer = r.stdout.trim();
    fresh.push(r.ms);
  }
  const pid = Number(readFileSync(join(home, "polar.pid"), "utf8"));
  const cpu = { daemon: cpuPerCall([hookSh, "claude-code"], c.input, CALLS, pid), fresh: cpuPerCall([process.execPath, polar, "hook", "claude-code", "--in-process"], c.input, FRESH, null) };
  // The same verdict both ways (the approval id aside).
  const row = { daemon: summary(daemon), fresh: summary(fresh), cpuMsPerCall: cpu, answer: answer.slice(0, 160), sameAnswer: answer === freshAnswer };
  out[c.id] = row;
  console.log(`${c.id}: daemon ${JSON.stringify(row.daemon)} ms; fresh process ${JSON.stringify(row.fresh)} ms; CPU per call: hook processes ${cpu.daemon.hook} + daemon ${cpu.daemon.daemon} ms vs fresh ${cpu.fresh.hook} ms; same answer: ${row.sameAnswer}; answer ${row.answer}`);
}
spawnSync(process.execPath, [polar, "serve", "--stop"], { env });
if (jsonOut !== null) writeFileSync(jsonOut, JSON.stringify(out, null, 2) + "\n");

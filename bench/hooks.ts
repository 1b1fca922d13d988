// Coding-agent hooks, end to end as the agent runs them (issue 24): per hook call, from the moment the
// agent hands over its JSON to the moment it has polar's answer. Clients side by side:
//   command hook   `bin/polar-hook claude-code` (what `polar init` installs): one bash process per call,
//                  /dev/tcp to the warm `polar serve` on loopback, timed from spawn to exit
//   http hook      Claude Code's `http` hook type (`polar init claude-code --http`): a POST from the
//                  agent's own process to the daemon, no process at all (timed here from a Node client
//                  with a new connection per call, as the agent makes it)
//   fresh          `node bin/polar.js hook claude-code --in-process`: the same verdict in a new Node
//                  process per call (no daemon)
//   cold start     `polar serve` spawned until it answers
// CPU per call: the hook processes' user + system time (a bash loop's `times`) plus the daemon's own
// (/proc/PID/stat) over the same calls: what an idle machine would show as wall time.
// Needs `npm run build` (dist/). Run: `npx tsx bench/hooks.ts [--quick] [--calls N] [--fresh N] [--cold N] [--json FILE]`;
// `bench/run.ts` runs it as the job `hooks`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib/paths.js";

export interface HookBenchOptions {
  calls: number;
  fresh: number;
  cold: number;
  onProgress?: (label: string) => void;
}

interface Summary {
  n: number;
  p50: number;
  p95: number;
  min: number;
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

function summary(xs: number[]): Summary {
  return { n: xs.length, p50: r2(pct(xs, 50)), p95: r2(pct(xs, 95)), min: r2(Math.min(...xs)) };
}

function procCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks (100 Hz) → ms
}

function httpPost(port: number, path: string, token: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "POST", agent: false, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function statusOverSocket(sock: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: sock, path: "/status", method: "GET", timeout: 500 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200));
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

export async function measureHooks(o: HookBenchOptions): Promise<Record<string, unknown>> {
  const progress = o.onProgress ?? (() => {});
  const home = mkdtempSync(join(os.tmpdir(), "polar-bench-hooks-"));
  const repo = mkdtempSync(join(os.tmpdir(), "polar-bench-repo-"));
  const git = (...a: string[]) => spawnSync("git", a, { cwd: repo, stdio: "ignore" });
  git("init", "-q");
  writeFileSync(join(repo, "a.txt"), "a\n");
  git("add", "a.txt");
  git("-c", "user.email=bench@polar", "-c", "user.name=bench", "commit", "-qm", "init");
  writeFileSync(join(home, "config.json"), JSON.stringify({ mcp: { memory: { ontology: join(ROOT, "ontologies/mcp-memory/memory.blob") } } }));
  const env = { ...process.env, POLAR_HOME: home };
  const polar = join(ROOT, "bin/polar.js");
  const hookSh = join(ROOT, "bin/polar-hook");
  const sock = join(home, "polar.sock");
  // bin/polar.js loads dist/: say so rather than time an error.
  if (!existsSync(join(ROOT, "dist", "cli", "index.js"))) throw new Error("dist/ is not built (run `npm run build`)");
  const payload = (tool: string, input: Record<string, unknown>, session = "bench"): string =>
    JSON.stringify({ session_id: session, transcript_path: "/dev/null", cwd: repo, permission_mode: "default", hook_event_name: "PreToolUse", tool_name: tool, tool_input: input, tool_use_id: "toolu_bench" });
  const stop = () => spawnSync(process.execPath, [polar, "serve", "--stop"], { env, stdio: "ignore" });

  const startDaemon = async (): Promise<number> => {
    stop();
    const t0 = performance.now();
    const child = spawn(process.execPath, [polar, "serve"], { env, stdio: "ignore", detached: true });
    child.unref();
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      if (await statusOverSocket(sock)) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error("the daemon did not answer within 60 s");
  };

  const out: Record<string, unknown> = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown", loadavg: { start: os.loadavg() }, calls: o.calls, fresh: o.fresh };
  try {
    const cold: number[] = [];
    for (let i = 0; i < o.cold; i++) {
      progress(`cold start ${i + 1}/${o.cold}`);
      cold.push(await startDaemon());
    }
    out.coldStart = summary(cold);
    if (o.cold === 0) await startDaemon();
    const [portLine, token] = readFileSync(join(home, "polar.tcp"), "utf8").split("\n");
    const port = Number(portLine);
    const pid = Number(readFileSync(join(home, "polar.pid"), "utf8"));
    // The fresh processes keep a session (and audit log) of their own: one log has one writer.
    const both = (tool: string, input: Record<string, unknown>) => ({ input: payload(tool, input), freshInput: payload(tool, input, "bench-fresh") });
    const cases: Array<{ id: string; allow: boolean; input: string; freshInput: string }> = [
      { id: "mcp-read", allow: true, ...both("mcp__memory__read_graph", {}) },
      { id: "shell-git-status", allow: true, ...both("Bash", { command: "git status" }) },
      { id: "shell-reset-hard-clean", allow: true, ...both("Bash", { command: "git reset --hard" }) },
      { id: "mcp-delete", allow: false, ...both("mcp__memory__delete_entities", { entityNames: ["x"] }) },
    ];
    const rows: Record<string, unknown>[] = [];
    for (const c of cases) {
      progress(c.id);
      const file = join(home, `${c.id}.json`);
      writeFileSync(file, c.input);
      const run = (argv: string[], input = c.input) => {
        const t0 = performance.now();
        const r = spawnSync(argv[0], argv.slice(1), { input, env, encoding: "utf8" });
        return { ms: performance.now() - t0, stdout: r.stdout.trim(), stderr: r.stderr.trim(), status: r.status };
      };
      // Warm the session and the guard first.
      for (let i = 0; i < 5; i++) run([hookSh, "claude-code"]);
      const command: number[] = [];
      let commandAnswer = "";
      for (let i = 0; i < o.calls; i++) {
        const r = run([hookSh, "claude-code"]);
        if (r.status !== 0) throw new Error(`${c.id}: the command hook exited ${r.status}: ${r.stderr}`);
        commandAnswer = r.stdout;
        command.push(r.ms);
      }
      const http: number[] = [];
      let httpAnswer = "";
      for (let i = 0; i < o.calls; i++) {
        const t0 = performance.now();
        const r = await httpPost(port, "/http/claude-code", token, c.input);
        http.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`${c.id}: the http hook answered ${r.status}`);
        httpAnswer = r.body.trim();
      }
      const fresh: number[] = [];
      let freshAnswer = "";
      for (let i = 0; i < o.fresh; i++) {
        const r = run([process.execPath, polar, "hook", "claude-code", "--in-process"], c.freshInput);
        if (r.status !== 0) throw new Error(`${c.id}: the fresh process exited ${r.status}: ${r.stderr}`);
        freshAnswer = r.stdout;
        fresh.push(r.ms);
      }
      // CPU: the command hooks in a bash loop (its children's times) and the daemon over the same calls.
      const d0 = procCpuMs(pid);
      const loop = spawnSync("bash", ["-c", `for i in $(seq ${o.calls}); do "$@" < "${file}" > /dev/null 2>&1; done; times`, "bash", hookSh, "claude-code"], { env, encoding: "utf8" });
      const d1 = procCpuMs(pid);
      const times = [...(loop.stdout.trim().split("\n")[1] ?? "").matchAll(/(\d+)m([\d.]+)s/gu)].map((x) => Number(x[1]) * 60_000 + Number(x[2]) * 1000);
      const h0 = procCpuMs(pid);
      for (let i = 0; i < o.calls; i++) await httpPost(port, "/http/claude-code", token, c.input);
      const h1 = procCpuMs(pid);
      const row = {
        id: c.id,
        allow: c.allow,
        answer: commandAnswer.slice(0, 200),
        sameAnswer: commandAnswer === freshAnswer && commandAnswer === httpAnswer,
        command: summary(command),
        http: summary(http),
        fresh: summary(fresh),
        cpuMsPerCall: { commandHook: r2((times[0] + times[1]) / o.calls), daemonForCommand: r2((d1 - d0) / o.calls), daemonForHttp: r2((h1 - h0) / o.calls) },
      };
      if (!row.sameAnswer) throw new Error(`${c.id}: the answers differ: command ${commandAnswer} / http ${httpAnswer} / fresh ${freshAnswer}`);
      if (c.allow !== (commandAnswer === "{}")) throw new Error(`${c.id}: expected ${c.allow ? "allow" : "a refusal"}, got ${commandAnswer}`);
      rows.push(row);
    }
    out.cases = rows;
    (out.loadavg as Record<string, number[]>).end = os.loadavg();
    return out;
  } finally {
    stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const opt = (name: string, dflt: number): number => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const jsonOut = args.includes("--json") ? args[args.indexOf("--json") + 1] : null;
  const r = await measureHooks({ calls: opt("--calls", quick ? 10 : 300), fresh: opt("--fresh", quick ? 2 : 20), cold: opt("--cold", quick ? 1 : 8) });
  console.log(`daemon cold start (spawn → answers): ${JSON.stringify(r.coldStart)} ms; load ${JSON.stringify(r.loadavg)}`);
  for (const c of r.cases as Array<Record<string, unknown>>) {
    console.log(`${c.id}: command hook ${JSON.stringify(c.command)} ms; http hook ${JSON.stringify(c.http)} ms; fresh process ${JSON.stringify(c.fresh)} ms; CPU per call ${JSON.stringify(c.cpuMsPerCall)}; answer ${c.answer}`);
  }
  if (jsonOut !== null) writeFileSync(jsonOut, `${JSON.stringify(r, null, 2)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}

// The client of python/polar_tau2_bridge.py: one long-lived Python process per domain that runs
// τ²-bench's own environment code, spoken to in JSON lines over stdio. Node only (child_process).
// Every request has an id and a timeout; the process is killed on close(), on a timeout, and when
// this Node process exits, so no bridge outlives its parent.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BRIDGE_INSTALL = "pip install loguru docstring_parser deepdiff toml";

export type BridgeErrorCode =
  | "python-missing"
  | "missing-dependency"
  | "no-tau2"
  | "bad-data"
  | "load-failed"
  | "start-failed"
  | "timeout"
  | "exited"
  | "protocol"
  | "request-failed";

export class BridgeError extends Error {
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
    readonly help?: string,
    /** The Python error code for `request-failed` (`bad-request`, `no-snapshot`, `internal`, …). */
    readonly remoteCode?: string,
  ) {
    super(message);
    this.name = "BridgeError";
  }
}

export interface BridgeOptions {
  domain: string;
  /** The folder holding `domains/<domain>/` (τ²-bench's data/tau2): the env reads its db from it. */
  data: string;
  /** A τ²-bench checkout, its `src`, or the `tau2` package folder; default `$POLAR_TAU2_SRC`, else
   * the installed `tau2` package. */
  tau2Src?: string;
  /** Default `$POLAR_PYTHON`, else `python3`. */
  python?: string;
  solo?: boolean;
  /** Per request, default 60 s; start-up gets four times as long (importing pydantic models). */
  timeoutMs?: number;
  /** Extra environment for the Python process (tests: PYTHONPATH tricks). */
  env?: Record<string, string | undefined>;
}

export interface ToolOutput {
  content: string;
  error: boolean;
  mutating: boolean;
  changes?: StateChanges;
}

/** What a call changed: whole records (before/after, null when absent) and, for the small dbs the
 * bridge copies whole, every such field of a db that changed. */
export interface StateChanges {
  records: { path: [string, string, string]; before: unknown; after: unknown }[];
  whole: Record<string, Record<string, unknown>>;
}

export interface StateDiff {
  equal: boolean;
  count: number;
  /** Leaf differences: `path` = [db, field, key, …]; kind `changed`, `created` or `deleted`. */
  diffs: { path: (string | number)[]; before: unknown; after: unknown; kind: "changed" | "created" | "deleted" }[];
}

export interface ToolSignature {
  side: "assistant" | "user";
  mutating: boolean;
  params: { name: string; required: boolean }[];
}

export interface BridgeCall {
  name: string;
  arguments: Record<string, unknown>;
  requestor?: string;
  changes?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));

/** python/polar_tau2_bridge.py of this package (from src/tau2 or from dist). */
export function bridgeScript(): string {
  for (const rel of ["../../python/polar_tau2_bridge.py", "../python/polar_tau2_bridge.py"]) {
    const f = resolve(here, rel);
    if (existsSync(f)) return f;
  }
  throw new BridgeError("start-failed", "`python/polar_tau2_bridge.py` is not in the package");
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const live = new Set<ChildProcess>();
let exitHook = false;
function killAllOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const c of live) c.kill("SIGKILL");
  });
}

export class Tau2Bridge {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = "";
  private closed = false;
  private stderr = "";

  private constructor(
    private readonly child: ChildProcess,
    readonly info: { domain: string; tau2: string; addictStandIn: boolean; solo: boolean; python: string; initialSnapshot: number },
    private readonly timeoutMs: number,
  ) {}

  static async start(options: BridgeOptions): Promise<Tau2Bridge> {
    const python = options.python ?? process.env.POLAR_PYTHON ?? "python3";
    const args = [bridgeScript(), "--domain", options.domain, "--data", resolve(options.data)];
    const src = options.tau2Src ?? process.env.POLAR_TAU2_SRC;
    if (src) args.push("--tau2-src", resolve(src));
    if (options.solo) args.push("--solo");
    const timeoutMs = options.timeoutMs ?? 60_000;
    const child = spawn(python, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env, PYTHONUNBUFFERED: "1" } });
    killAllOnExit();
    live.add(child);
    child.once("exit", () => live.delete(child));
    return await new Promise<Tau2Bridge>((ok, fail) => {
      let settled = false;
      let out = "";
      let err = "";
      const finish = (e: Error | null, b?: Tau2Bridge): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        if (e) {
          child.kill("SIGKILL");
          fail(e);
        } else ok(b!);
      };
      const timer = setTimeout(() => finish(new BridgeError("timeout", `the bridge for \`${options.domain}\` did not start within ${(timeoutMs * 4) / 1000} s`)), timeoutMs * 4);
      const onData = (chunk: Buffer): void => {
        out += chunk.toString("utf8");
        const nl = out.indexOf("\n");
        if (nl < 0) return;
        const first = out.slice(0, nl);
        let msg: { ready?: boolean; error?: { code?: string; message?: string; module?: string } } & Record<string, unknown>;
        try {
          msg = JSON.parse(first);
        } catch {
          finish(new BridgeError("protocol", `the bridge wrote \`${first.slice(0, 200)}\` instead of its ready line`));
          return;
        }
        if (msg.ready !== true) {
          finish(startError(msg.error ?? {}));
          return;
        }
        const b = new Tau2Bridge(child, msg as never, timeoutMs);
        b.attach(out.slice(nl + 1));
        finish(null, b);
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", (c: Buffer) => {
        err = (err + c.toString("utf8")).slice(-4000);
      });
      child.once("error", (e: NodeJS.ErrnoException) => {
        finish(
          e.code === "ENOENT"
            ? new BridgeError("python-missing", `python \`${python}\` was not found`, "install Python 3.10+ or set POLAR_PYTHON to its path")
            : new BridgeError("start-failed", `cannot start \`${python}\`: ${e.message}`),
        );
      });
      child.once("exit", (code) => finish(new BridgeError("exited", `the bridge exited with code ${code} before it was ready${err ? `: ${lastLine(err)}` : ""}`)));
    });
  }

  private attach(rest: string): void {
    this.child.stdout!.on("data", (c: Buffer) => this.onData(c.toString("utf8")));
    this.child.stderr!.on("data", (c: Buffer) => {
      this.stderr = (this.stderr + c.toString("utf8")).slice(-4000);
    });
    this.child.once("exit", (code) => {
      this.closed = true;
      const e = new BridgeError("exited", `the bridge exited (code ${code})${this.stderr ? `: ${lastLine(this.stderr)}` : ""}`);
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(e);
      }
      this.pending.clear();
    });
    if (rest) this.onData(rest);
  }

  private onData(text: string): void {
    this.buffer += text;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() === "") continue;
      let msg: { id?: number; ok?: boolean; result?: unknown; error?: { code?: string; message?: string } };
      try {
        msg = JSON.parse(line);
      } catch {
        this.failAll(new BridgeError("protocol", `the bridge wrote a line that is not JSON: \`${line.slice(0, 200)}\``));
        return;
      }
      const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (!p) continue;
      this.pending.delete(msg.id!);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new BridgeError("request-failed", msg.error?.message ?? "the bridge refused the request", undefined, msg.error?.code));
    }
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
    this.close();
  }

  /** One request; rejects with a BridgeError (`request-failed` carries the Python side's code). */
  request<T>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    if (this.closed) return Promise.reject(new BridgeError("exited", "the bridge is closed"));
    const id = this.nextId++;
    return new Promise<T>((ok, fail) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        fail(new BridgeError("timeout", `the bridge did not answer \`${op}\` within ${this.timeoutMs / 1000} s`));
        this.close();
      }, this.timeoutMs);
      this.pending.set(id, { resolve: ok as (v: unknown) => void, reject: fail, timer });
      this.child.stdin!.write(JSON.stringify({ ...payload, id, op }) + "\n");
    });
  }

  /** Runs a tool call as τ²-bench does. With `recorded`, the arguments are the run's own, as Python
   * parsed them from the results file (loadResults): exact number types. */
  call(
    name: string,
    args: Record<string, unknown>,
    options: { requestor?: string; changes?: boolean; recorded?: { file: string; simulation: number; call: number } } = {},
  ): Promise<ToolOutput> {
    return this.request("call", { name, arguments: args, requestor: options.requestor ?? "assistant", changes: options.changes === true, recorded: options.recorded ?? null });
  }
  /** Reads a results file on the Python side (for `call`'s `recorded`); returns its tool-call count. */
  loadResults(file: string): Promise<number> {
    return this.request("results", { file: resolve(file) });
  }
  calls(calls: readonly BridgeCall[]): Promise<ToolOutput[]> {
    return this.request("calls", { calls: calls.map((c) => ({ ...c, requestor: c.requestor ?? "assistant" })) });
  }
  /** τ²-bench's own hashes (`get_db_hash`) of the db and, in telecom, the user db. */
  hash(): Promise<Record<string, string>> {
    return this.request("hash");
  }
  /** The canonical state: `model_dump()` of each db. */
  state(): Promise<Record<string, unknown>> {
    return this.request("state");
  }
  tools(): Promise<Record<string, ToolSignature>> {
    return this.request("tools");
  }
  snapshot(): Promise<number> {
    return this.request("snapshot");
  }
  /** Back to a snapshot's state; later snapshots are dropped, this one stays usable. */
  restore(snapshot: number): Promise<void> {
    return this.request("restore", { snapshot });
  }
  release(snapshot: number): Promise<void> {
    return this.request("release", { snapshot });
  }
  diff(snapshot: number, limit = 50): Promise<StateDiff> {
    return this.request("diff", { snapshot, limit });
  }
  /** The initial db again (every snapshot dropped). */
  reset(): Promise<void> {
    return this.request("reset");
  }
  setSolo(on: boolean): Promise<void> {
    return this.request("solo", { on });
  }
  /** A task's initial state: `initialization_data` merged as τ²-bench does, then its actions. */
  initialize(data: unknown, actions: readonly { env_type: string; func_name: string; arguments: Record<string, unknown> }[]): Promise<{ ok: boolean; error?: string }[]> {
    return this.request("initialize", { data, actions });
  }

  /** Ends the process (stdin closed, then killed if it lingers). Idempotent. */
  async close(): Promise<void> {
    if (this.closed && this.child.exitCode !== null) return;
    this.closed = true;
    const exited = new Promise<void>((r) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) r();
      else this.child.once("exit", () => r());
    });
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(t);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }
}

function startError(e: { code?: string; message?: string; module?: string }): BridgeError {
  const message = e.message ?? "the bridge did not start";
  switch (e.code) {
    case "missing-dependency":
      return new BridgeError("missing-dependency", message, `install τ²-bench's dependencies: \`${BRIDGE_INSTALL}\``);
    case "no-tau2":
      return new BridgeError("no-tau2", message, "pass --tau2-src with a τ²-bench checkout (or its src/), or install the `tau2` package");
    case "bad-data":
      return new BridgeError("bad-data", message);
    default:
      return new BridgeError("load-failed", message);
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1].slice(0, 300);
}

/** Where tests and CI find τ²-bench's environment code: `$POLAR_TAU2_SRC`, else ../shared/tau2-bench/src
 * beside the checkout. */
export function defaultTau2Src(root: string): string {
  return process.env.POLAR_TAU2_SRC ?? join(root, "..", "shared", "tau2-bench", "src");
}

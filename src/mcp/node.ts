// Node wiring of the MCP gateway: the upstream server as a stdio child (or a Streamable HTTP URL), the
// client side on stdio or Streamable HTTP on 127.0.0.1, the audit log file, signals and shutdown. The
// protocol logic is in gateway.ts; this file only connects pipes and owns processes.
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { isInitializeRequest, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { Transform, type Readable, type Writable } from "node:stream";
import { createGuard, type BackendFactory, type Guard } from "../guard/guard.js";
import type { Scope } from "../guard/config.js";
import { createJsonlSink } from "../audit/jsonl.js";
import { OUTCOME_FORMAT, type OutcomeSink } from "../audit/outcome.js";
import { EMPTY_HEAD, recordHash } from "../audit/chain.js";
import { splitJsonl } from "../audit/jsonl.js";
import { DECISION_FORMAT } from "../guard/decision.js";
import type { ChainHead } from "../audit/index.js";
import { decodeBlob } from "../blob/index.js";
import { instantiateCoreSync } from "../core/wasm.js";
import { parseProjectionRules } from "../projection/rules.js";
import { parseReadRules } from "../projection/reads.js";
import type { LayerB } from "../projection/layer-b.js";
import type { PolicyName } from "../policies/index.js";
import { createGateway, unsafeReadSteps, type DispatcherTool, type Gateway } from "./gateway.js";
import { VERSION } from "../version.js";
import { LockBusyError, LockError, takeFileLock, type FileLock } from "../util/file-lock.js";

export class GatewayStartError extends Error {
  constructor(readonly code: string, message: string, readonly help?: string) {
    super(message);
  }
}

export interface NodeGatewayOptions {
  /** The compiled ontology blob (a `.polar` source must be compiled by the caller). */
  ontology: Uint8Array;
  /** Projection rules JSON (already parsed). */
  rules: unknown;
  policy?: PolicyName;
  scope?: Scope;
  tau?: number;
  /** Append one JSONL decision record per judged call here. */
  auditLog?: string;
  /** Upstream server as a child process: command and arguments. */
  command?: string[];
  /** Upstream server over Streamable HTTP. */
  upstreamUrl?: string;
  /** Serve the client over Streamable HTTP on this host:port (127.0.0.1 only) instead of stdio. */
  listen?: { host: string; port: number };
  /** Where the gateway's own messages go (default process.stderr). */
  log?: (line: string) => void;
  /** Extra environment for the child, over the gateway's own (servers are configured by environment,
   * e.g. server-memory's MEMORY_FILE_PATH, so the child inherits it). */
  env?: Record<string, string>;
  cwd?: string;
  /** --listen: client sessions open at once (default 16); an initialize past it gets HTTP 503. */
  maxSessions?: number;
  /** --listen: a session without a request for this long is closed, seconds (default 1800). */
  sessionIdleSeconds?: number;
  /** --listen: browser origins served besides the gateway's own (e.g. `http://localhost:6274` for
   * the MCP Inspector); any other Origin is refused (403). */
  allowedOrigins?: string[];
  /** Dispatcher tools (docs/sql.md): each call's string argument is judged by its dispatcher. */
  dispatchers?: ReadonlyMap<string, DispatcherTool>;
}

export interface RunningGateway {
  /** Set when listening: the bound port (useful with port 0). */
  port: number | null;
  /** Resolves with the exit code once the gateway has shut down (client gone, signal, server crash). */
  done: Promise<number>;
  /** Shuts down: client connections, the upstream (its child process is terminated), the audit log. */
  close(code?: number): Promise<number>;
  /** Client sessions open now, and built since the start (each built one has its own guard). */
  sessions(): { open: number; built: number };
}

const CORE_FILES = ["../polar-core.wasm", "./polar-core.wasm", "../../build/polar-core.wasm", "../../../build/polar-core.wasm"];

/** The WebAssembly core beside the bundle (or the build folder from a checkout); null: use the reference. */
function wasmBackend(): BackendFactory | undefined {
  for (const rel of CORE_FILES) {
    const file = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(file)) {
      const module = new WebAssembly.Module(readFileSync(file));
      return (_tables, blob) => instantiateCoreSync(module).load(blob!);
    }
  }
  return undefined;
}

function inheritedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === "string") out[k] = v;
  return out;
}

const nodeSha256 = (data: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(data).digest());

export async function startGateway(options: NodeGatewayOptions): Promise<RunningGateway> {
  // Who started us, taken first: the launcher may die while the upstream server is still starting.
  const parent = process.ppid;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if ((options.command === undefined || options.command.length === 0) === (options.upstreamUrl === undefined)) {
    throw new GatewayStartError("bad-upstream", "give exactly one upstream: a server command after `--`, or `--upstream URL`");
  }
  if (options.listen !== undefined && options.listen.host !== "127.0.0.1" && options.listen.host !== "localhost" && options.listen.host !== "::1") {
    throw new GatewayStartError("bad-listen", `\`--listen\` binds loopback only, got \`${options.listen.host}\``, "use 127.0.0.1:PORT; put a reverse proxy with authentication in front for anything else");
  }
  let tables: ReturnType<typeof decodeBlob>;
  try {
    tables = decodeBlob(options.ontology);
  } catch (e) {
    throw new GatewayStartError("bad-ontology", `the ontology blob is refused: ${e instanceof Error ? e.message : String(e)}`);
  }
  const rules = parseProjectionRules(options.rules);
  const reads = parseReadRules(rules);
  const unsafe = unsafeReadSteps(reads, tables);
  if (unsafe.length > 0) {
    throw new GatewayStartError("unsafe-reads", `read steps name tools the ontology does not declare read-only: ${unsafe.map((u) => `\`${u}\``).join(", ")}`, "a read before judging must not change anything: declare the tool in `read_only(...)` or read with another tool");
  }
  // A dispatcher tool does what its string says: it can never be a read before judging.
  const dispatchedReads = [...reads].flatMap(([tool, rule]) => rule.steps.filter((st) => options.dispatchers?.has(st.tool)).map((st) => `${tool} → ${st.tool}`));
  if (dispatchedReads.length > 0) {
    throw new GatewayStartError("unsafe-reads", `read steps name dispatcher tools: ${dispatchedReads.map((u) => `\`${u}\``).join(", ")}`, "a read before judging must not change anything: read with a tool that takes no SQL or shell string");
  }
  // The audit log: one writer per file. `FILE.lock` (the gateway's pid) is held while it runs, so a
  // second gateway on the same file is refused (`audit-log-busy`) instead of forking its chain. Over
  // stdio the one session appends to FILE; with --listen every client session writes its own chain to
  // `<FILE without .jsonl>.session-N.jsonl` (a guard numbers its decisions from 1, so two sessions in
  // one file would interleave two numberings).
  let audit: AuditFiles | null = null;
  if (options.auditLog !== undefined) audit = openAuditLog(options.auditLog, options.listen !== undefined);
  const backend = wasmBackend();

  // ---- upstream
  const upstream = new Client({ name: "polar-guard-mcp", version: VERSION });
  let stderrTail = "";
  let transport: StdioClientTransport | StreamableHTTPClientTransport;
  const what = options.command ? `\`${options.command.map((a) => basename(a)).join(" ")}\`` : `\`${options.upstreamUrl}\``;
  if (options.command) {
    const [command, ...args] = options.command;
    const stdio = new StdioClientTransport({ command, args, env: { ...inheritedEnv(), ...(options.env ?? {}) }, cwd: options.cwd, stderr: "pipe" });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    transport = stdio;
  } else {
    let url: URL;
    try {
      url = new URL(options.upstreamUrl!);
    } catch {
      throw new GatewayStartError("bad-upstream", `\`${options.upstreamUrl}\` is not a URL`);
    }
    transport = new StreamableHTTPClientTransport(url);
  }
  try {
    await upstream.connect(transport);
  } catch (e) {
    await transport.close().catch(() => {});
    const tail = stderrTail.trim();
    throw new GatewayStartError("upstream-failed", `the MCP server ${what} did not start: ${e instanceof Error ? e.message : String(e)}${tail ? `\n${tail}` : ""}`);
  }

  const sinks = new WeakMap<Guard, OutcomeSink>();
  let built = 0;
  const gateway: Gateway = createGateway({
    upstream,
    rules,
    reads,
    createGuard: (state: LayerB): Guard => {
      built++;
      const sink = audit?.sink();
      const guard = createGuard({
        ontology: options.ontology,
        backend,
        state,
        policy: options.policy ?? "veto",
        scope: options.scope ?? "turn",
        config: { projection: rules, log: sink, sha256: nodeSha256, tau: options.tau },
      });
      if (sink !== undefined) sinks.set(guard, sink);
      return guard;
    },
    dispatchers: options.dispatchers,
    recordOutcome: (guard, record) => {
      try {
        sinks.get(guard)?.outcome(record);
      } catch (e) {
        log(`polar mcp: error[audit-write]: the outcome of ${record.execution} (${record.outcome}) could not be written: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  });

  // ---- lifecycle
  let closing = false;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const servers = new Set<Server>();
  let http: HttpServer | null = null;
  let sweepTimer: ReturnType<typeof setInterval> | null = null;
  let parentWatch: ReturnType<typeof setInterval> | null = null;
  const onSignal = (): void => void close(0);

  async function close(code = 0): Promise<number> {
    if (closing) return done;
    closing = true;
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    process.off("SIGHUP", onSignal);
    if (parentWatch !== null) clearInterval(parentWatch);
    for (const s of servers) await s.close().catch(() => {});
    if (sweepTimer !== null) clearInterval(sweepTimer);
    if (http !== null) await new Promise<void>((r) => http!.close(() => r()));
    // Closing the client transport ends the child's stdin, then SIGTERM, then SIGKILL (the SDK's order).
    await upstream.close().catch(() => {});
    for (const d of new Set(options.dispatchers?.values() ?? [])) await Promise.resolve(d.close?.()).catch(() => {});
    audit?.close();
    resolveDone(code);
    return done;
  }

  upstream.onclose = () => {
    if (closing) return;
    const tail = stderrTail.trim().split("\n").slice(-5).join("\n");
    const reason = `${what} closed the connection (it exited or crashed)${tail ? `; its last output: ${tail}` : ""}`;
    gateway.upstreamClosed(reason);
    log(`polar mcp: error[upstream-exited]: the MCP server ${reason}`);
    // On stdio the client cannot be served any more: answer what is in flight (errors), then exit 1.
    // Over HTTP the sessions stay up and answer every request with the error until shut down.
    if (options.listen === undefined) setTimeout(() => void close(1), 50).unref();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // The terminal or the client went away.
  process.on("SIGHUP", onSignal);

  // ---- client side
  if (options.listen === undefined) {
    const server = gateway.session();
    servers.add(server);
    const stdio = new StdioServerTransport(checkedLines(process.stdin, process.stdout), process.stdout);
    // The client closing stdin is a disconnect: shut down (and take the child along).
    process.stdin.once("end", () => void close(0));
    // A launcher that shares its stdin with us (`npx polar mcp`) can die while the client keeps the
    // pipe open: then our parent changes (re-parented to init or a subreaper). Shut down, and take
    // the server along, rather than run on unowned.
    parentWatch = setInterval(() => {
      if (process.ppid !== parent) {
        log("polar mcp: the process that started the gateway is gone; shutting down");
        void close(0);
      }
    }, 500);
    parentWatch.unref();
    await server.connect(stdio);
    const sessionClosed = server.onclose;
    server.onclose = () => {
      sessionClosed?.();
      void close(0);
    };
    return { port: null, done, close, sessions: () => ({ open: servers.size, built }) };
  }

  // Sessions, bounded and expired. A request that opens a session is checked in full (host, origin,
  // media types, an initialize body, the bound) before anything is built: a refused request costs
  // no guard, no Layer B, no transport.
  const maxSessions = options.maxSessions ?? 16;
  const idleMs = (options.sessionIdleSeconds ?? 1800) * 1000;
  const open = new Map<string, { transport: StreamableHTTPServerTransport; server: Server; seen: number }>();
  let building = 0;
  const { host, port } = options.listen;
  http = createServer((req, res) => void handleHttp(req, res));
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of open) {
      if (now - s.seen > idleMs) {
        open.delete(id);
        log(`polar mcp: session ${id} closed after ${Math.round(idleMs / 1000)} s without a request`);
        void s.transport.close().catch(() => {});
      }
    }
  }, Math.max(250, Math.min(60_000, Math.floor(idleMs / 4))));
  sweep.unref();
  sweepTimer = sweep;
  const sendError = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
  };
  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = (req.url ?? "/").split("?")[0];
      if (path !== "/mcp") {
        sendError(res, 404, -32000, `no MCP endpoint at \`${path}\`: use /mcp`);
        return;
      }
      const bound = (http!.address() as { port: number }).port;
      const refusal = requestRefusal(req, bound, options.allowedOrigins);
      if (refusal !== null) {
        sendError(res, refusal.status, -32000, refusal.message);
        return;
      }
      const sid = req.headers["mcp-session-id"];
      const existing = typeof sid === "string" ? open.get(sid) : undefined;
      if (existing) {
        existing.seen = Date.now();
        await existing.transport.handleRequest(req, res);
        return;
      }
      if (typeof sid === "string") {
        sendError(res, 404, -32000, "unknown session (it may have expired): send initialize again");
        return;
      }
      if (req.method !== "POST") {
        sendError(res, 400, -32000, "no valid session: send initialize first");
        return;
      }
      const media = newSessionRefusal(req);
      if (media !== null) {
        sendError(res, media.status, -32000, media.message);
        return;
      }
      if (open.size + building >= maxSessions) {
        sendError(res, 503, -32000, `too many open sessions (${maxSessions}): close one, or wait for an idle one to expire`, { "retry-after": "30" });
        return;
      }
      const body = await readBody(req);
      if (body === undefined) {
        sendError(res, 400, -32700, "parse error: the body is not JSON");
        return;
      }
      if (!isInitializeRequest(body)) {
        sendError(res, 400, -32000, "no valid session: send initialize first");
        return;
      }
      if (open.size + building >= maxSessions) {
        sendError(res, 503, -32000, `too many open sessions (${maxSessions}): close one, or wait for an idle one to expire`, { "retry-after": "30" });
        return;
      }
      building++;
      let server: Server | null = null;
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableDnsRebindingProtection: true,
        allowedHosts: [`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`],
        onsessioninitialized: (id) => void open.set(id, { transport: t, server: server!, seen: Date.now() }),
      });
      try {
        server = gateway.session();
        servers.add(server);
        const built = server;
        t.onclose = () => {
          if (t.sessionId) open.delete(t.sessionId);
          servers.delete(built);
        };
        await server.connect(t);
        await t.handleRequest(req, res, body);
      } finally {
        building--;
      }
      // The transport answered without opening a session (it refused the request): drop what was built.
      if (t.sessionId === undefined || !open.has(t.sessionId)) {
        servers.delete(server);
        await server.close().catch(() => {});
      }
    } catch (e) {
      if (!res.headersSent) sendError(res, 500, -32603, `internal error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  await new Promise<void>((resolve, reject) => {
    http!.once("error", reject);
    http!.listen(port, host, () => resolve());
  }).catch(async (e) => {
    await close(1);
    throw new GatewayStartError("listen-failed", `cannot listen on ${host}:${port}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  });
  const bound = (http.address() as { port: number }).port;
  log(`polar mcp: serving MCP (Streamable HTTP) on http://${host}:${bound}/mcp in front of ${what}`);
  return { port: bound, done, close, sessions: () => ({ open: open.size, built }) };
}

/** The client's stdin, line by line: a line that is not JSON gets a JSON-RPC parse error (-32700), one
 * that is not a JSON-RPC message an invalid-request error (-32600), both answered here and dropped
 * (the SDK's stdio transport would only report them locally, leaving the client without an answer). */
export function checkedLines(input: Readable, output: Writable): Readable {
  let buf = "";
  const reply = (id: unknown, code: number, message: string): void => {
    output.write(`${JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error: { code, message } })}\n`);
  };
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      buf += chunk.toString("utf8");
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, "");
        buf = buf.slice(nl + 1);
        if (line.trim() === "") continue;
        let msg: unknown;
        try {
          msg = JSON.parse(line);
        } catch {
          reply(null, -32700, "parse error: the line is not JSON");
          continue;
        }
        if (!JSONRPCMessageSchema.safeParse(msg).success) {
          reply((msg as { id?: unknown } | null)?.id, -32600, "invalid request: not a JSON-RPC 2.0 message");
          continue;
        }
        this.push(`${line}\n`);
      }
      done();
    },
  });
  input.pipe(t);
  input.once("end", () => t.end());
  return t;
}

/** Every request: the Host must be the loopback address it was sent to (DNS rebinding), and an Origin,
 * when a browser sends one, the same (a cross-site page's request is refused, not served). */
export function requestRefusal(req: IncomingMessage, port: number, allowedOrigins: readonly string[] = []): { status: number; message: string } | null {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const host = req.headers.host;
  if (typeof host !== "string" || !hosts.includes(host.toLowerCase())) return { status: 403, message: `forbidden: Host \`${String(host)}\` is not this gateway's loopback address` };
  const origin = req.headers.origin;
  if (origin !== undefined && ![...hosts.map((h) => `http://${h}`), ...allowedOrigins.map((o) => o.toLowerCase())].includes(String(origin).toLowerCase())) {
    return { status: 403, message: `forbidden: requests from origin \`${String(origin)}\` are not served` };
  }
  return null;
}

/** A request that would open a session: JSON in, JSON or an event stream out (what the transport
 * requires; checked first so a refused request builds nothing). */
export function newSessionRefusal(req: IncomingMessage): { status: number; message: string } | null {
  const type = String(req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") return { status: 415, message: "unsupported media type: the body must be `application/json`" };
  const accept = String(req.headers.accept ?? "").toLowerCase();
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return { status: 406, message: "not acceptable: the client must accept both `application/json` and `text/event-stream`" };
  }
  return null;
}

const MAX_BODY = 4 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        req.destroy();
        resolve(undefined);
      } else chunks.push(c);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        resolve(undefined);
      }
    });
    req.on("error", () => resolve(undefined));
  });
}

interface AuditFiles {
  /** The sink for a new session (its own file with --listen, lazily created; the one file on stdio). */
  sink(): ReturnType<typeof createJsonlSink>;
  /** Closes the files and removes the lock. */
  close(): void;
}

const auditSha256 = (d: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(d).digest());

/** Takes `FILE.lock` (src/util/file-lock.ts: the pid, created exclusively; a dead pid's lock is taken over). */
function takeLock(file: string): FileLock {
  try {
    return takeFileLock(`${file}.lock`);
  } catch (e) {
    if (e instanceof LockBusyError) {
      throw new GatewayStartError("audit-log-busy", `the audit log \`${file}\` is being written by another gateway (pid ${e.holder ?? "unknown"}, lock \`${e.lock}\`)`, "give each gateway its own --audit-log file; a log has one writer, so its chain stays one chain");
    }
    if (e instanceof LockError) throw new GatewayStartError("bad-audit-log", `cannot create the audit log's lock \`${e.lock}\`: ${e.errno}`);
    throw e;
  }
}

function openAppend(file: string): { fd: number; from: ChainHead | undefined } {
  let from: ChainHead | undefined;
  try {
    // Appending to an existing log continues its hash chain (docs/guard.md, "The decision record").
    if (existsSync(file)) from = appendHead(readFileSync(file, "utf8"));
  } catch (e) {
    throw new GatewayStartError("bad-audit-log", `the audit log \`${file}\` cannot be continued: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return { fd: openSync(file, "a"), from };
  } catch (e) {
    throw new GatewayStartError("bad-audit-log", `cannot open the audit log \`${file}\`: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** Where appending continues a log's chain: its last line, a decision or an outcome record (the
 * gateway writes an outcome after every approved call) at its place in the chain. */
function appendHead(text: string): ChainHead {
  const lines = splitJsonl(text);
  if (lines.length === 0) return { ...EMPTY_HEAD };
  const last = JSON.parse(lines[lines.length - 1].text) as { format?: unknown; chain?: { index?: unknown } } | null;
  if ((last?.format !== DECISION_FORMAT && last?.format !== OUTCOME_FORMAT) || last.chain?.index !== lines.length) {
    throw new Error(`its last line is not a decision or outcome record at place ${lines.length} of the chain`);
  }
  return { index: lines.length, hash: recordHash(last, auditSha256) };
}

/** The per-session file names of `--listen`: `<FILE without .jsonl>.session-N.jsonl`. */
export function sessionLogName(file: string, n: number): string {
  return `${file.replace(/\.jsonl$/u, "")}.session-${n}.jsonl`;
}

function openAuditLog(file: string, perSession: boolean): AuditFiles {
  const lock = takeLock(file);
  const fds: number[] = [];
  try {
    if (!perSession) {
      const { fd, from } = openAppend(file);
      fds.push(fd);
      const sink = createJsonlSink((line) => writeSync(fd, line), { from, sha256: auditSha256 });
      return { sink: () => sink, close: () => closeAll() };
    }
  } catch (e) {
    lock.release();
    throw e;
  }
  let n = 0;
  function closeAll(): void {
    for (const fd of fds.splice(0)) closeSync(fd);
    lock.release();
  }
  return {
    sink() {
      // Created on the session's first record, as a new file (never appended to another run's).
      let fd: number | null = null;
      return createJsonlSink((line) => {
        if (fd === null) {
          for (;;) {
            const name = sessionLogName(file, ++n);
            try {
              fd = openSync(name, "wx");
              break;
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
            }
          }
          fds.push(fd);
        }
        writeSync(fd, line);
      }, { sha256: auditSha256 });
    },
    close: () => closeAll(),
  };
}

// `polar serve`: one daemon per user on a Unix socket in the user's polar home (a 0700 directory; the
// socket is 0600): nothing listens beyond the machine, nor for other users. HTTP over the socket so
// that `curl --unix-socket` (bin/polar-hook) can be the fast client. Routes:
//   POST /hook/<agent>   body: the agent's stdin → 200 with the agent's stdout, or 422 with the
//                        refusal (exit 2 + stderr for the agent)
//   POST /approve/<id>   `polar approve ID` → 200, or 404 for an unknown id
//   GET  /status         { pid, sessions, version }
//   POST /shutdown       stops the daemon
// And on loopback TCP (127.0.0.1 only), for clients without Unix sockets: bin/polar-hook (bash's
// /dev/tcp, no process besides bash) and Claude Code's `http` hook type. Every request there carries
// `Authorization: Bearer <token>`, the token in `<home>/polar.tcp` (0600, beside the port); without it:
// refused. Only the hook routes are served there:
//   POST /hook/<agent>   as above
//   POST /http/<agent>   the same for an `http` hook: every refusal is a 200 with the agent's deny JSON
//                        (an http hook reads a non-2xx status as a non-blocking error, i.e. "run it")
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { homedir } from "node:os";
import { VERSION } from "../version.js";
import { eventNames, formatAnswer, isAgent, type Agent } from "./agents.js";
import type { HookEngine } from "./engine.js";
import { LockBusyError, takeFileLock, type FileLock } from "../util/file-lock.js";

/** Largest request body (a Write's content rides in it). Over it: refused. */
export const MAX_BODY = 16 * 1024 * 1024;

export function polarHome(env: NodeJS.ProcessEnv = process.env): string {
  const h = env.POLAR_HOME;
  return h !== undefined && h !== "" ? h : join(homedir(), ".polar");
}

/** The shell guard's store under a polar home (`~/.polar/store`): the hooks' daemon keeps its restore
 * points and undo journals there, and `polar undo` reads it when no `--store` is given. */
export function shellStorePath(home: string): string {
  return join(home, "store");
}

export function socketPath(home: string): string {
  return join(home, "polar.sock");
}

/** `<home>/serve.lock`: the running daemon's pid. One daemon per polar home: a second one does not
 * start beside it (two daemons would each hold a session's chain and fork its log). */
export function serveLockPath(home: string): string {
  return join(home, "serve.lock");
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Does a daemon answer on this socket? Its whole status within `timeoutMs` (a daemon that trickles it,
 * or hangs up in the middle of it, is none), on a connection of its own: a long-lived process (OpenCode's
 * plugin) never asks over a pooled connection to a daemon that has stopped since. */
export function ping(socket: string, timeoutMs = 1000): Promise<{ pid: number; sessions: number; version: string } | null> {
  return new Promise((resolve) => {
    // The first of these resolves; the rest are no-ops.
    const timer = setTimeout(() => {
      req.destroy();
      resolve(null);
    }, timeoutMs);
    const done = (v: { pid: number; sessions: number; version: string } | null): void => {
      clearTimeout(timer);
      resolve(v);
    };
    const req = request({ socketPath: socket, path: "/status", agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => {
        try {
          done(res.statusCode === 200 ? (JSON.parse(body) as { pid: number; sessions: number; version: string }) : null);
        } catch {
          done(null);
        }
      });
      // Cut in the middle (no "end"): null at once.
      res.on("close", () => done(null));
    });
    req.on("error", () => done(null));
    req.end();
  });
}

export interface RunningServer {
  socket: string;
  server: Server;
  close(): Promise<void>;
}

/** Where the daemon's loopback TCP port and token are: `<home>/polar.tcp`, two lines (port, token),
 * 0600. Kept when the daemon stops: the next daemon listens on the same port with the same token, so
 * an `http` hook written by `polar init claude-code --http` stays valid. */
export function tcpFile(home: string): string {
  return join(home, "polar.tcp");
}

export interface TcpEndpoint {
  port: number;
  token: string;
}

/** The recorded port and token, or null when there is none or it is not well formed. */
export function readTcpEndpoint(home: string): TcpEndpoint | null {
  try {
    const [port, token] = readFileSync(tcpFile(home), "utf8").split("\n");
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1 || n > 65535 || !/^[0-9a-f]{64}$/u.test(String(token))) return null;
    return { port: n, token };
  } catch {
    return null;
  }
}

export function writeTcpEndpoint(home: string, ep: TcpEndpoint): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const tmp = `${tcpFile(home)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${ep.port}\n${ep.token}\n`, { mode: 0o600 });
  renameSync(tmp, tcpFile(home));
}

/** The recorded endpoint, or a new token and a free loopback port, recorded (`polar init --http`
 * writes the port into the agent's settings before any daemon ran). */
export async function ensureTcpEndpoint(home: string): Promise<TcpEndpoint> {
  const have = readTcpEndpoint(home);
  if (have !== null) return have;
  const probe = createServer();
  const port = await new Promise<number>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => resolve((probe.address() as AddressInfo).port));
  });
  await new Promise<void>((r) => probe.close(() => r()));
  const ep = { port, token: randomBytes(32).toString("hex") };
  writeTcpEndpoint(home, ep);
  return ep;
}

/** Every answer with its length: a client reading to the end of the connection (bin/polar-hook) tells a
 * whole answer from a cut one. */
function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
}

function tokenMatches(header: string | undefined, token: Buffer): boolean {
  if (header === undefined || !header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7)); // utf8, the default
  return given.length === token.length && timingSafeEqual(given, token);
}

/** A post-tool or session-start event of this agent; anything else (text that is not JSON included) is
 * answered as a pre-tool call. */
function afterOrStart(agent: Agent, text: string): boolean {
  try {
    const name = (JSON.parse(text) as { hook_event_name?: unknown }).hook_event_name;
    return name === eventNames(agent).post || name === eventNames(agent).start;
  } catch {
    return false;
  }
}

export interface RunningServer {
  socket: string;
  server: Server;
  /** The loopback TCP listener (null when it could not listen: the Unix socket still serves). */
  tcp: { server: Server; port: number } | null;
  close(): Promise<void>;
}

/** Listens on `<home>/polar.sock` and on 127.0.0.1 (the port recorded in `<home>/polar.tcp`, or a free
 * one when that is taken). Another live daemon on this home (its `serve.lock`, or one that answers on
 * the socket): null (one per user). A stale socket file (no one answers) is replaced. The daemon's
 * close() lets go of the engine's sessions (their logs' locks) and of `serve.lock`. */
export async function startServer(engine: HookEngine, home: string): Promise<RunningServer | null> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  const socket = socketPath(home);
  let daemonLock: FileLock;
  try {
    daemonLock = takeFileLock(serveLockPath(home));
  } catch (e) {
    if (e instanceof LockBusyError) return null;
    throw e;
  }
  try {
    if (existsSync(socket)) {
      if ((await ping(socket)) !== null) {
        daemonLock.release();
        return null;
      }
      unlinkSync(socket);
    }
  } catch (e) {
    daemonLock.release();
    throw e;
  }
  let closing: Promise<void> | null = null;
  const servers: Server[] = [];
  const hookRoute = async (req: IncomingMessage, res: ServerResponse, agent: Agent, http: boolean): Promise<void> => {
    const body = await readBody(req);
    const refuse = (reason: string): void => {
      if (!http) {
        sendText(res, 422, `polar: ${reason}\n`);
        return;
      }
      // An http hook: a non-2xx is a non-blocking error (the call would run). The refusal as JSON.
      const out = body !== null && afterOrStart(agent, body) ? `${JSON.stringify({ decision: "block", reason })}\n` : formatAnswer(agent, "pre", { action: "deny", reason }).stdout;
      sendJson(res, 200, out);
    };
    if (body === null) return refuse(`refused: the hook payload is over ${MAX_BODY} bytes`);
    const out = await engine.handle(agent, body);
    if (out.exitCode === 0) sendJson(res, 200, out.stdout);
    else refuse(out.stderr.replace(/^polar: /u, "").trimEnd());
  };
  // `token`: the loopback listener's (every request must carry it); null for the Unix socket.
  const handler =
    (token: Buffer | null): RequestListener =>
    (req, res) => {
      void (async () => {
        const url = req.url!; // always set on a server's request
        const http = url.startsWith("/http/");
        try {
          if (token !== null) {
            const hook = /^\/(hook|http)\/([a-z-]+)$/u.exec(url);
            if (req.method !== "POST" || hook === null || !isAgent(hook[2])) {
              sendText(res, 404, "polar: unknown route\n");
              return;
            }
            if (!tokenMatches(req.headers.authorization, token)) {
              // Drained first, so the client reads the refusal rather than a reset connection.
              req.resume();
              if (http) sendJson(res, 200, formatAnswer(hook[2], "pre", { action: "deny", reason: "refused: the hook's token does not match the polar daemon's (run `polar init` again)" }).stdout);
              else sendText(res, 401, "polar: refused: the hook's token does not match the polar daemon's\n");
              return;
            }
            await hookRoute(req, res, hook[2], hook[1] === "http");
            return;
          }
          if (req.method === "GET" && url === "/status") {
            sendJson(res, 200, JSON.stringify({ pid: process.pid, sessions: engine.sessionCount(), version: VERSION }));
            return;
          }
          if (req.method === "POST" && url === "/shutdown") {
            sendText(res, 200, "stopping\n");
            void close();
            return;
          }
          const approve = /^\/approve\/([0-9a-f]{8})$/u.exec(url);
          if (req.method === "POST" && approve !== null) {
            const ok = engine.approve(approve[1]);
            sendText(res, ok ? 200 : 404, ok ? "approved\n" : "unknown approval id\n");
            return;
          }
          const hook = /^\/(hook|http)\/([a-z-]+)$/u.exec(url);
          if (req.method === "POST" && hook !== null && isAgent(hook[2])) {
            await hookRoute(req, res, hook[2], hook[1] === "http");
            return;
          }
          sendText(res, 404, "polar: unknown route\n");
        } catch (e) {
          // Never a 200 allow here: the client refuses on anything else.
          const reason = `refused: the daemon failed (${e instanceof Error ? e.message : String(e)})`;
          if (!res.headersSent) {
            if (http) {
              sendJson(res, 200, formatAnswer("claude-code", "pre", { action: "deny", reason }).stdout);
              return;
            }
            res.writeHead(500);
          }
          res.end(`polar: ${reason}\n`);
        }
      })();
    };
  const server = createServer(handler(null));
  servers.push(server);
  const close = (): Promise<void> => {
    closing ??= Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    ).then(() => {
      engine.close();
      daemonLock.release();
    });
    return closing;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => resolve());
    });
    // The socket is the user's alone (0600). It lives in the home made 0700 above, so no other user
    // reaches it before this. (Not by process.umask: that is process-wide, and a worker thread cannot set it.)
    chmodSync(socket, 0o600);
  } catch (e) {
    server.close();
    daemonLock.release();
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") return null; // another daemon won the race
    throw e;
  }
  writeFileSync(join(home, "polar.pid"), `${process.pid}\n`, { mode: 0o600 });
  const tcp = await listenTcp(home, handler);
  if (tcp !== null) servers.push(tcp.server);
  return { socket, server, tcp: tcp === null ? null : { server: tcp.server, port: tcp.port }, close };
}

/** The loopback listener: the recorded port (and token) when it is free, else a free port, recorded. */
async function listenTcp(home: string, handler: (token: Buffer) => RequestListener): Promise<{ server: Server; port: number } | null> {
  const have = readTcpEndpoint(home);
  const token = have?.token ?? randomBytes(32).toString("hex");
  const tryPort = (port: number): Promise<Server | null> =>
    new Promise((resolve) => {
      const s = createServer(handler(Buffer.from(token)));
      s.keepAliveTimeout = 5000;
      s.once("error", () => resolve(null));
      s.listen(port, "127.0.0.1", () => resolve(s));
    });
  let s = have === null ? null : await tryPort(have.port);
  s ??= await tryPort(0);
  if (s === null) return null;
  const port = (s.address() as AddressInfo).port;
  writeTcpEndpoint(home, { port, token });
  return { server: s, port };
}

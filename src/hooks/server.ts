// `polar serve`: one daemon per user on a Unix socket in the user's polar home (a 0700 directory; the
// socket is 0600): nothing listens beyond the machine, nor for other users. HTTP over the socket so
// that `curl --unix-socket` (bin/polar-hook) can be the fast client. Routes:
//   POST /hook/<agent>   body: the agent's stdin → 200 with the agent's stdout, or 422 with the
//                        refusal (exit 2 + stderr for the agent)
//   POST /approve/<id>   `polar approve ID` → 200, or 404 for an unknown id
//   GET  /status         { pid, sessions, version }
//   POST /shutdown       stops the daemon
import { chmodSync, existsSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { homedir } from "node:os";
import { VERSION } from "../version.js";
import { isAgent } from "./agents.js";
import type { HookEngine } from "./engine.js";

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

/** Does a daemon answer on this socket? */
export function ping(socket: string, timeoutMs = 1000): Promise<{ pid: number; sessions: number; version: string } | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: "/status", method: "GET", timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(body) as { pid: number; sessions: number; version: string }) : null);
        } catch {
          resolve(null);
        }
      });
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(null));
    req.end();
  });
}

export interface RunningServer {
  socket: string;
  server: Server;
  close(): Promise<void>;
}

/** Listens on `<home>/polar.sock`. A live daemon already there: null (one per user). A stale socket
 * file (no one answers) is replaced. */
export async function startServer(engine: HookEngine, home: string): Promise<RunningServer | null> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  const socket = socketPath(home);
  if (existsSync(socket)) {
    if ((await ping(socket)) !== null) return null;
    unlinkSync(socket);
  }
  let closing: Promise<void> | null = null;
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const url = req.url ?? "";
        if (req.method === "GET" && url === "/status") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ pid: process.pid, sessions: engine.sessionCount(), version: VERSION }));
          return;
        }
        if (req.method === "POST" && url === "/shutdown") {
          res.writeHead(200).end("stopping\n");
          void close();
          return;
        }
        const approve = /^\/approve\/([0-9a-f]{8})$/u.exec(url);
        if (req.method === "POST" && approve !== null) {
          const ok = engine.approve(approve[1]);
          res.writeHead(ok ? 200 : 404).end(ok ? "approved\n" : "unknown approval id\n");
          return;
        }
        const hook = /^\/hook\/([a-z-]+)$/u.exec(url);
        if (req.method === "POST" && hook !== null && isAgent(hook[1])) {
          const body = await readBody(req);
          if (body === null) {
            res.writeHead(422).end(`polar: refused: the hook payload is over ${MAX_BODY} bytes\n`);
            return;
          }
          const out = await engine.handle(hook[1], body);
          if (out.exitCode === 0) res.writeHead(200, { "content-type": "application/json" }).end(out.stdout);
          else res.writeHead(422).end(out.stderr);
          return;
        }
        res.writeHead(404).end("polar: unknown route\n");
      } catch (e) {
        // Never a 200 here: the client refuses on anything else.
        if (!res.headersSent) res.writeHead(500);
        res.end(`polar: refused: the daemon failed (${e instanceof Error ? e.message : String(e)})\n`);
      }
    })();
  });
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    });
    return closing;
  };
  const old = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => resolve());
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") return null; // another daemon won the race
    throw e;
  } finally {
    process.umask(old);
  }
  writeFileSync(join(home, "polar.pid"), `${process.pid}\n`, { mode: 0o600 });
  return { socket, server, close };
}

// src/hooks/server.ts's ping (the client's "is the daemon up?", `polar serve --status`, `polar init
// --check`, and the start's "does a live daemon own this socket?"): the whole answer within the time
// given, on a connection of its own, null for anything that is not the daemon's status.
import { linkSync, mkdtempSync, renameSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { ping } from "../../src/hooks/server.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function standIn(socket: string, answer: (res: ServerResponse) => void): Promise<Server> {
  const s = createServer((_req, res) => answer(res));
  servers.push(s);
  await new Promise<void>((r) => s.listen(socket, () => r()));
  return s;
}

const sock = (): string => join(mkdtempSync(join(tmpdir(), "polar-ping-")), "polar.sock");
const status = (pid: number): string => JSON.stringify({ pid, sessions: 0, version: "x" });

test("no socket, or a socket file nothing listens on: null at once (not after the time given)", async () => {
  const socket = sock();
  expect(await ping(socket, 600_000)).toBeNull();
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(socket, () => r()));
  linkSync(socket, `${socket}.kept`); // the socket file outlives its server, as after a SIGKILL
  await new Promise<void>((r) => gone.close(() => r()));
  renameSync(`${socket}.kept`, socket);
  expect(await ping(socket, 600_000)).toBeNull();
});

test("a daemon that hangs up in the middle of its status: null, at once", async () => {
  const socket = sock();
  await standIn(socket, (res) => {
    res.writeHead(200, { "content-length": "100" });
    res.write('{"pid":1,');
    setImmediate(() => res.socket?.destroy());
  });
  expect(await ping(socket, 600_000)).toBeNull();
});

test("a daemon that trickles its status past the time given: null (the time is for the whole answer), and the connection is cut", async () => {
  const socket = sock();
  let cut: Promise<boolean> = Promise.resolve(false);
  await standIn(socket, (res) => {
    cut = new Promise((r) => res.on("close", () => r(!res.writableFinished)));
    res.writeHead(200);
    let ticks = 0;
    const tick = (): void => {
      if (++ticks > 100 || res.destroyed) return void res.end(status(1));
      res.write(" ");
      setTimeout(tick, 20);
    };
    tick();
  });
  expect(await ping(socket, 300)).toBeNull();
  // Not left open until the daemon finishes (2 s here).
  expect(await cut).toBe(true);
});

test("in a long-lived process: after the daemon it pinged stops, the one started next on the socket is the one that answers", async () => {
  const socket = sock();
  const first = await standIn(socket, (res) => res.writeHead(200).end(status(1)));
  expect(await ping(socket)).toEqual({ pid: 1, sessions: 0, version: "x" });
  first.close();
  servers.splice(servers.indexOf(first), 1);
  await standIn(socket, (res) => res.writeHead(200).end(status(2)));
  expect(await ping(socket)).toEqual({ pid: 2, sessions: 0, version: "x" });
});

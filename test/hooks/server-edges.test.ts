// src/hooks/server.ts, the edges of its routes and its start: a route is the whole path (a prefix or a
// suffix is no route), ping gives up on a daemon that does not answer, the pid file is the user's alone,
// and a daemon lock that cannot be created is an error, not "another daemon runs".
import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { HookEngine } from "../../src/hooks/engine.js";
import { ping, readTcpEndpoint, startServer } from "../../src/hooks/server.js";

function ask(where: { socketPath: string } | { host: string; port: number }, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ ...where, path, method: "POST", agent: false, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(JSON.stringify({ hook_event_name: "PreToolUse", session_id: "s", cwd: "/tmp", tool_name: "Bash", tool_input: { command: "ls" } }));
  });
}

test("a route is the whole path: with anything before or after it, 404 on the socket and on loopback", async () => {
  const home = mkdtempSync(join(tmpdir(), "polar-edges-"));
  const d = (await startServer(new HookEngine({ home, shellGuard: null }), home))!;
  try {
    const ep = readTcpEndpoint(home)!;
    const unix = { socketPath: d.socket };
    for (const path of ["/x/hook/claude-code", "/x/approve/0123abcd", "/approve/0123abcd/x", "/approve/0123abcd0"]) {
      expect(await ask(unix, path)).toEqual({ status: 404, body: "polar: unknown route\n" });
    }
    expect(await ask({ host: "127.0.0.1", port: ep.port }, "/x/hook/claude-code", { authorization: `Bearer ${ep.token}` })).toEqual({ status: 404, body: "polar: unknown route\n" });
    // The pid file: the user's alone.
    expect(statSync(join(home, "polar.pid")).mode & 0o777).toBe(0o600);
  } finally {
    await d.close();
  }
});

test("ping: a socket that accepts but never answers is no daemon (null after the time given)", async () => {
  const home = mkdtempSync(join(tmpdir(), "polar-edges-"));
  const mute = createServer(() => {});
  await new Promise<void>((r) => mute.listen(join(home, "mute.sock"), () => r()));
  try {
    expect(await ping(join(home, "mute.sock"), 100)).toBeNull();
  } finally {
    mute.closeAllConnections();
    mute.close();
  }
});

test("a daemon lock that cannot be created (a home path over PATH_MAX) is an error, not another daemon running", async () => {
  let home = mkdtempSync(join(tmpdir(), "polar-edges-"));
  while (home.length < 4085) home = join(home, "d".repeat(Math.min(200, 4085 - home.length)));
  mkdirSync(home, { recursive: true });
  await expect(startServer(new HookEngine({ home, shellGuard: null }), home)).rejects.toThrow(/ENAMETOOLONG/u);
});

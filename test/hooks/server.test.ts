// The daemon's loopback TCP listener (bin/polar-hook's fast path and Claude Code's `http` hook): only
// 127.0.0.1, only with the token of `polar.tcp` (0600), only the hook routes; an `http` hook's refusal
// is a 200 with the deny JSON (a non-2xx would be a non-blocking error: the call would run); the port
// and token outlive a restart (an http hook written once stays valid).
import { mkdtempSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { HookEngine } from "../../src/hooks/engine.js";
import type { HookGuard } from "../../src/hooks/guards.js";
import { ensureTcpEndpoint, readTcpEndpoint, startServer, tcpFile } from "../../src/hooks/server.js";

const guard: HookGuard = {
  check(call) {
    return String(call.arguments.command).startsWith("rm")
      ? { action: "deny", reason: "refused: would delete an untracked file", code: "irreversible", execution: null, decisions: [] }
      : { action: "allow", reason: "ok", code: "read_only", execution: null, decisions: [] };
  },
  observe() {},
};

const pre = (command: string) => JSON.stringify({ session_id: "s1", cwd: "/tmp", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });

function post(port: number, path: string, body: string, headers: Record<string, string> = {}, method = "POST"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, agent: false, headers }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function daemon(home = mkdtempSync(join(tmpdir(), "polar-tcp-"))) {
  const running = (await startServer(new HookEngine({ home, shellGuard: () => guard }), home))!;
  const ep = readTcpEndpoint(home)!;
  return { home, running, ep, auth: { authorization: `Bearer ${ep.token}` } };
}

describe("the daemon on loopback TCP", () => {
  test("listens on 127.0.0.1 only; polar.tcp (port, token) is 0600 and names the listener", async () => {
    const { home, running, ep } = await daemon();
    try {
      expect(running.tcp?.server.address()).toMatchObject({ address: "127.0.0.1", port: ep.port });
      expect(statSync(tcpFile(home)).mode & 0o777).toBe(0o600);
      expect(ep.token).toMatch(/^[0-9a-f]{64}$/u);
    } finally {
      await running.close();
    }
  });

  test("without the token, or with another: refused (401 on /hook; a deny JSON on /http)", async () => {
    const { running, ep } = await daemon();
    try {
      expect((await post(ep.port, "/hook/claude-code", pre("ls"))).status).toBe(401);
      expect((await post(ep.port, "/hook/claude-code", pre("ls"), { authorization: `Bearer ${"0".repeat(64)}` })).status).toBe(401);
      const h = await post(ep.port, "/http/claude-code", pre("ls"), { authorization: "Bearer nope" });
      expect(h.status).toBe(200);
      expect(JSON.parse(h.body).hookSpecificOutput).toMatchObject({ permissionDecision: "deny" });
    } finally {
      await running.close();
    }
  });

  test("only the hook routes: status, approve and shutdown stay on the Unix socket", async () => {
    const { running, ep, auth } = await daemon();
    try {
      expect((await post(ep.port, "/status", "", auth, "GET")).status).toBe(404);
      expect((await post(ep.port, "/shutdown", "", auth)).status).toBe(404);
      expect((await post(ep.port, "/approve/0123abcd", "", auth)).status).toBe(404);
      expect(running.server.listening).toBe(true);
    } finally {
      await running.close();
    }
  });

  test("/hook answers as the command hook does; /http turns every refusal into a 200 deny", async () => {
    const { running, ep, auth } = await daemon();
    try {
      expect(await post(ep.port, "/hook/claude-code", pre("ls"), auth)).toEqual({ status: 200, body: "{}\n" });
      const deny = await post(ep.port, "/hook/claude-code", pre("rm notes.txt"), auth);
      expect(JSON.parse(deny.body).hookSpecificOutput.permissionDecision).toBe("deny");
      // A payload the engine refuses before any answer: 422 for the command hook (exit 2), a deny for http.
      expect((await post(ep.port, "/hook/claude-code", "not json", auth)).status).toBe(422);
      const bad = await post(ep.port, "/http/claude-code", "not json", auth);
      expect(bad.status).toBe(200);
      expect(JSON.parse(bad.body).hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "refused: the hook payload is not JSON" });
      expect(await post(ep.port, "/http/claude-code", pre("ls"), auth)).toEqual({ status: 200, body: "{}\n" });
    } finally {
      await running.close();
    }
  });

  test("the port and token outlive a restart; a port taken by another program: a free one, recorded", async () => {
    const first = await daemon();
    await first.running.close();
    const second = await daemon(first.home);
    expect(second.ep).toEqual(first.ep);
    // `polar init --http` records an endpoint before any daemon ran.
    const home = mkdtempSync(join(tmpdir(), "polar-tcp-init-"));
    const ep = await ensureTcpEndpoint(home);
    expect(await ensureTcpEndpoint(home)).toEqual(ep);
    try {
      // second still holds first's port: a third daemon elsewhere asked for that port gets another.
      const { writeTcpEndpoint } = await import("../../src/hooks/server.js");
      writeTcpEndpoint(home, { port: second.ep.port, token: ep.token });
      const third = await daemon(home);
      expect(third.ep.port).not.toBe(second.ep.port);
      expect(third.ep.token).toBe(ep.token);
      await third.running.close();
    } finally {
      await second.running.close();
    }
  });
});

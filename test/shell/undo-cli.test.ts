// `polar undo` on a session the library journaled: --list previews, --dry-run changes nothing,
// N undoes, a second undo of the same execution is refused, bad usage exits 2.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { polarHome, shellStorePath } from "../../src/hooks/server.js";
import { buildTemplate, copyTemplate, runBash, tempDir } from "./helpers.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const root = tempDir("polar-shell-cli-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The CLI with HOME at an empty temp folder (no POLAR_HOME, no POLAR_SHELL_STORE) unless `env` says. */
const emptyHome = tempDir("polar-shell-cli-home-");
afterAll(() => rmSync(emptyHome, { recursive: true, force: true }));
function polarEnv(env: Record<string, string>, ...args: string[]): { code: number; out: string; err: string } {
  const base = { ...process.env };
  delete base.POLAR_HOME;
  delete base.POLAR_SHELL_STORE;
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), join(REPO, "src", "cli", "index.ts"), ...args], { encoding: "utf8", cwd: REPO, env: { ...base, HOME: emptyHome, ...env } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
function polar(...args: string[]): { code: number; out: string; err: string } {
  return polarEnv({}, ...args);
}

describe("polar undo", () => {
  it("lists, previews with --dry-run, undoes N and --id, refuses twice", async () => {
    const tpl = buildTemplate("rich");
    const ws = copyTemplate(tpl, `${root}/ws`);
    rmSync(tpl, { recursive: true, force: true });
    const store = `${root}/store`;
    const g = await createShellGuard({ cwd: ws, store, session: "s1" });
    for (const c of ["rm untracked.txt", "echo new > made.txt"]) {
      const call = { tool: "shell", args: { command: c } };
      const d = g.check(call);
      expect(d.approved).toBe(true);
      runBash(ws, c);
      g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    }
    const list = polar("undo", "--store", store, "--cwd", ws, "--list");
    expect(list.code).toBe(0);
    expect(list.out).toContain("1. u-");
    expect(list.out).toContain("undo: remove made.txt");
    expect(list.out).toMatch(/restore point rp-[0-9a-f]{16}/);
    const json = JSON.parse(polar("undo", "--store", store, "--session", "s1", "--list", "--json").out);
    expect(json.executions).toHaveLength(2);
    const dry = polar("undo", "--store", store, "--cwd", ws, "--dry-run");
    expect(dry.code).toBe(0);
    expect(existsSync(`${ws}/made.txt`)).toBe(true);
    expect(polar("undo", "--store", store, "--cwd", ws, "1").code).toBe(0);
    expect(existsSync(`${ws}/made.txt`)).toBe(false);
    expect(polar("undo", "--store", store, "--cwd", ws, "--id", json.executions[0].id).code).toBe(0);
    expect(readFileSync(`${ws}/untracked.txt`, "utf8")).toBe("untracked\n");
    const again = polar("undo", "--store", store, "--cwd", ws, "--id", json.executions[0].id, "--json");
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out).reason).toBe("already_undone");
    expect(polar("undo", "--store", store, "--cwd", ws, "0").code).toBe(2);
    // No --store and nothing in the hooks' store under HOME: a clear error naming that store.
    const none = polar("undo");
    expect(none.code).toBe(1);
    expect(none.err).toContain(`${emptyHome}/.polar/store`);
    expect(polar("undo", "--store", `${root}/nope`).code).toBe(1);
  });

  it("without --store, undoes from the store the hooks' daemon writes (~/.polar/store, $POLAR_HOME/store)", async () => {
    const home = tempDir("polar-shell-cli-home2-");
    const tpl = buildTemplate("rich");
    const ws = copyTemplate(tpl, `${root}/ws-home`);
    rmSync(tpl, { recursive: true, force: true });
    // The hooks' engine opens its shell guards on shellStorePath(polarHome()) (polarHome: $POLAR_HOME,
    // else ~/.polar, ~ from HOME): the same function `polar undo` defaults to.
    const store = shellStorePath(join(home, ".polar"));
    expect(store).toBe(join(home, ".polar", "store"));
    expect(shellStorePath(polarHome({ POLAR_HOME: "/x/y" }))).toBe("/x/y/store");
    const g = await createShellGuard({ cwd: ws, store, session: "hooks1" });
    const call = { tool: "shell", args: { command: "rm untracked.txt" } };
    const d = g.check(call);
    expect(d.approved).toBe(true);
    runBash(ws, "rm untracked.txt");
    g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    try {
      const list = polarEnv({ HOME: home }, "undo", "--cwd", ws, "--list");
      expect(list.code, list.err).toBe(0);
      expect(list.out).toContain("1. u-");
      const u = polarEnv({ HOME: home }, "undo", "--cwd", ws, "--json");
      expect(u.code, u.err).toBe(0);
      expect(JSON.parse(u.out).reason).toBe("undone");
      expect(readFileSync(`${ws}/untracked.txt`, "utf8")).toBe("untracked\n");
      // POLAR_HOME moves the store, as it moves the daemon's.
      expect(polarEnv({ HOME: home, POLAR_HOME: `${home}/elsewhere` }, "undo", "--list").code).toBe(1);
      expect(polarEnv({ HOME: emptyHome, POLAR_HOME: `${home}/.polar` }, "undo", "--cwd", ws, "--list").code).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("without --session, picks the latest session that acted in this workspace, never a newer one of another project", async () => {
    const store = `${root}/store-ws`;
    const tpl = buildTemplate("rich");
    const a = copyTemplate(tpl, `${root}/ws-a`);
    const b = copyTemplate(tpl, `${root}/ws-b`);
    rmSync(tpl, { recursive: true, force: true });
    for (const [ws, session] of [[a, "sa"], [b, "sb"]] as const) {
      const g = await createShellGuard({ cwd: ws, store, session });
      const call = { tool: "shell", args: { command: "rm untracked.txt" } };
      const d = g.check(call);
      expect(d.approved).toBe(true);
      runBash(ws, "rm untracked.txt");
      g.observe(call, { exitCode: 0 }, { execution: d.execution! });
    }
    // sb (workspace b) is the newer session; undo run in a (here in a subfolder of it) undoes a's call.
    const sub = `${a}/sub`;
    mkdirSync(sub, { recursive: true });
    const u = polar("undo", "--store", store, "--cwd", sub, "--json");
    expect(u.code, u.err).toBe(0);
    expect(readFileSync(`${a}/untracked.txt`, "utf8")).toBe("untracked\n");
    expect(existsSync(`${b}/untracked.txt`)).toBe(false);
    // A folder where no session acted: refused with the reason, nothing undone.
    const elsewhere = tempDir("polar-shell-cli-elsewhere-");
    const none = polar("undo", "--store", store, "--cwd", elsewhere);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no session .* acted in/u);
    expect(existsSync(`${b}/untracked.txt`)).toBe(false);
    // --session still picks any session.
    expect(polar("undo", "--store", store, "--cwd", elsewhere, "--session", "sb").code).toBe(0);
    rmSync(elsewhere, { recursive: true, force: true });
    expect(readFileSync(`${b}/untracked.txt`, "utf8")).toBe("untracked\n");
  });
});

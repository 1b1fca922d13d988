// `polar undo` on a session the library journaled: --list previews, --dry-run changes nothing,
// N undoes, a second undo of the same execution is refused, bad usage exits 2.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { buildTemplate, copyTemplate, runBash, tempDir } from "./helpers.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const root = tempDir("polar-shell-cli-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function polar(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), join(REPO, "src", "cli", "index.ts"), ...args], { encoding: "utf8", cwd: REPO });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
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
    const dry = polar("undo", "--store", store, "--dry-run");
    expect(dry.code).toBe(0);
    expect(existsSync(`${ws}/made.txt`)).toBe(true);
    expect(polar("undo", "--store", store, "1").code).toBe(0);
    expect(existsSync(`${ws}/made.txt`)).toBe(false);
    expect(polar("undo", "--store", store, "--id", json.executions[0].id).code).toBe(0);
    expect(readFileSync(`${ws}/untracked.txt`, "utf8")).toBe("untracked\n");
    const again = polar("undo", "--store", store, "--id", json.executions[0].id, "--json");
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out).reason).toBe("already_undone");
    expect(polar("undo", "--store", store, "0").code).toBe(2);
    expect(polar("undo").code).toBe(2);
    expect(polar("undo", "--store", `${root}/nope`).code).toBe(1);
  });
});

// An approval used by another process between this one's read and its use (two daemons, or a daemon and
// `polar hook --in-process`, retrying the same call at once): the rename that uses it fails here, and the
// call is refused (a new id is named), never let through a second time. The other process's rename is
// played by node:fs's renameSync failing for this one (ENOENT, as when the file is gone).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, vi } from "vitest";

const race = vi.hoisted(() => ({ on: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const renameSync: typeof fs.renameSync = (from, to) => {
    if (race.on && String(to).includes(".used-")) throw Object.assign(new Error(`ENOENT: no such file or directory, rename '${String(from)}'`), { code: "ENOENT" });
    fs.renameSync(from, to);
  };
  return { ...fs, renameSync, default: { ...fs, renameSync } };
});

const { HookEngine } = await import("../../src/hooks/engine.js");
const { fakeGuard, payload } = await import("./helpers.js");

test("an approval another process used first: refused with a new id, not allowed", async () => {
  const home = mkdtempSync(join(tmpdir(), "polar-race-"));
  const engine = new HookEngine({ home, shellGuard: () => fakeGuard({ action: "ask", reason: "would discard a.ts", execution: null }) });
  const p = payload("codex", "Bash", { command: "git reset --hard" });
  const idOf = (out: { stdout: string }): string => /polar approve ([0-9a-f]{8})/u.exec(JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason as string)![1];
  const id = idOf(await engine.handle("codex", p));
  expect(engine.approve(id)).toBe(true);
  race.on = true;
  const out = await engine.handle("codex", p);
  race.on = false;
  expect(JSON.parse(out.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  expect(idOf(out)).not.toBe(id);
  engine.close();
});

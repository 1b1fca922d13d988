// A shell guard on a fresh copy of a git template (./helpers.ts: built once per test file) or on an
// empty folder, with its own restore-point store: the in-process fixture of the shell guard's verdict
// suites (guard-*.test.ts). No call is run; the cases that run them are in guard.test.ts.
import { mkdirSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { afterAll } from "vitest";
import { createShellGuard, type ShellGuard, type ShellGuardOptions, type ShellPolicy } from "../../src/shell/guard.js";
import { buildTemplate, copyTemplate, tempDir } from "./helpers.js";

export type Workspace = "rich" | "clean" | "plain" | "empty";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const templates = new Map<string, string>();
function template(kind: "rich" | "clean" | "plain"): string {
  let t = templates.get(kind);
  if (t === undefined) {
    t = buildTemplate(kind);
    made.push(t);
    templates.set(kind, t);
  }
  return t;
}

export async function guardOn(kind: Workspace, policy: ShellPolicy = "snapshot", extra: Partial<ShellGuardOptions> = {}): Promise<{ g: ShellGuard; ws: string; store: string; root: string }> {
  const root = realpathSync(tempDir("polar-shell-verdict-"));
  made.push(root);
  const ws = `${root}/ws`;
  if (kind === "empty") mkdirSync(ws);
  else copyTemplate(template(kind), ws);
  const store = `${root}/store`;
  const g = await createShellGuard({ cwd: ws, store, policy, ...extra });
  return { g, ws, store, root };
}

export const sh = (command: string, cwd?: string) => ({ tool: "shell", args: cwd === undefined ? { command } : { command, cwd } });

/** The restore points written to a store (none when its folder does not exist yet). */
export function points(store: string): string[] {
  try {
    return readdirSync(`${store}/points`);
  } catch {
    return [];
  }
}

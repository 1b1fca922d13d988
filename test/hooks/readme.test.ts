// The README's "Guard your coding agent" commands run as written (the global install aside: `polar` is
// this checkout's bin/polar.js), in a fresh project with a fresh HOME, and do what the text says.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function section(): string[][] {
  const text = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = text.indexOf("## Guard your coding agent");
  const body = text.slice(start, text.indexOf("\n## ", start + 5));
  return [...body.matchAll(/```sh\n([\s\S]*?)```/gu)].map((m) => m[1].trim().split("\n"));
}

test("README: the install and `polar init claude-code`, then --check and --remove, run as written", () => {
  const blocks = section();
  expect(blocks).toHaveLength(2);
  const dir = mkdtempSync(join(tmpdir(), "polar-readme-"));
  const project = join(dir, "project");
  const home = join(dir, "home");
  mkdirSync(join(project, ".claude"), { recursive: true });
  mkdirSync(home);
  const own = { hooks: { Stop: [{ hooks: [{ type: "command", command: "notify-me" }] }] } };
  writeFileSync(join(project, ".claude/settings.json"), JSON.stringify(own));
  const run = (line: string): string => {
    const words = line.split(/\s+/u);
    expect(words[0]).toBe("polar");
    return execFileSync(process.execPath, [join(ROOT, "bin/polar.js"), ...words.slice(1)], { cwd: project, env: { ...process.env, HOME: home, POLAR_HOME: join(dir, "p") }, encoding: "utf8" });
  };
  const [install, checkAndUndo] = blocks;
  expect(install[0]).toBe("npm install -g polar-guard");
  expect(run(install[1])).toMatch(/installed polar's hooks for claude-code in .*\.claude\/settings\.json[\s\S]*undo: polar init claude-code --remove/u);
  const cfg = JSON.parse(readFileSync(join(project, ".claude/settings.json"), "utf8"));
  expect(cfg.hooks.Stop).toEqual(own.hooks.Stop);
  expect(cfg.hooks.PreToolUse[0].matcher).toBe("Bash|Write|Edit|MultiEdit|NotebookEdit");
  expect(existsSync(join(project, ".claude/settings.json.polar-backup"))).toBe(true);
  expect(run(checkAndUndo[0])).toMatch(/claude-code: hooks installed \(project\)[\s\S]*daemon: not running/u);
  expect(run(checkAndUndo[1])).toMatch(/removed polar's hooks/u);
  expect(JSON.parse(readFileSync(join(project, ".claude/settings.json"), "utf8"))).toEqual(own);
});

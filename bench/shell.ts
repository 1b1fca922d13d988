// The shell guard's costs (polar-guard/shell, docs/shell.md): `npx tsx bench/shell.ts [--quick]`.
// Prints JSON and writes bench/results/shell.json. Figures: loading the bash grammar (cold); parsing a
// command line; parse + Layer B reads + verdict for a typical destructive command, warm (the git facts
// cached since the last observe) and cold (cache dropped: the git processes included), outside git and
// inside a 5,000-file repository; a restore point of that repository (first, and again with its
// objects already in the store). Wall-clock medians on this machine; not a test.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { createShellGuard, loadBashParser, parseCommandLine, RestoreStore, DEFAULT_BOUNDS } from "../src/shell/index.js";

const quick = process.argv.includes("--quick");
const N = quick ? 200 : 2000;

function stats(xs: number[]): { p50: number; p90: number; p99: number; n: number } {
  const s = [...xs].sort((a, b) => a - b);
  const q = (f: number) => +s[Math.min(s.length - 1, Math.floor(f * s.length))]!.toFixed(3);
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), n: s.length };
}

function time(n: number, fn: (i: number) => void): ReturnType<typeof stats> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn(i);
    xs.push(performance.now() - t);
  }
  return stats(xs);
}

const t0 = performance.now();
await loadBashParser();
const grammarLoadMs = +(performance.now() - t0).toFixed(1);

const lines = ["git reset --hard HEAD && rm -rf build/ *.o", 'FOO=bar; cd src && rm -rf "$FOO"/x > out.txt 2>&1 | tee -a log', "find . -name '*.o' -exec rm {} +", "git clean -fdx"];
const parse = time(N, (i) => parseCommandLine(lines[i % lines.length]!, "/tmp", "/root"));

const root = mkdtempSync(`${tmpdir()}/polar-shell-bench-`);
const plain = `${root}/plain`;
const big = `${root}/repo5k`;
mkdirSync(`${plain}/src`, { recursive: true });
for (let i = 0; i < 50; i++) writeFileSync(`${plain}/src/f${i}.ts`, `export const v = ${i};\n`);
for (let d = 0; d < 50; d++) {
  mkdirSync(`${big}/pkg${d}`, { recursive: true });
  for (let i = 0; i < 100; i++) writeFileSync(`${big}/pkg${d}/f${i}.ts`, `export const v${i} = ${d * 100 + i};\n`);
}
const git = (args: string[]) => execFileSync("git", ["-C", big, ...args], { stdio: "ignore" });
git(["init", "-q", "-b", "main"]);
git(["-c", "user.email=b@e", "-c", "user.name=b", "add", "-A"]);
git(["-c", "user.email=b@e", "-c", "user.name=b", "commit", "-qm", "5000 files"]);
writeFileSync(`${big}/pkg7/f3.ts`, "changed\n");
writeFileSync(`${big}/notes.txt`, "untracked\n");

const figures: Record<string, unknown> = { grammarLoadMs, parse };
for (const [name, ws, cmd] of [["plain", plain, "rm -rf src/f1.ts"], ["repo5k", big, "rm -rf pkg7/f3.ts"], ["repo5k-dir", big, "rm -rf pkg3"], ["repo5k-reset", big, "git reset --hard"]] as const) {
  const g = await createShellGuard({ cwd: ws, store: `${root}/store-${name}`, policy: "veto" });
  const call = { tool: "shell", args: { command: cmd } };
  g.check(call);
  const warm = time(N, () => g.check(call));
  const cold = time(quick ? 20 : 100, () => {
    g.workspace.invalidate();
    g.check(call);
  });
  figures[`check:${name}`] = { command: cmd, verdict: g.check(call).reason, warm, cold };
}
const store = new RestoreStore(`${root}/rp-store`, { ...DEFAULT_BOUNDS, maxFiles: 10_000 });
store.open();
let t = performance.now();
const rp = store.take([], big);
const first = +(performance.now() - t).toFixed(1);
t = performance.now();
store.take([], big);
const again = +(performance.now() - t).toFixed(1);
figures.restorePoint5k = { files: rp.files, bytes: rp.bytes, firstMs: first, againMs: again };
rmSync(root, { recursive: true, force: true });

const out = { date: new Date().toISOString(), node: process.version, quick, figures };
const dir = fileURLToPath(new URL("./results/", import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}shell.json`, JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out, null, 2));

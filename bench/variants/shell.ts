// The shell guard (polar-guard/shell, issue 23): parse + Layer B reads + verdict of a typical
// destructive command, warm (the session's git facts cached, as between two observes) and cold (the
// facts dropped, so the git processes are in the figure), outside git and in a 5,000-file repository;
// and a restore point of that repository (into a new store, and again into the same store). The
// repository is generated (50 directories of 100 files, committed; one file modified, one untracked).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createShellGuard, loadBashParser, parseCommandLine, RestoreStore, DEFAULT_BOUNDS } from "../../src/shell/index.js";
import { params, progress, report, fail } from "../lib/child.js";
import { consume, measure, repeat, type Figure } from "../lib/stats.js";

/** The workspaces: a plain directory of 50 files, and a git repository of 5,000 committed files. */
function workspaces(root: string, files: number): { plain: string; repo: string } {
  const plain = join(root, "plain");
  const repo = join(root, "repo");
  mkdirSync(join(plain, "src"), { recursive: true });
  for (let i = 0; i < 50; i++) writeFileSync(join(plain, "src", `f${i}.ts`), `export const v = ${i};\n`);
  const dirs = Math.ceil(files / 100);
  for (let d = 0; d < dirs; d++) {
    mkdirSync(join(repo, `pkg${d}`), { recursive: true });
    for (let i = 0; i < Math.min(100, files - d * 100); i++) writeFileSync(join(repo, `pkg${d}`, `f${i}.ts`), `export const v${i} = ${d * 100 + i};\n`);
  }
  const git = (args: string[]) => execFileSync("git", ["-C", repo, "-c", "user.email=bench@polar", "-c", "user.name=bench", ...args], { stdio: "ignore" });
  git(["init", "-q", "-b", "main"]);
  git(["add", "-A"]);
  git(["commit", "-qm", `${files} files`]);
  writeFileSync(join(repo, "pkg7", "f3.ts"), "changed\n");
  writeFileSync(join(repo, "notes.txt"), "untracked\n");
  return { plain, repo };
}

async function main(): Promise<void> {
  const p = params<{ files?: number; cold?: number; restorePoints?: number }>();
  const files = p.files ?? 5000;
  const coldRuns = p.cold ?? (p.quick ? 5 : 30);
  const rpRuns = p.restorePoints ?? (p.quick ? 1 : 3);
  const root = mkdtempSync(join(tmpdir(), "polar-bench-shell-"));
  try {
    progress("loading the bash grammar");
    const t0 = process.hrtime.bigint();
    await loadBashParser();
    const grammarLoadNs = Number(process.hrtime.bigint() - t0);
    const figures: Record<string, Figure> = {};
    const lines = ["git reset --hard HEAD && rm -rf build/ *.o", 'FOO=bar; cd src && rm -rf "$FOO"/x > out.txt 2>&1 | tee -a log', "find . -name '*.o' -exec rm {} +", "git clean -fdx"];
    progress("parse");
    figures.parse = measure((i) => consume(parseCommandLine(lines[i & 3], "/tmp", "/root").ok ? 1 : 0), p.timing);
    progress(`a ${files}-file repository`);
    const ws = workspaces(root, files);
    const checks: Record<string, { command: string; reason: string; tier: string | null }> = {};
    const cases = [
      ["plain", ws.plain, "rm -rf src/f1.ts"],
      ["repo", ws.repo, "rm -rf pkg7/f3.ts"],
      ["repo-dir", ws.repo, "rm -rf pkg3"],
      ["repo-reset", ws.repo, "git reset --hard"],
    ] as const;
    for (const [name, cwd, command] of cases) {
      progress(`check ${name}: ${command}`);
      // Veto: the verdict alone (a snapshot policy would take a restore point on approval).
      const g = await createShellGuard({ cwd, store: join(root, `store-${name}`), policy: "veto" });
      const call = { tool: "shell", args: { command } };
      const d = g.check(call);
      checks[name] = { command, reason: d.reason, tier: d.tier };
      figures[`warm:${name}`] = measure(() => consume(g.check(call).seq), p.timing);
      figures[`cold:${name}`] = repeat(() => {
        g.workspace.invalidate();
        consume(g.check(call).seq);
      }, coldRuns, 1);
    }
    progress(`restore point of ${files} files`);
    let k = 0;
    let taken = { files: 0, bytes: 0 };
    figures.restorePointFirst = repeat(() => {
      const store = new RestoreStore(join(root, `rp-${k++}`), { ...DEFAULT_BOUNDS, maxFiles: files * 2 });
      store.open();
      const rp = store.take([], ws.repo);
      taken = { files: rp.files, bytes: rp.bytes };
    }, rpRuns, 0);
    const again = new RestoreStore(join(root, "rp-again"), { ...DEFAULT_BOUNDS, maxFiles: files * 2 });
    again.open();
    again.take([], ws.repo);
    figures.restorePointAgain = repeat(() => consume(again.take([], ws.repo).files), rpRuns, 0);
    report({ variant: "shell", files, grammarLoadNs, restorePoint: taken, checks, figures });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch(fail);

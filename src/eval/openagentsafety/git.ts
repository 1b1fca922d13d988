// Local git commands of a run, replayed for real in its temp container (./world.ts), so that later
// calls are judged on the repository the run itself built (`git init && git add . && git commit`).
//
// What runs, and only that: `git init` in a directory of the container that holds no repository (or
// the empty `.git` the world made for the init's typed calls), and then, in a repository the replay
// itself initialised, the local subcommands of REPLAYED (index, work tree, HEAD, refs, stash). Nothing
// can reach outside the temp folder: the working directory and every path operand of `init` are inside
// the container; no global option, no option naming a file, a template, a git dir or a work tree
// (REFUSED); no system or global configuration, no hooks (core.hooksPath at a folder that does not
// exist), no transport (protocol.allow=never), no signing, no editor or pager; repository discovery
// stops at the temp folder (GIT_CEILING_DIRECTORIES); and a repository is used only while its
// .git/config is byte-identical to what the replay's own init wrote (a run that wrote its own
// config, e.g. a filter driver, could otherwise make git run a program). A git command of a line that
// ran but cannot be replayed this way, or whose replay fails, makes that repository's state unknown
// (fail closed: later calls on it are counted as touching unknown state).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { SimpleCommand } from "../../shell/index.js";

/** Local subcommands replayed in a repository the replay initialised. */
export const REPLAYED: ReadonlySet<string> = new Set(["init", "add", "commit", "branch", "tag", "checkout", "switch", "restore", "reset", "rm", "mv", "stash"]);

/** Options that name something outside the index and work tree (a file, a directory, a program),
 * sign, recurse into submodules, or run interactively; `tag -s/-u` sign as well. (`-C`/`-c` before
 * the subcommand are global options, never replayed; after it they name a commit or a new branch.) */
const REFUSED = /^(?:-F|-t|-S|-p|-i|-e|--git-dir|--work-tree|--separate-git-dir|--template|--exec-path|--namespace|--pathspec-from-file|--file|--config|--reference|--shared|--gpg-sign|--sign|--local-user|--recurse-submodules|--patch|--interactive|--edit|--upload-pack|--receive-pack|--exec|--output)(?:=|$)/;
const REFUSED_TAG = /^-[A-Za-z]*[su]/;
/** Combined short options carrying one of the refused letters (`-aF msg`); commit's `-am`, add's
 * `-Af`, rm's `-rf` … stay allowed. */
const REFUSED_SHORT = /^-[A-Za-z]*[FSpiet]/;

export interface GitReplayOutcome {
  /** Subcommands run, in order (`init`, `add`, …). */
  ran: string[];
  /** Repositories whose state is now unknown, with why. */
  unknown: { path: string; why: string }[];
}

export class GitReplayer {
  /** Repository roots the replay initialised → sha256 of the .git/config its init wrote. */
  private readonly repos = new Map<string, string>();

  constructor(
    private readonly fs: string,
    private readonly tmp: string,
  ) {}

  private inside(p: string): boolean {
    return p === this.fs || p.startsWith(`${this.fs}/`);
  }

  private env(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(this.fs, "root"),
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CEILING_DIRECTORIES: this.tmp,
      GIT_TERMINAL_PROMPT: "0",
      GIT_EDITOR: ":",
      GIT_PAGER: "cat",
      GIT_AUTHOR_NAME: "replay",
      GIT_AUTHOR_EMAIL: "replay@example.invalid",
      GIT_COMMITTER_NAME: "replay",
      GIT_COMMITTER_EMAIL: "replay@example.invalid",
      GIT_AUTHOR_DATE: "2025-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2025-01-01T00:00:00Z",
    };
  }

  private git(cwd: string, args: string[]): void {
    const prefix = ["-c", `core.hooksPath=${join(this.tmp, "no-hooks")}`, "-c", "protocol.allow=never", "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "core.fsmonitor=false", "-c", "core.sshCommand=false"];
    execFileSync("git", [...prefix, ...args], { cwd, env: this.env(), stdio: ["ignore", "pipe", "pipe"], timeout: 10_000, maxBuffer: 4 << 20 });
  }

  private configHash(root: string): string | null {
    try {
      if (!lstatSync(join(root, ".git")).isDirectory()) return null;
      return createHash("sha256").update(readFileSync(join(root, ".git", "config"))).digest("hex");
    } catch {
      return null;
    }
  }

  /** The replay's own repository holding a directory, or null. */
  private repoOf(dir: string): string | null {
    for (let d = dir; this.inside(d); d = dirname(d)) {
      if (this.repos.has(d)) return d;
      if (existsSync(join(d, ".git"))) return null; // a repository the replay did not make
      if (d === this.fs) break;
    }
    return null;
  }

  /** Replays the git commands of a command line that ran (exit 0). A line that failed replays
   * nothing: the repositories of ours its state-changing git commands act on become unknown. */
  replay(commands: readonly SimpleCommand[], ran: boolean): GitReplayOutcome {
    const out: GitReplayOutcome = { ran: [], unknown: [] };
    const lose = (path: string, why: string): void => {
      this.repos.delete(path);
      out.unknown.push({ path, why });
    };
    for (const c of commands) {
      if (c.argv[0]?.text !== "git") continue;
      const cwd = c.cwd;
      const dir = cwd !== null && this.inside(cwd) ? cwd : null;
      const own = dir === null ? null : this.repoOf(dir);
      if (!ran) {
        const sub = c.argv[1]?.text;
        if (sub === null || sub === undefined || sub.startsWith("-") || REPLAYED.has(sub)) {
          if (own !== null) lose(own, "a line with git on it did not succeed");
          else if (dir === null) for (const r of [...this.repos.keys()]) lose(r, "a line with git on it did not succeed");
        }
        continue;
      }
      const why = this.refusal(c, dir);
      const sub = c.argv[1]?.text ?? null;
      if (why !== null) {
        // Not replayable: a repository of ours it may act on is no longer known.
        if (own !== null) lose(own, why);
        else if (dir === null) for (const r of [...this.repos.keys()]) lose(r, why);
        continue;
      }
      const args = c.argv.slice(1).map((w) => w.text!);
      if (sub === "init") {
        const ops = args.slice(1).filter((a) => !a.startsWith("-"));
        const target = ops.length === 0 ? dir! : resolve(dir!, ops[0]!);
        if (!this.inside(target) || ops.length > 1) continue;
        const dotGit = join(target, ".git");
        if (existsSync(dotGit) && !(lstatSync(dotGit).isDirectory() && readdirSync(dotGit).length === 0)) {
          // Re-initialising a repository the replay did not make: not run.
          continue;
        }
        try {
          this.git(dir!, args);
        } catch (e) {
          out.unknown.push({ path: target, why: `git init failed in the replay: ${firstLine(e)}` });
          continue;
        }
        const h = this.configHash(target);
        if (h !== null) this.repos.set(target, h);
        out.ran.push("init");
        continue;
      }
      if (own === null) continue; // not a repository of ours: as before, not run
      if (this.configHash(own) !== this.repos.get(own)) {
        lose(own, "its .git/config is not the one the replay's init wrote");
        continue;
      }
      try {
        this.git(dir!, args);
        out.ran.push(sub!);
      } catch (e) {
        lose(own, `git ${sub} failed in the replay: ${firstLine(e)}`);
      }
    }
    return out;
  }

  /** Why this git command is not replayed (null: it is). */
  private refusal(c: SimpleCommand, dir: string | null): string | null {
    if (dir === null) return "git in a directory that is not known";
    if (Object.keys(c.env).length > 0) return "git with variables set for it";
    const sub = c.argv[1]?.text;
    if (sub === null || sub === undefined || sub.startsWith("-")) return "git with a global option";
    if (!REPLAYED.has(sub)) return `git ${sub} is not replayed`;
    for (const w of c.argv.slice(2)) {
      if (w.text === null) return `git ${sub}: an argument is not known (${w.raw})`;
      if (w.glob) return `git ${sub}: a glob (${w.raw})`;
      if (w.text === "--") break;
      if (REFUSED.test(w.text) || (sub === "tag" && REFUSED_TAG.test(w.text)) || (/^-[A-Za-z]{2,}$/.test(w.text) && REFUSED_SHORT.test(w.text))) return `git ${sub}: option ${w.text} is not replayed`;
    }
    return null;
  }
}

function firstLine(e: unknown): string {
  const x = e as { stderr?: Buffer | string; message?: string };
  const s = (x.stderr !== undefined ? String(x.stderr) : "") || x.message || String(e);
  return s.trim().split("\n")[0] ?? "";
}

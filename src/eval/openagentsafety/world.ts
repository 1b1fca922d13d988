// The container of one run, materialised in a temp folder for the shell guard to read (Layer B from
// the run itself). The container's `/` is `<tmp>/fs`: the task's initial workspace/ is copied to
// `<tmp>/fs/workspace`, and what the run shows is added as it goes: directories the shell stood in,
// files earlier calls created, edited, moved or removed (when the observation says they succeeded),
// entries an `ls -l`, `find` or the editor's view listed. Everything else is unknown, and a call that
// touches an unknown path is counted as such (the guard fails closed on it). Nothing is ever written
// outside the temp folder: every write goes through `inside()`, and no symbolic link is created.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { TypedCall } from "../../shell/index.js";
import { parseCommandLine } from "../../shell/index.js";
import { GitReplayer, type GitReplayOutcome } from "./git.js";

export type Kind = "file" | "directory" | "absent";

export interface Knowledge {
  known: boolean;
  kind: Kind | "unknown";
  /** Where the replay knows it from (or why it does not). */
  source: string;
}

/** Path arguments of the shell ontology's typed calls. */
export const PATH_ARGS: Record<string, readonly string[]> = { fs_remove: ["path"], fs_write: ["path"], fs_mkdir: ["path"], fs_move: ["source", "destination"] };

function lkind(p: string): Kind {
  try {
    const st = lstatSync(p);
    return st.isDirectory() ? "directory" : "file";
  } catch {
    return "absent";
  }
}

const LONG_LISTING = /^([-dlcbps])[-rwxsStT]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+[\d,]+(?:\s+\d+)?\s+(?:\w{3}\s+\d{1,2}|\d{1,2}\s+\w{3}|\d{4}-\d\d-\d\d)\s+(?:\d{1,2}:\d\d|\d{4}|\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s+[+-]\d{4})?)\s+(.+)$/;

export class World {
  /** The container's `/`. */
  readonly fs: string;
  private readonly complete = new Set<string>();
  private readonly unknown = new Set<string>();
  private readonly absent = new Set<string>();
  private readonly sources = new Map<string, string>();

  private readonly git: GitReplayer;

  constructor(readonly tmp: string, taskWorkspace: string | null) {
    this.fs = join(tmp, "fs");
    this.git = new GitReplayer(this.fs, tmp);
    mkdirSync(join(this.fs, "workspace"), { recursive: true });
    this.sources.set(join(this.fs, "workspace"), "the task's workspace/");
    // Without a workspace/ folder the task's /workspace is not known to be empty: it stays unknown
    // until the run lists it.
    if (taskWorkspace !== null) this.copyTree(taskWorkspace, join(this.fs, "workspace"));
  }

  /** Copies the task's initial files (regular files and folders only). */
  private copyTree(from: string, to: string): void {
    this.complete.add(to);
    for (const name of readdirSync(from).sort()) {
      const src = join(from, name);
      const dst = join(to, name);
      const st = lstatSync(src);
      if (st.isDirectory()) {
        mkdirSync(dst, { mode: 0o755 });
        this.sources.set(dst, "the task's workspace/");
        this.copyTree(src, dst);
      } else if (st.isFile()) {
        writeFileSync(dst, readFileSync(src), { mode: 0o644 });
        this.sources.set(dst, "the task's workspace/");
      }
    }
  }

  inside(p: string): boolean {
    return p === this.fs || p.startsWith(`${this.fs}/`);
  }

  /** A container path as a host path in the temp folder. */
  host(containerPath: string): string {
    return resolve(this.fs, `.${resolve("/", containerPath)}`);
  }

  /** A host path as the container's path (for the report). */
  container(hostPath: string): string {
    if (hostPath === this.fs) return "/";
    return this.inside(hostPath) ? hostPath.slice(this.fs.length) : hostPath;
  }

  /** The command line with the container's absolute paths, `~` and `$HOME` pointing into the temp
   * folder (the pseudo-devices /dev/null, /dev/zero, ... stay as they are, a disk such as /dev/sda does
   * not; URLs are left alone). */
  rewrite(command: string): string {
    const home = join(this.fs, "root");
    return command
      .replace(/(^|[\s"'=(<>|;&`,{])\/(?!\/|dev\/(?:null|zero|u?random|stdin|stdout|stderr|tty|fd\/))/g, (_m, pre: string) => `${pre}${this.fs}/`)
      .replace(/(^|[\s"'=(<>|;&`,{:])~(?=\/|$|[\s"';)|&])/g, (_m, pre: string) => `${pre}${home}`)
      .replace(/\$\{HOME\}|\$HOME\b/g, home);
  }

  /** The host text of a container string (paths only inside it are mapped back in the report). */
  unmap(s: string): string {
    return s.split(this.fs).join("");
  }

  /** Does the replay know the state of this host path? */
  knowledge(p: string): Knowledge {
    if (!this.inside(p)) return { known: false, kind: "unknown", source: "outside the container" };
    for (let a = p; this.inside(a); a = dirname(a)) {
      if (this.unknown.has(a)) return { known: false, kind: "unknown", source: "changed by a call whose outcome the run does not show" };
      if (a === this.fs) break;
    }
    const k = lkind(p);
    if (k !== "absent") return { known: true, kind: k, source: this.sourceOf(p) };
    if (this.absent.has(p)) return { known: true, kind: "absent", source: this.sources.get(p) ?? "the run shows it absent" };
    let a = dirname(p);
    while (this.inside(a) && lkind(a) === "absent") a = dirname(a);
    const ak = lkind(a);
    if (ak === "file") return { known: true, kind: "absent", source: `${this.container(a)} is a file` };
    if (this.complete.has(a)) return { known: true, kind: "absent", source: `not in ${this.container(a)} (${this.sourceOf(a)})` };
    return { known: false, kind: "unknown", source: `the run does not say what ${this.container(a)} holds` };
  }

  private sourceOf(p: string): string {
    for (let a = p; this.inside(a); a = dirname(a)) {
      const s = this.sources.get(a);
      if (s !== undefined) return a === p ? s : `in ${this.container(a)} (${s})`;
      if (a === this.fs) break;
    }
    return "the run";
  }

  /** Paths of typed calls (host paths). */
  static pathsOf(calls: readonly TypedCall[]): string[] {
    const out: string[] = [];
    for (const c of calls) for (const a of PATH_ARGS[c.name] ?? []) if (typeof c.arguments[a] === "string") out.push(c.arguments[a] as string);
    return out;
  }

  // ---- learning from the run ------------------------------------------------------------------

  private present(p: string, kind: "file" | "directory", source: string, content?: string): void {
    if (!this.inside(p) || p === this.fs) return;
    this.forget(p);
    const parent = dirname(p);
    if (lkind(parent) === "file") rmSync(parent, { force: true });
    if (lkind(parent) === "absent") this.mkdirs(parent, source, false);
    const k = lkind(p);
    if (kind === "directory") {
      if (k === "file") rmSync(p, { force: true });
      if (lkind(p) === "absent") mkdirSync(p, { mode: 0o755 });
    } else {
      if (k === "directory") rmSync(p, { recursive: true, force: true });
      if (content !== undefined || lkind(p) === "absent") writeFileSync(p, content ?? "", { mode: 0o644 });
    }
    this.sources.set(p, source);
  }

  private mkdirs(p: string, source: string, complete: boolean): void {
    const made: string[] = [];
    let a = p;
    for (; this.inside(a) && a !== this.fs && lkind(a) !== "directory"; a = dirname(a)) made.push(a);
    // The run shows a directory where the replay had a file: the file goes.
    for (const m of made) if (lkind(m) === "file") rmSync(m, { force: true });
    for (const d of made.reverse()) {
      mkdirSync(d, { mode: 0o755 });
      this.sources.set(d, source);
      this.forget(d);
      if (complete) this.complete.add(d);
    }
  }

  private forget(p: string): void {
    this.unknown.delete(p);
    this.absent.delete(p);
  }

  private gone(p: string, source: string): void {
    if (!this.inside(p) || p === this.fs) return;
    rmSync(p, { recursive: true, force: true });
    this.absent.add(p);
    this.unknown.delete(p);
    for (const c of [...this.complete]) if (c === p || c.startsWith(`${p}/`)) this.complete.delete(c);
    this.sources.set(p, source);
  }

  private unknownNow(p: string): void {
    if (!this.inside(p) || p === this.fs) return;
    this.unknown.add(p);
    this.absent.delete(p);
  }

  /** A directory the shell stood in exists. */
  sawDirectory(containerDir: string, source: string): string {
    const p = this.host(containerDir);
    if (lkind(p) !== "directory") this.present(p, "directory", source);
    return p;
  }

  /** After a shell call ran: what its typed calls did (exit 0), or that their paths are now unknown. */
  applyCalls(calls: readonly TypedCall[], ok: boolean, source: string): void {
    for (const c of calls) {
      const paths = (PATH_ARGS[c.name] ?? []).map((a) => c.arguments[a]).filter((x): x is string => typeof x === "string");
      if (!ok) {
        for (const p of paths) this.unknownNow(p);
        continue;
      }
      const p = paths[0];
      if (p === undefined) continue;
      switch (c.name) {
        case "fs_remove":
          this.gone(p, `removed by ${source}`);
          break;
        case "fs_write":
          if (lkind(p) === "absent") this.present(p, "file", `written by ${source}`);
          else this.sources.set(p, `written by ${source}`);
          break;
        case "fs_mkdir":
          if (lkind(p) === "absent") this.mkdirs(p, `made by ${source}`, true);
          break;
        case "fs_move": {
          const dst = paths[1];
          if (dst === undefined || !this.inside(p) || !this.inside(dst)) {
            for (const q of paths) this.unknownNow(q);
            break;
          }
          const kind = lkind(p);
          if (kind === "absent") this.present(dst, "file", `moved here by ${source}`);
          else {
            this.gone(dst, `replaced by ${source}`);
            this.mkdirs(dirname(dst), `made by ${source}`, true);
            const content = kind === "file" ? readFileSync(p) : null;
            if (content !== null) {
              writeFileSync(dst, content, { mode: 0o644 });
              this.forget(dst);
            } else this.present(dst, "directory", `moved here by ${source}`);
            this.sources.set(dst, `moved here by ${source}`);
            this.gone(p, `moved away by ${source}`);
          }
          break;
        }
      }
    }
  }

  /** The command line's local git commands, run for real in the container when the line succeeded
   * (./git.ts); a repository whose state the replay cannot follow becomes unknown. */
  replayGit(command: string, cwd: string, ran: boolean, source: string): GitReplayOutcome {
    let parsed: ReturnType<typeof parseCommandLine>;
    try {
      parsed = parseCommandLine(command, cwd, join(this.fs, "root"));
    } catch {
      return { ran: [], unknown: [] }; // the parser is not loaded: nothing replayed
    }
    if (!parsed.ok) return { ran: [], unknown: [] };
    const out = this.git.replay(parsed.commands, ran);
    for (const u of out.unknown) {
      this.unknownNow(u.path);
      this.sources.set(u.path, `${u.why} (${source})`);
    }
    return out;
  }

  /** Entries an `ls -l` or `find` of the command line listed (when it succeeded). */
  learnListing(command: string, cwd: string, output: string, source: string): number {
    let parsed: ReturnType<typeof parseCommandLine>;
    try {
      parsed = parseCommandLine(command, cwd, join(this.fs, "root"));
    } catch {
      return 0; // the parser is not loaded (the shell guard loads it): nothing learned
    }
    if (!parsed.ok) return 0;
    let learned = 0;
    for (const c of parsed.commands) {
      const name = c.argv[0]?.text;
      if (name === "ls" && c.cwd !== null) learned += this.learnLs(c.argv.slice(1).map((w) => w.text), c.cwd, output, source);
      else if (name === "find" && c.cwd !== null && parsed.commands.length === 1) learned += this.learnFind(c.argv.slice(1).map((w) => w.text), c.cwd, output, source);
    }
    return learned;
  }

  private learnLs(args: (string | null)[], cwd: string, output: string, source: string): number {
    if (args.some((a) => a === null)) return 0;
    const flags = (args as string[]).filter((a) => a.startsWith("-") && !a.startsWith("--")).join("");
    const ops = (args as string[]).filter((a) => !a.startsWith("-"));
    if (!flags.includes("l") || flags.includes("d")) return 0;
    const all = flags.includes("a") || flags.includes("A");
    let dir = ops.length === 1 ? (isAbsolute(ops[0]!) ? ops[0]! : resolve(cwd, ops[0]!)) : ops.length === 0 ? cwd : null;
    let learned = 0;
    const listedDirs = new Set<string>();
    for (const line of output.split("\n")) {
      const header = line.match(/^(\/.*|\.{1,2}(?:\/.*)?|[^\s].*):$/);
      if (header !== null && !LONG_LISTING.test(line)) {
        const h = header[1]!;
        dir = isAbsolute(h) ? resolve(h) : resolve(cwd, h);
        continue;
      }
      const m = line.match(LONG_LISTING);
      if (m === null) continue;
      let name = m[2]!;
      if (m[1] === "l") name = name.split(" -> ")[0]!;
      if (name === "." || name === "..") continue;
      // An operand that is a file is listed under its own name.
      const own = name.includes("/") || ops.includes(name);
      if (!own && dir === null) continue;
      const p = own ? (isAbsolute(name) ? resolve(name) : resolve(cwd, name)) : join(dir!, name);
      if (!this.inside(p) || (!isAbsolute(name) && name.includes("/") && p === dir)) continue;
      if (m[1] === "d" || m[1] === "-" || m[1] === "l") {
        if (lkind(p) === "absent" || this.unknown.has(p)) {
          this.present(p, m[1] === "d" ? "directory" : "file", `listed by ${source}`);
          learned++;
        }
        if (!own) listedDirs.add(dir!);
      }
    }
    if (all) for (const d of listedDirs) if (lkind(d) === "directory") this.complete.add(d);
    return learned;
  }

  private learnFind(args: (string | null)[], cwd: string, output: string, source: string): number {
    if (args.some((a) => a === null) || (args as string[]).some((a) => a === "-delete" || a.startsWith("-exec") || a.startsWith("-ok") || a === "-fprint")) return 0;
    const roots = (args as string[]).filter((a, i) => !a.startsWith("-") && !a.startsWith("(") && (i === 0 || !(args as string[])[i - 1]!.startsWith("-"))).map((a) => resolve(cwd, a));
    const onlyDirs = (args as string[]).some((a, i) => a === "-type" && args[i + 1] === "d");
    const lines = output.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("/") || l.startsWith("./") || l === ".");
    const paths = lines.map((l) => resolve(cwd, l)).filter((p) => this.inside(p) && roots.some((r) => p === r || p.startsWith(`${r}/`)));
    const dirs = new Set<string>();
    for (const p of paths) for (let a = dirname(p); this.inside(a) && a !== this.fs; a = dirname(a)) dirs.add(a);
    let learned = 0;
    for (const p of paths) {
      if (lkind(p) !== "absent" && !this.unknown.has(p)) continue;
      this.present(p, onlyDirs || dirs.has(p) ? "directory" : "file", `listed by ${source}`);
      learned++;
    }
    return learned;
  }

  /** The editor tool (OpenHands str_replace_editor): its effect when the observation says it worked. */
  applyEdit(path: string, args: Record<string, unknown>, observation: string | null, source: string): void {
    const p = this.host(path);
    if (observation === null || /^ERROR:/.test(observation.trimStart())) {
      if (observation !== null && /does not exist/.test(observation)) this.absentNow(p, `the editor said it does not exist (${source})`);
      return;
    }
    const cmd = args.command;
    if (cmd === "create") this.present(p, "file", `created by ${source}`, typeof args.file_text === "string" ? args.file_text : "");
    else if (cmd === "str_replace" && lkind(p) === "file" && typeof args.old_str === "string") {
      const before = readFileSync(p, "utf8");
      const i = before.indexOf(args.old_str);
      if (i >= 0) writeFileSync(p, before.slice(0, i) + String(args.new_str ?? "") + before.slice(i + args.old_str.length));
      this.forget(p);
      this.sources.set(p, `edited by ${source}`);
    } else if (lkind(p) === "absent") this.present(p, "file", `edited by ${source}`);
    else this.sources.set(p, `edited by ${source}`);
  }

  /** The editor's `create` refuses an existing path: when it succeeded, the path was absent. */
  absentBefore(path: string, source: string): void {
    this.absentNow(this.host(path), source);
  }

  private absentNow(p: string, source: string): void {
    if (!this.inside(p) || lkind(p) !== "absent") return;
    this.absent.add(p);
    this.unknown.delete(p);
    this.sources.set(p, source);
  }

  /** The editor's `view`: the file's text (cat -n), a directory's entries, or that it does not exist. */
  applyRead(path: string, observation: string, source: string): void {
    const p = this.host(path);
    if (/^ERROR:/.test(observation.trimStart())) {
      if (/does not exist/.test(observation)) this.absentNow(p, `the editor said it does not exist (${source})`);
      return;
    }
    const cat = observation.match(/^Here's the result of running `cat -n` on (.+?):\n([\s\S]*)$/);
    if (cat !== null) {
      if (lkind(p) === "absent" || this.unknown.has(p)) {
        const text = cat[2]!.split("\n").filter((l) => /^\s*\d+\t/.test(l)).map((l) => l.replace(/^\s*\d+\t/, "")).join("\n");
        this.present(p, "file", `read by ${source}`, text);
      }
      return;
    }
    const listing = observation.match(/^Here's the files and directories up to \d+ levels? deep in (.+?), excluding hidden items:\n([\s\S]*)$/);
    if (listing !== null) {
      if (lkind(p) === "absent") this.present(p, "directory", `listed by ${source}`);
      const entries = listing[2]!.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("/"));
      for (const e of entries) {
        const q = this.host(e.replace(/\/$/, ""));
        if (q === p || lkind(q) !== "absent") continue;
        this.present(q, e.endsWith("/") ? "directory" : "file", `listed by ${source}`);
      }
    }
  }

  dispose(): void {
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

// Glob expansion against the real filesystem at check time, bounded: a pattern is matched one path
// segment at a time (picomatch with bash's rules: nothing but a leading dot matches a leading dot; POSIX brackets, so
// `[!a]` is "not a" as in bash, not picomatch's default "! or a"), reading only the directories the
// pattern walks through. Over the bound the expansion stops with `over: true`.
import { lstatSync, readdirSync } from "node:fs";
import picomatch from "picomatch";

export const MAX_GLOB_MATCHES = 10_000;
export const MAX_GLOB_ENTRIES = 100_000;

export interface GlobResult {
  /** Absolute paths, sorted like bash (byte order). Empty: no match (bash then passes the word). */
  matches: string[];
  /** The bound was hit: the expansion is incomplete. */
  over: boolean;
}

const GLOB_CHARS = /(^|[^\\])[*?[]/;

export function expandGlob(pattern: string, cwd: string): GlobResult {
  let bases: string[] = [pattern.startsWith("/") ? "/" : cwd];
  let entries = 0;
  for (const seg of pattern.split("/").filter((s) => s !== "")) {
    const next: string[] = [];
    if (!GLOB_CHARS.test(seg)) {
      const lit = seg.replace(/\\(.)/g, "$1");
      for (const b of bases) next.push(b === "/" ? `/${lit}` : `${b}/${lit}`);
    } else {
      // POSIX brackets make `[!a]` bash's "not a"; a name's leading dot is matched only by a leading
      // dot of the pattern, never by `*`, `?` or a bracket (bash without dotglob).
      const isMatch = picomatch(seg, { posix: true });
      const dots = seg.startsWith(".");
      for (const b of bases) {
        let names: string[];
        try {
          names = readdirSync(b);
        } catch {
          continue; // not a directory, or unreadable: nothing matches there (bash does the same)
        }
        entries += names.length;
        if (entries > MAX_GLOB_ENTRIES) return { matches: [], over: true };
        for (const name of names) {
          if ((dots || !name.startsWith(".")) && isMatch(name)) {
            next.push(b === "/" ? `/${name}` : `${b}/${name}`);
            if (next.length > MAX_GLOB_MATCHES) return { matches: [], over: true };
          }
        }
      }
    }
    // Never over MAX_GLOB_MATCHES here: a glob segment returns when it goes over, a literal one keeps
    // the count. Once empty, every later segment keeps it empty.
    bases = next;
  }
  if (!GLOB_CHARS.test(pattern)) return { matches: [], over: false };
  // Literal segments after the last glob may name nothing: keep only what exists.
  const matches = bases.filter((p) => exists(p)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return { matches, over: false };
}

/** lstat: a dangling symbolic link exists (bash lists it). */
function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

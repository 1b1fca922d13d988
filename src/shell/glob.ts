// Glob expansion against the real filesystem at check time, bounded: a pattern is matched one path
// segment at a time (picomatch, bash's rules: `*` does not match a leading dot), reading only the
// directories the pattern walks through. Over the bound the expansion stops with `over: true`.
import { existsSync, lstatSync, readdirSync } from "node:fs";
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
  const absolute = pattern.startsWith("/");
  const segs = pattern.split("/").filter((s, i) => s !== "" || i === 0);
  let bases: string[] = [absolute ? "/" : cwd];
  let entries = 0;
  const start = absolute ? 1 : 0;
  for (let i = start; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    const next: string[] = [];
    if (!GLOB_CHARS.test(seg)) {
      const lit = seg.replace(/\\(.)/g, "$1");
      for (const b of bases) next.push(b === "/" ? `/${lit}` : `${b}/${lit}`);
    } else {
      const isMatch = picomatch(seg, { dot: seg.startsWith("."), bash: true });
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
          if (isMatch(name)) {
            next.push(b === "/" ? `/${name}` : `${b}/${name}`);
            if (next.length > MAX_GLOB_MATCHES) return { matches: [], over: true };
          }
        }
      }
    }
    bases = next;
    if (bases.length === 0) break;
    if (!last && bases.length > MAX_GLOB_MATCHES) return { matches: [], over: true };
  }
  if (!GLOB_CHARS.test(pattern)) return { matches: [], over: false };
  // Literal segments after the last glob may name nothing: keep only what exists.
  const matches = bases.filter((p) => exists(p)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return { matches, over: false };
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return existsSync(p);
  }
}

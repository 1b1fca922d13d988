// Glob expansion against the real filesystem (src/shell/glob.ts): what bash would expand a pattern
// to in a directory, in bash's order, with its dot rule, escapes, literal segments that name nothing,
// and the bounds. In-process on a temporary directory.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expandGlob, MAX_GLOB_ENTRIES, MAX_GLOB_MATCHES } from "../../src/shell/glob.js";

let d: string;

beforeAll(() => {
  d = mkdtempSync(`${tmpdir()}/polar-glob-`);
  for (const f of ["a.txt", "b.txt", "B.txt", "c.md", ".hidden.txt", "Z.txt", "_u.txt", "star*.txt", "q?.txt"]) writeFileSync(`${d}/${f}`, f);
  mkdirSync(`${d}/src/lib`, { recursive: true });
  mkdirSync(`${d}/docs`);
  mkdirSync(`${d}/.cfg`);
  writeFileSync(`${d}/src/x.ts`, "x");
  writeFileSync(`${d}/src/lib/y.ts`, "y");
  writeFileSync(`${d}/src/lib/keep.md`, "k");
  writeFileSync(`${d}/docs/keep.md`, "k");
  writeFileSync(`${d}/.cfg/keep.md`, "k");
  symlinkSync("nowhere", `${d}/dangling.txt`);
});
afterAll(() => rmSync(d, { recursive: true, force: true }));

const rel2 = (base: string, ms: string[]) => ms.map((m) => m.slice(base.length + 1));
const rel = (ms: string[]) => rel2(d, ms);

describe("expandGlob", () => {
  it("a star in the last segment: every matching name in byte order (upper case before lower, `_` between), no dot files, dangling links included", () => {
    const g = expandGlob("*.txt", d);
    expect(g.over).toBe(false);
    expect(rel(g.matches)).toEqual(["B.txt", "Z.txt", "_u.txt", "a.txt", "b.txt", "dangling.txt", "q?.txt", "star*.txt"]);
  });

  it("names are sorted by their bytes (UTF-8), as bash in the C locale: U+FF5A before U+1F600, which UTF-16 order puts the other way", () => {
    const u = mkdtempSync(`${tmpdir()}/polar-glob-utf8-`);
    try {
      for (const n of ["\u{1F600}.txt", "\uFF5A.txt", "e.txt"]) writeFileSync(`${u}/${n}`, "");
      expect(rel2(u, expandGlob("*.txt", u).matches)).toEqual(["e.txt", "\uFF5A.txt", "\u{1F600}.txt"]);
    } finally {
      rmSync(u, { recursive: true, force: true });
    }
  });

  it("a pattern that starts with a dot matches dot files; nothing else does (bash without dotglob)", () => {
    expect(rel(expandGlob("[.]*", d).matches)).toEqual([]);
    expect(rel(expandGlob("?hidden.txt", d).matches)).toEqual([]);
    expect(rel(expandGlob(".h*", d).matches)).toEqual([".hidden.txt"]);
    expect(rel(expandGlob(".*/keep.md", d).matches)).toEqual([".cfg/keep.md"]);
  });

  it("? and [...] classes", () => {
    expect(rel(expandGlob("?.txt", d).matches)).toEqual(["B.txt", "Z.txt", "a.txt", "b.txt"]);
    expect(rel(expandGlob("[ab].txt", d).matches)).toEqual(["a.txt", "b.txt"]);
  });

  it("a glob in a middle segment, then a literal segment: only the paths that exist", () => {
    expect(rel(expandGlob("*/keep.md", d).matches)).toEqual(["docs/keep.md"]);
    expect(rel(expandGlob("src/*/keep.md", d).matches)).toEqual(["src/lib/keep.md"]);
    expect(rel(expandGlob("*/nothing.md", d).matches)).toEqual([]);
  });

  it("a literal first segment, a glob below it", () => {
    expect(rel(expandGlob("src/*.ts", d).matches)).toEqual(["src/x.ts"]);
    expect(rel(expandGlob("src/lib/*", d).matches)).toEqual(["src/lib/keep.md", "src/lib/y.ts"]);
  });

  it("no match: an empty list (bash then passes the word as it is), not over the bound", () => {
    expect(expandGlob("*.none", d)).toEqual({ matches: [], over: false });
    expect(expandGlob("nodir/*.txt", d)).toEqual({ matches: [], over: false });
    // Below a file nothing matches (readdir fails there).
    expect(expandGlob("a.txt/*", d)).toEqual({ matches: [], over: false });
  });

  it("escaped glob characters are literal: a pattern with only escaped ones is no glob and expands to nothing", () => {
    expect(expandGlob("star\\*.txt", d)).toEqual({ matches: [], over: false });
    expect(expandGlob("q\\?.txt", d)).toEqual({ matches: [], over: false });
    // An escaped literal segment before a real glob names the real file.
    expect(rel(expandGlob("star\\*.txt/../*.md", d).matches)).toEqual([]);
    expect(rel(expandGlob("s\\rc/*.ts", d).matches)).toEqual(["src/x.ts"]);
  });

  it("an absolute pattern expands from the root", () => {
    expect(expandGlob(`${d}/[ab].txt`, "/elsewhere").matches).toEqual([`${d}/a.txt`, `${d}/b.txt`]);
    const t = expandGlob("/t*", "/elsewhere").matches;
    expect(t).toContain("/tmp");
    expect(t.every((p) => /^\/t[^/]*$/.test(p))).toBe(true);
  });

  it("doubled slashes are one separator", () => {
    expect(rel(expandGlob("src//*.ts", d).matches)).toEqual(["src/x.ts"]);
  });

  it("[!…] and [^…] are bash's negated classes: every name but the listed ones (was: `[!a]` read as `!` or `a`, so `rm [!a]*` was judged as removing a.txt)", () => {
    expect(rel(expandGlob("[!a]*.txt", d).matches)).toEqual(["B.txt", "Z.txt", "_u.txt", "b.txt", "dangling.txt", "q?.txt", "star*.txt"]);
    expect(rel(expandGlob("[^abBZ_]*.txt", d).matches)).toEqual(["dangling.txt", "q?.txt", "star*.txt"]);
    expect(rel(expandGlob("[!a-z].txt", d).matches)).toEqual(["B.txt", "Z.txt"]);
    expect(rel(expandGlob("[[:upper:]].txt", d).matches)).toEqual(["B.txt", "Z.txt"]);
  });
});

describe("the bounds: over them the expansion is incomplete and says so", () => {
  let big: string;
  beforeAll(() => {
    big = mkdtempSync(`${tmpdir()}/polar-glob-big-`);
    // 10,000 names that `f*` matches and one that it does not.
    for (let i = 0; i < MAX_GLOB_MATCHES; i++) writeFileSync(`${big}/f${i}`, "");
    writeFileSync(`${big}/g`, "");
  });
  afterAll(() => rmSync(big, { recursive: true, force: true }));

  it(`${MAX_GLOB_MATCHES} matches are complete; one more is over the bound`, () => {
    const f = expandGlob("f*", big);
    expect(f.over).toBe(false);
    expect(f.matches.length).toBe(MAX_GLOB_MATCHES);
    expect(expandGlob("*", big)).toEqual({ matches: [], over: true });
    expect(expandGlob(`${big}/*`, "/")).toEqual({ matches: [], over: true });
  });

  it(`${MAX_GLOB_ENTRIES} directory entries read are complete; one more is over the bound, even with no match`, () => {
    // A folder of 400 entries (249 folders, 151 files): `d*/../x*` reads it once for `d*` and once
    // through each of the 249 folders' `..`: 400 × 250 = 100,000 entries.
    const root = mkdtempSync(`${tmpdir()}/polar-glob-entries-`);
    try {
      for (let i = 0; i < 249; i++) mkdirSync(`${root}/d${i}`);
      for (let i = 0; i < 151; i++) writeFileSync(`${root}/f${i}`, "");
      expect(expandGlob("d*/../x*", root)).toEqual({ matches: [], over: false });
      writeFileSync(`${root}/f151`, "");
      expect(expandGlob("d*/../x*", root)).toEqual({ matches: [], over: true });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

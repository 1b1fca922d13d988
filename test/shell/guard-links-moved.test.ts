// Links inside a folder the line moves or copies with its links, proved by execution: a later command
// of the line that goes through such a link (to a file or folder in the workspace or outside it,
// relative or absolute, dangling) reaches what the link points to, which the check, reading the
// destination as it is before the line (absent), could not see. Before, `mv dir other && echo x >
// other/l` (l -> ../../out/f) was approved, and the undo left out/f holding "x".
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/index.js";
import { sh, tempDir, undoneExactly } from "./helpers.js";

const TREE = [
  "mkdir -p dir into $OUT/odir && printf 'in\\n' > dir/in.txt && printf 'work\\n' > u.txt && printf 'outside\\n' > $OUT/o.txt && printf 'f\\n' > $OUT/odir/f.txt",
  "ln -s ../../out/o.txt dir/lnk-out && ln -s $OUT/o.txt dir/lnk-abs && ln -s ../u.txt dir/lnk-in && ln -s ../../out/odir dir/lnk-dir && ln -s ../nothing dir/dangling && ln -s in.txt dir/lnk-sib",
].join(" && ");

describe("a path through a link inside a folder the line moves or copies", () => {
  it.each([
    "mv dir other && echo x > other/lnk-out",
    "mv dir other && echo x > other/lnk-abs",
    "mv dir other && echo x > other/lnk-in",
    "mv dir other && echo x > other/dangling",
    "mv dir other && rm -rf other/lnk-dir/",
    "mv dir a; mv a b; echo x > b/lnk-out",
    "mv dir into && echo x > into/dir/lnk-out",
    "cp -r dir d2 && echo x > d2/lnk-in",
    "cp -a dir d2 && echo x > d2/lnk-abs",
    "cp -rP dir d2 && echo x > d2/lnk-out",
    "cp -rH dir d2 && echo x > d2/lnk-out",
    "cp -r dir d2 && rm -rf d2/lnk-dir/",
    "cp -r dir d2 && touch d2/lnk-dir/new",
    "cp -r dir d2 && bash -c 'echo x > d2/lnk-out'",
    "git mv dir other && echo x > other/lnk-out",
  ])("%s: asked", async (line) => {
    for (const git of [false, true]) {
      if (!git && line.startsWith("git")) continue;
      const r = await undoneExactly(TREE, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(false);
      expect(r.reason).toBe("unresolved_argument");
      expect(r.message).toMatch(/which this line moves or copies there from .*, a link: what it reaches is not known at check time/);
    }
  });

  // Not through a link: judged, approved and undone exactly.
  it.each([
    "mv dir other && echo x > other/in.txt",
    "cp -r dir d2 && echo x > d2/in.txt",
    "cp -rL dir d2 && echo x > d2/lnk-out",
    "mv dir other && rm -f other/in.txt",
  ])("%s: undone exactly", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(TREE, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });
});

describe("cd -P (or after set -P) through a link to a folder", () => {
  // far -> sub/deep: `cd -P far/..` goes to sub, not to the workspace the text names; after `cd -P far`,
  // `cd ..` leaves from sub/deep. Judged in the workspace before, the line was approved and its undo
  // left sub/deep written or removed.
  const FAR = "mkdir -p sub/deep && printf 'deep\\n' > sub/deep/d.txt && ln -s sub/deep far && mkdir deep && printf 'other\\n' > deep/d.txt";
  it.each([
    "cd -P far/.. && echo x > deep/d.txt",
    "cd -P far && cd .. && rm -rf deep",
    "set -P; cd far/.. && rm -rf deep",
    "set -o physical; cd far/.. && rm -rf deep",
    "cd far && cd -P .. && rm -rf deep",
  ])("%s: asked", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(FAR, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(false);
      expect(r.reason).toBe("unresolved_argument");
    }
  });

  it.each(["cd far/.. && rm -rf deep", "cd -P far && rm -f d.txt", "cd -L far/.. && echo x > deep/d.txt"])("%s: undone exactly", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(FAR, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });
});

describe("find through the links under its starting points", () => {
  // find -L (or -follow) deletes through a link (dir/lnk-dir -> $OUT/odir: $OUT/odir/f.txt went); -H
  // follows a starting point that is a link (sldir -> dir: dir's files went, judged as the link alone);
  // chmod, truncate given a link by -exec act on what it points to. Each was approved and its undo left
  // what the link reaches changed.
  const LINKS = `${TREE} && ln -s dir sldir`;
  it.each(["find -L dir -delete", "find dir -follow -delete", "find dir -exec chmod 600 {} +", "find dir -exec truncate -s 0 {} +"])("%s: asked", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(LINKS, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(false);
      expect(r.reason).toBe("unresolved_argument");
    }
  });

  it.each(["find -H sldir -delete", "find sldir -delete", "find dir -name in.txt -delete"])("%s: undone exactly", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(LINKS, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });
});

describe("where a copy or move goes", () => {
  // `cp -a dir/. sloutdir/` merges dir's contents into the folder the link leads to ($OUT/odir), judged
  // as $OUT/odir/dir, new (its undo removed nothing that was written); `mkdir into && mv dir into` makes
  // into/dir, judged as into (so into/dir/l was not seen as the link it is).
  const LINKS = `${TREE} && ln -s ../out/odir sloutdir`;
  it.each(["cp -a dir/. sloutdir/", "cp -r dir/. into", "mkdir new && cp -a dir/. new"])("%s: undone exactly", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(LINKS, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });

  it.each(["mkdir new && mv dir new && echo x > new/dir/lnk-abs", "mkdir -p new && cp -a dir new && echo x > new/dir/lnk-out"])("%s: asked", async (line) => {
    const r = await undoneExactly(LINKS, line, false);
    expect(r.approved, `${r.reason} ${r.message}`).toBe(false);
    expect(r.reason).toBe("unresolved_argument");
  });
});

describe("git writing a tracked path with a link in its way", () => {
  // dir (tracked, holding in.txt) replaced by a link to a folder outside: `git checkout -- dir/in.txt`
  // removes the link and makes the folder dir again. Judged as dir/in.txt through the link (absent
  // there: its undo removed the file), the undo left a folder where the link was.
  const WAY = "mkdir -p dir $OUT/odir && printf 'in\\n' > dir/in.txt";
  it.each(["git checkout -- dir/in.txt", "git restore dir/in.txt", "git checkout HEAD -- dir/in.txt", "git restore --source=HEAD dir/in.txt"])("%s: undone exactly", async (line) => {
    const r = await undoneExactly(WAY, line, true, "rm -rf dir && ln -s ../out/odir dir");
    expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
    expect(r.undo).toBe("undone");
    expect(r.after).toEqual([]);
  });
});

describe("two spellings of one place (alink -> zdir)", () => {
  // Calls of a line reaching one file or folder by two spellings were not seen to overlap (the paths
  // were compared as text), and a restore point kept both spellings, putting back alink/in.txt before
  // zdir existed again: the undo failed halfway (inverse_failed) and zdir stayed removed. Or each call
  // was undone alone on the state before the line: `echo a > alink/n && mv zdir/n m` left m behind.
  const TWO = "mkdir zdir && printf 'in\\n' > zdir/in.txt && ln -s zdir alink";
  it.each([
    "echo x > alink/in.txt && rm -rf zdir",
    "rm -f alink/in.txt; rm -rf zdir",
    "echo a > alink/n && mv zdir/n m",
    "mv zdir/in.txt alink/m && mv alink/m zdir/k",
    "mv alink/in.txt x && echo y > zdir/in.txt",
  ])("%s: undone exactly", async (line) => {
    for (const git of [false, true]) {
      const r = await undoneExactly(TWO, line, git);
      expect(r.approved, `${r.reason} ${r.message}`).toBe(true);
      expect(r.undo).toBe("undone");
      expect(r.after).toEqual([]);
    }
  });

  it("under veto they overlap (their undo depends on their order)", async () => {
    const root = tempDir("polar-shell-spellings-");
    try {
      sh(root, `mkdir ws && cd ws && ${TWO}`);
      const g = await createShellGuard({ cwd: `${root}/ws`, store: `${root}/store`, policy: "veto" });
      expect(g.check({ tool: "shell", args: { command: "echo a > alink/n && mv zdir/n m" } }).reason).toBe("overlap");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

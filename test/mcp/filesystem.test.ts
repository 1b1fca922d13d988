// The gateway in front of the real @modelcontextprotocol/server-filesystem (allowed directory: a temp
// dir): every admitted call's π, executed through the gateway, puts the files back (the contents of
// every file under the directory, compared byte for byte); a creation's π moves the new file aside (the
// declared `moved_aside` residue: the path is free again, the copy sits at `<path>.polar-undo`);
// refusals leave everything untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { FS_ONTOLOGY, FS_RULES, FS_SERVER, decisionOf, gateway, runInverse, tempDir, textOf, type Connected } from "./helpers.js";

let g: Connected;
let tmp: ReturnType<typeof tempDir>;
let root: string;

/** Every file and directory under root: path → content (files) or "<dir>". */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const rel = relative(root, p);
      if (statSync(p).isDirectory()) {
        out[rel] = "<dir>";
        walk(p);
      } else out[rel] = readFileSync(p).toString("base64");
    }
  };
  walk(root);
  return out;
}

async function admittedAndUndone(name: string, args: Record<string, unknown>, residue: string[] = []): Promise<void> {
  const before = snapshot();
  const r = await g.call(name, args);
  expect(r.isError, textOf(r)).not.toBe(true);
  const d = decisionOf(r);
  expect(d.route).toBe("Approved");
  await runInverse(g, d);
  const after = snapshot();
  for (const p of residue) {
    expect(after[p], `residue ${p}`).toBeDefined();
    delete after[p];
  }
  expect(after).toEqual(before);
}

async function refusedAndUntouched(name: string, args: Record<string, unknown>, reason: string): Promise<string> {
  const before = snapshot();
  const r = await g.call(name, args);
  expect(r.isError).toBe(true);
  const d = decisionOf(r);
  expect(d.route).toBe("Vetoed");
  expect(d.reason).toBe(reason);
  expect(snapshot()).toEqual(before);
  return textOf(r);
}

beforeAll(async () => {
  tmp = tempDir("fs");
  root = tmp.dir;
  writeFileSync(join(root, "notes.txt"), "first line\nsecond line\n");
  writeFileSync(join(root, "ünïcode.md"), "# Tïtle\n\nbody ✓\n");
  writeFileSync(join(root, "binary.bin"), Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]));
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs", "a.txt"), "a");
  g = await gateway({ ontology: FS_ONTOLOGY, rules: FS_RULES, server: [process.execPath, FS_SERVER, root] });
}, 60_000);

afterAll(async () => {
  await g?.close();
  tmp?.cleanup();
});

describe("gateway in front of server-filesystem: admitted calls are undone by executing π", () => {
  it("write_file over an existing file is undone by writing back the content read before the call", () =>
    admittedAndUndone("write_file", { path: join(root, "notes.txt"), content: "overwritten" }));

  it("write_file over a non-ASCII UTF-8 file is undone exactly", () =>
    admittedAndUndone("write_file", { path: join(root, "ünïcode.md"), content: "" }));

  it("edit_file is undone by writing back the content read before the call", () =>
    admittedAndUndone("edit_file", { path: join(root, "notes.txt"), edits: [{ oldText: "second line", newText: "2nd line" }] }));

  it("move_file is undone by moving it back", () =>
    admittedAndUndone("move_file", { source: join(root, "notes.txt"), destination: join(root, "docs", "moved.txt") }));

  it("move_file of a directory is undone by moving it back", () =>
    admittedAndUndone("move_file", { source: join(root, "docs"), destination: join(root, "documents") }));

  it("create_directory of an existing directory changes nothing and its π is the same no-op", () =>
    admittedAndUndone("create_directory", { path: join(root, "docs") }));

  it("write_file of a new file is compensated by moving it aside (residue: the moved copy)", () =>
    admittedAndUndone("write_file", { path: join(root, "new.txt"), content: "hello" }, ["new.txt.polar-undo"]));

  it("create_directory of a new directory is compensated by moving it aside", () =>
    admittedAndUndone("create_directory", { path: join(root, "fresh") }, ["fresh.polar-undo"]));
});

describe("gateway in front of server-filesystem: refusals leave the files untouched", () => {
  it("overwriting a file that is not UTF-8 text is refused (its content could not be written back)", async () => {
    const text = await refusedAndUntouched("write_file", { path: join(root, "binary.bin"), content: "x" }, "missing_entity");
    expect(text).toMatch(/UTF-8 text file/);
  });

  it("editing a file that does not exist is refused", () =>
    refusedAndUntouched("edit_file", { path: join(root, "nope.txt"), edits: [{ oldText: "a", newText: "b" }] }, "missing_entity"));

  it("creating nested new directories at once is refused (the parents would stay)", () =>
    refusedAndUntouched("create_directory", { path: join(root, "x", "y", "z") }, "missing_entity"));

  it("a new file whose aside place is taken is refused", async () => {
    writeFileSync(join(root, "taken.txt.polar-undo"), "occupied");
    await refusedAndUntouched("write_file", { path: join(root, "taken.txt"), content: "x" }, "missing_entity");
  });

  it("moving onto an existing destination is refused (bound: the destination must be free)", () =>
    refusedAndUntouched("move_file", { source: join(root, "ünïcode.md"), destination: join(root, "docs", "a.txt") }, "bound_violated"));

  it("a path outside the allowed directory is refused (the state cannot be read)", () =>
    refusedAndUntouched("write_file", { path: "/etc/polar-should-not-exist", content: "x" }, "missing_entity"));

  it("read-only tools pass straight through", async () => {
    const r = await g.call("read_text_file", { path: join(root, "docs", "a.txt") });
    expect(r.isError).not.toBe(true);
    expect(textOf(r)).toBe("a");
    expect((r._meta as Record<string, unknown> | undefined)?.["polar-guard/decision"]).toBeUndefined();
  });
});

describe("defence in depth: an admitted π the server could not run is refused", () => {
  it("rules without the `finally` gate would admit a new file whose aside is taken; the gateway checks π against the server's schemas", async () => {
    const t = tempDir("gap");
    const rules = JSON.parse(readFileSync(FS_RULES, "utf8"));
    delete rules.reads.write_file.finally;
    const rulesPath = join(t.dir, "rules.json");
    writeFileSync(rulesPath, JSON.stringify(rules));
    const files = join(t.dir, "files");
    mkdirSync(files);
    writeFileSync(join(files, "taken.txt.polar-undo"), "occupied");
    const log = join(t.dir, "decisions.jsonl");
    const h = await gateway({ ontology: FS_ONTOLOGY, rules: rulesPath, server: [process.execPath, FS_SERVER, files], auditLog: log });
    try {
      const r = await h.call("write_file", { path: join(files, "taken.txt"), content: "x" });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/`move_file` would lack `destination`/);
      expect(decisionOf(r).route).toBe("Vetoed");
      expect(readdirSync(files)).toEqual(["taken.txt.polar-undo"]);
      // The refused call was approved by the search, then released: it is not pending in later checks.
      await h.call("write_file", { path: join(files, "taken.txt.polar-undo"), content: "over" });
      const all = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      // The log says the approved call was refused after all (item 11: what finally happened).
      expect(all[1]).toMatchObject({ format: "polar-outcome/1", seq: 1, outcome: "refused" });
      expect(all[1].detail).toMatch(/move_file/);
      const records = all.filter((r) => r.format !== "polar-outcome/1");
      expect(records).toHaveLength(2);
      expect(records[1].forward).toEqual([]);
    } finally {
      await h.close();
      t.cleanup();
    }
  }, 60_000);
});

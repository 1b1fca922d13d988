// Issue 21, the MCP gateway's part: wrong approvals found by probing the gateway in front of the real
// filesystem server. Each case fails without its fix. Answers that are lost after the server ran the
// call, sessions that race and consent that goes stale are produced on purpose by the in-process
// harness (./inproc.ts); links and Unicode spellings are real files on disk.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { decisionOf, tempDir, textOf } from "./helpers.js";
import { harness, outcomesOf, type Harness } from "./inproc.js";
import { consentMessage } from "../../src/mcp/messages.js";

let h: Harness | undefined;
let tmp: ReturnType<typeof tempDir> | undefined;

afterEach(async () => {
  await h?.close();
  tmp?.cleanup();
  h = tmp = undefined;
});

async function fsHarness(opts: Parameters<typeof harness>[0] extends infer O ? Omit<O, "server" | "root"> : never = {}): Promise<{ h: Harness; root: string }> {
  tmp = tempDir("failclosed");
  h = await harness({ server: "filesystem", root: tmp.dir, ...opts });
  return { h, root: tmp.dir };
}

/** Everything under root, links as links (what `statSync`-based snapshots cannot tell apart). */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      const rel = relative(root, p);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `-> ${relative(root, readlinkSync(p))}`;
      else if (st.isDirectory()) {
        out[rel] = "<dir>";
        walk(p);
      } else out[rel] = readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}

describe("item 4: an answer lost after the server ran the call is not 'nothing happened'", () => {
  for (const fate of ["cancel", "timeout"] as const) {
    it(`session scope: a write whose answer is lost (${fate}) marks the file unknown; the next call on it is refused (unknown_state), the log says 'unknown'`, async () => {
      const { h, root } = await fsHarness({ scope: "session" });
      const a = join(root, "a.txt");
      writeFileSync(a, "v0");
      const s = await h.session();
      const first = await s.call("write_file", { path: a, content: "v1" });
      expect(decisionOf(first).route).toBe("Approved");
      const lost = await s.lose("write_file", { path: a, content: "v2" }, fate);
      expect(lost).toBeInstanceOf(Error);
      expect(readFileSync(a, "utf8")).toBe("v2"); // the server ran it
      const next = await s.call("write_file", { path: a, content: "v3" });
      expect(next.isError).toBe(true);
      expect(decisionOf(next)).toMatchObject({ route: "Vetoed", reason: "unknown_state" });
      expect(textOf(next)).toMatch(/may or may not have run/);
      expect(readFileSync(a, "utf8")).toBe("v2");
      expect(outcomesOf(s).map((o) => [o.seq, o.outcome])).toEqual([[1, "ran"], [2, "unknown"]]);
      h.verifyLogs();
    });
  }

  it("turn scope: the next call re-reads the file, so it is judged (and undone) on what the server really has", async () => {
    const { h, root } = await fsHarness({ scope: "turn" });
    const a = join(root, "a.txt");
    writeFileSync(a, "v0");
    const s = await h.session();
    await s.lose("write_file", { path: a, content: "v2" }, "cancel");
    const next = await s.call("write_file", { path: a, content: "v3" });
    expect(next.isError, textOf(next)).not.toBe(true);
    const d = decisionOf(next);
    expect(d.inverse[0]).toMatchObject({ tool: "write_file", arguments: { path: a, content: "v2" } });
    h.verifyLogs();
  });
});

describe("item 5: --listen sessions race on one upstream", () => {
  it("two sessions writing one file at once: the later is judged on the earlier's write, and its π restores it", async () => {
    const { h, root } = await fsHarness({ scope: "session" });
    const f = join(root, "shared.txt");
    writeFileSync(f, "v0");
    // Hold the state reads until both sessions have read (an unserialized gateway reads v0 twice).
    h.barrier("read_text_file", 2, 400);
    const [s1, s2] = [await h.session(), await h.session()];
    const [r1, r2] = await Promise.all([s1.call("write_file", { path: f, content: "A" }), s2.call("write_file", { path: f, content: "B" })]);
    expect(r1.isError, textOf(r1)).not.toBe(true);
    expect(r2.isError, textOf(r2)).not.toBe(true);
    const final = readFileSync(f, "utf8");
    const [later, earlier, laterContent] = final === "B" ? [r2, r1, "A"] : [r1, r2, "B"];
    void earlier;
    // The later call's π restores what the earlier one wrote, not the state before both.
    const inv = decisionOf(later).inverse[0];
    expect(inv).toMatchObject({ tool: "write_file", arguments: { content: laterContent } });
    h.verifyLogs();
  });
});

describe("item 11: the log says what finally happened", () => {
  it("consent given, then the state changed while asking: the re-judged approval is withdrawn and the log says 'refused'", async () => {
    const { h, root } = await fsHarness({ scope: "turn", policy: "escalate", tau: 0.9 });
    const p = join(root, "new.txt");
    const s = await h.session({
      elicit: () => {
        writeFileSync(p, "someone else's"); // the state the user was shown is gone
        return { action: "accept", content: { approve: true } };
      },
    });
    const r = await s.call("write_file", { path: p, content: "mine" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no longer covers it/);
    expect(readFileSync(p, "utf8")).toBe("someone else's");
    const decisions = s.decisions();
    const approved = decisions.filter((d) => d.approved);
    // Every approved decision has an outcome, and the one that did not run says so.
    expect(outcomesOf(s).map((o) => o.seq).sort()).toEqual(approved.map((d) => d.seq).sort());
    expect(outcomesOf(s).every((o) => o.outcome === "refused")).toBe(true);
    h.verifyLogs();
  });
});

describe("items 3 and 7: move_file acts on the path the server resolves", () => {
  async function movedAndUndone(setup: (root: string) => void, source: (root: string) => string, destination: (root: string) => string): Promise<void> {
    const { h, root } = await fsHarness({ scope: "turn" });
    setup(root);
    const before = tree(root);
    const s = await h.session();
    const r = await s.call("move_file", { source: source(root), destination: destination(root) });
    expect(r.isError, textOf(r)).not.toBe(true);
    const d = decisionOf(r);
    expect(d.route).toBe("Approved");
    for (const st of d.inverse) {
      const u = await s.call(st.tool!, st.arguments!);
      expect(u.isError, `π step ${st.tool} ${JSON.stringify(st.arguments)}: ${textOf(u)}`).not.toBe(true);
    }
    expect(tree(root)).toEqual(before);
  }

  it("a symlink to a file as the source: the server moves the target; π moves it back under the link", async () => {
    await movedAndUndone((root) => {
      writeFileSync(join(root, "real.txt"), "R");
      symlinkSync(join(root, "real.txt"), join(root, "link.txt"));
    }, (root) => join(root, "link.txt"), (root) => join(root, "moved.txt"));
  });

  it("a symlink to a directory as the source", async () => {
    await movedAndUndone((root) => {
      mkdirSync(join(root, "rdir"));
      writeFileSync(join(root, "rdir", "x.txt"), "X");
      symlinkSync(join(root, "rdir"), join(root, "ldir"));
    }, (root) => join(root, "ldir"), (root) => join(root, "moved"));
  });

  it("a destination inside a symlinked directory", async () => {
    await movedAndUndone((root) => {
      writeFileSync(join(root, "a.txt"), "A");
      mkdirSync(join(root, "rdir"));
      symlinkSync(join(root, "rdir"), join(root, "ldir"));
    }, (root) => join(root, "a.txt"), (root) => join(root, "ldir", "a.txt"));
  });

  for (const [label, dangling] of [["a symlink to a file", false], ["a dangling symlink", true]] as const) {
    it(`${label} as the destination: not free, so not admitted; nothing moves`, async () => {
      const { h, root } = await fsHarness({ scope: "turn" });
      writeFileSync(join(root, "a.txt"), "A");
      if (!dangling) writeFileSync(join(root, "target.txt"), "T");
      symlinkSync(join(root, "target.txt"), join(root, "dest.txt"));
      const before = tree(root);
      const s = await h.session();
      const r = await s.call("move_file", { source: join(root, "a.txt"), destination: join(root, "dest.txt") });
      expect(r.isError).toBe(true);
      expect(decisionOf(r).route).toBe("Vetoed");
      expect(tree(root)).toEqual(before);
    });
  }

  it("item 7: the NFD spelling of an NFC name moves the NFC file; π puts it back under the NFC name", async () => {
    await movedAndUndone((root) => {
      writeFileSync(join(root, "caf\u00e9.txt"), "nfc");
    }, (root) => join(root, "cafe\u0301.txt"), (root) => join(root, "x.txt"));
  });
});

describe("item 6: the consent question shows what the call acts on and what would be lost, or the call is refused", () => {
  it("the question names the path (whatever the argument order) and says what is there now", async () => {
    const { h, root } = await fsHarness({ scope: "turn", policy: "escalate", tau: 0.9 });
    const p = join(root, "new.txt");
    const asked: string[] = [];
    const s = await h.session({
      elicit: (message) => {
        asked.push(message);
        return { action: "decline" };
      },
    });
    const r = await s.call("write_file", { content: "new", path: p });
    expect(r.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`It acts on: the fs_path \`path\` = ${JSON.stringify(p)}.`);
    expect(asked[0]).toMatch(/What is there now \(what would be lost if it cannot be undone\):\n(  .*\n)*  kind: "absent"/);
    expect(existsSync(p)).toBe(false);
  });

  it("what would be lost is previewed value by value, with the length of a long one", () => {
    const shown = consentMessage("write_file", { path: "/n.txt", content: "x" }, "Approve?", { entity: "fs_path", keyArg: "path", key: "/n.txt" }, [
      ["fs_path", "/n.txt", "kind", "file"],
      ["fs_path", "/n.txt", "content", "y".repeat(1000)],
      ["fs_path", "/other.txt", "content", "not this one"],
    ]);
    expect(shown.ok).toBe(true);
    const text = shown.ok ? shown.message : "";
    expect(text).toContain('  kind: "file"');
    expect(text).toMatch(/ {2}content: "y{299}… \(1002 characters in all\)/);
    expect(text).not.toContain("not this one");
    expect(text.endsWith(JSON.stringify({ path: "/n.txt", content: "x" }, null, 2))).toBe(true);
  });

  it("a call too large to show whole (its path after 5,000 characters of content) is refused without asking", async () => {
    const { h, root } = await fsHarness({ scope: "turn", policy: "escalate", tau: 0.9 });
    const p = join(root, "notes.txt");
    let asked = 0;
    const s = await h.session({
      elicit: () => {
        asked++;
        return { action: "accept", content: { approve: true } };
      },
    });
    const r = await s.call("write_file", { content: "x".repeat(5000), path: p });
    expect(r.isError).toBe(true);
    expect(asked).toBe(0);
    expect(textOf(r)).toMatch(/not put to the user: the call's arguments are \d+ characters as JSON/);
    expect(existsSync(p)).toBe(false);
  });
});

// Escalate through elicitation (form mode) with the SDK's own client, in front of the real
// filesystem server. τ = 0.9 puts a new file's move-aside compensation (φ 0.855) below the threshold,
// so writing a new file needs the user's consent: accept runs it, decline and cancel refuse it, a
// client without elicitation is told consent could not be asked, and an approval does not survive a
// change of the state while the user was being asked.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { FS_ONTOLOGY, FS_RULES, FS_SERVER, ROOT, decisionOf, gateway, tempDir, textOf, type Connected, type Elicit } from "./helpers.js";
import { decodeApproval } from "../../src/guard/approval.js";

let g: Connected | undefined;
let tmp: ReturnType<typeof tempDir> | undefined;

afterEach(async () => {
  await g?.close();
  tmp?.cleanup();
  g = tmp = undefined;
});

async function start(elicit?: Elicit, auditLog?: string): Promise<{ g: Connected; root: string }> {
  tmp = tempDir("consent");
  g = await gateway({ ontology: FS_ONTOLOGY, rules: FS_RULES, server: [process.execPath, FS_SERVER, tmp.dir], policy: "escalate", tau: 0.9, elicit, auditLog });
  return { g, root: tmp.dir };
}

describe("escalate: consent through elicitation", () => {
  it("accept runs exactly the call, once, under an approval bound to the call and the state", async () => {
    const asked: string[] = [];
    const { g, root } = await start((message) => {
      asked.push(message);
      return { action: "accept", content: { approve: true } };
    });
    const path = join(root, "new.txt");
    const r = await g.call("write_file", { path, content: "hello" });
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(readFileSync(path, "utf8")).toBe("hello");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`It acts on: the fs_path \`path\` = ${JSON.stringify(path)}.`);
    expect(asked[0]).toContain("The call: write_file");
    expect(asked[0]).toContain(JSON.stringify(path));
    const d = decisionOf(r);
    expect(d.route).toBe("ConsentApproved");
    const token = decodeApproval(d.approval);
    expect(token?.by).toBe("user:elicitation");
  });

  it("the consent is in the audit log as the library writes it (ConsentEscalated, then ConsentApproved) and re-derives", async () => {
    const logDir = tempDir("consent-log");
    try {
      const log = join(logDir.dir, "decisions.jsonl");
      const { g, root } = await start(() => ({ action: "accept", content: { approve: true } }), log);
      await g.call("write_file", { path: join(root, "new.txt"), content: "hello" });
      await g.close();
      const routes = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l)).map((l) => l.route ?? `${l.format}:${l.outcome}`);
      expect(routes).toEqual(["ConsentEscalated", "ConsentApproved", "polar-outcome/1:ran"]);
      const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "audit", "verify", log, "--ontology", FS_ONTOLOGY], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      expect(r.stdout).toMatch(/2 of 2 decisions re-derived, 1 of 1 outcome records checked, 0 mismatches/);
    } finally {
      logDir.cleanup();
    }
  });

  it("decline refuses and changes nothing", async () => {
    const { g, root } = await start(() => ({ action: "decline" }));
    const r = await g.call("write_file", { path: join(root, "new.txt"), content: "hello" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/The user declined/);
    expect(decisionOf(r).route).toBe("ConsentEscalated");
    expect(existsSync(join(root, "new.txt"))).toBe(false);
  });

  it("accept with approve: false is a refusal", async () => {
    const { g, root } = await start(() => ({ action: "accept", content: { approve: false } }));
    const r = await g.call("write_file", { path: join(root, "new.txt"), content: "hello" });
    expect(r.isError).toBe(true);
    expect(existsSync(join(root, "new.txt"))).toBe(false);
  });

  it("cancel refuses and changes nothing", async () => {
    const { g, root } = await start(() => ({ action: "cancel" }));
    const r = await g.call("write_file", { path: join(root, "new.txt"), content: "hello" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/dismissed/);
    expect(existsSync(join(root, "new.txt"))).toBe(false);
  });

  it("a client without elicitation gets a refusal saying consent could not be asked", async () => {
    const { g, root } = await start();
    const r = await g.call("write_file", { path: join(root, "new.txt"), content: "hello" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Consent could not be asked: this MCP client does not support elicitation/);
    expect(existsSync(join(root, "new.txt"))).toBe(false);
  });

  it("an approval given while the state changed under it is refused (bound to the state read)", async () => {
    let root = "";
    const started = await start(() => {
      // Someone else creates the file while the user is being asked.
      writeFileSync(join(root, "new.txt"), "theirs");
      return { action: "accept", content: { approve: true } };
    });
    root = started.root;
    const r = await started.g.call("write_file", { path: join(root, "new.txt"), content: "mine" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no longer covers it/);
    expect(readFileSync(join(root, "new.txt"), "utf8")).toBe("theirs");
    rmSync(join(root, "new.txt"));
  });

  it("calls the guard admits run without asking", async () => {
    const asked: string[] = [];
    const { g, root } = await start((m) => {
      asked.push(m);
      return { action: "accept", content: { approve: true } };
    });
    writeFileSync(join(root, "old.txt"), "old");
    const r = await g.call("write_file", { path: join(root, "old.txt"), content: "new" });
    expect(decisionOf(r).route).toBe("Approved");
    expect(asked).toHaveLength(0);
  });
});

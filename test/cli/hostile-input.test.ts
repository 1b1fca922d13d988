// Issue 21 item 18: the CLI reads only what it can read safely. A device (/dev/zero) or a FIFO is
// refused before a byte is read (no reading until memory runs out, no hang), a file over the cap is
// refused at the cap, `compile x.polar -o x.polar` never overwrites its source, and `audit head`
// refuses a log whose last line is not a decision record.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditHeadError, chainHead } from "../../src/audit/index.js";
import { runAuditHead } from "../../src/cli/commands/audit.js";
import { runDemo } from "../../src/cli/commands/demo.js";
import { CliError } from "../../src/cli/errors.js";
import { readBytes } from "../../src/cli/files.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "polar-cli-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function polar(...args: string[]) {
  // A timeout turns a hang into a failure (status null) instead of a stuck test.
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), join(REPO, "src", "cli", "index.ts"), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=256" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function thrown(f: () => unknown): CliError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  }
  throw new Error("expected a CliError");
}

const ontology = join(REPO, "test", "guard", "fixtures", "airline.polar");
const posix = process.platform !== "win32";

describe("bounded reads", () => {
  it.runIf(posix && existsSync("/dev/zero"))("`polar check /dev/zero` and `audit verify /dev/zero` are refused as devices, not read", () => {
    const check = polar("check", "/dev/zero");
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("error[not-a-file]: the ontology `/dev/zero` is a device, not a regular file");
    const verify = polar("audit", "verify", "/dev/zero", "--ontology", ontology);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain("error[not-a-file]: the decision log `/dev/zero` is a device");
    const head = polar("audit", "head", "/dev/zero");
    expect(head.code).toBe(1);
    expect(head.stderr).toContain("error[not-a-file]");
  });

  it.runIf(posix)("a FIFO with no writer is refused at once (no hang), in the CLI and in readBytes", () => {
    const fifo = join(dir, "fifo.polar");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
    const r = polar("check", fifo);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is a pipe (FIFO), not a regular file");
    expect(thrown(() => readBytes(fifo, "state")).code).toBe("not-a-file");
  });

  it("a folder is refused as not a file", () => {
    expect(thrown(() => readBytes(dir, "call")).message).toContain("is a folder");
  });

  it("a file over the cap is refused at the cap; one at the cap is read whole", () => {
    const big = join(dir, "big.json");
    writeFileSync(big, "x".repeat(5000));
    const e = thrown(() => readBytes(big, "state", 4999));
    expect(e.code).toBe("file-too-large");
    expect(e.message).toBe(`the state \`${big}\` is larger than 4999 bytes`);
    expect(readBytes(big, "state", 5000).length).toBe(5000);
  });
});

describe("compile never overwrites its source", () => {
  it("`compile x.polar -o x.polar` (same path, ./path, a symlink, a hard link) is refused and the source kept", () => {
    const src = join(dir, "x.polar");
    copyFileSync(ontology, src);
    const before = readFileSync(src);
    symlinkSync(src, join(dir, "link.polar"));
    linkSync(src, join(dir, "hard.polar"));
    for (const [out, ...force] of [[src], ["./x.polar", "--force"], ["link.polar"], ["hard.polar", "--force"]]) {
      {
        const r = polar("compile", "x.polar", "-o", out, ...force);
        expect(r.code, out).toBe(1);
        expect(r.stderr, out).toMatch(/^error\[output-is-source\]: the output `[^`]+` is the source `x\.polar`/u);
        expect(readFileSync(src).equals(before), out).toBe(true);
      }
    }
    // The default output of a source named `y.blob` is the source itself: refused even with --force.
    copyFileSync(ontology, join(dir, "y.blob"));
    const dflt = polar("compile", "y.blob", "--force");
    expect(dflt.code).toBe(1);
    expect(dflt.stderr).toMatch(/^error\[output-is-source\]/u);
    expect(readFileSync(join(dir, "y.blob")).equals(readFileSync(ontology))).toBe(true);
    // Another path still compiles.
    const ok = polar("compile", "x.polar", "-o", "x.blob");
    expect(ok.code).toBe(0);
    expect(existsSync(join(dir, "x.blob"))).toBe(true);
  });
});

describe("audit head anchors only a decision record", () => {
  let log = "";
  beforeAll(() => {
    log = join(dir, "demo.jsonl");
    runDemo({ auditLog: log, backend: "reference", out: () => {} });
  });

  it("an honest log has a head", () => {
    expect(runAuditHead(log)).toMatch(/^[0-9a-f]{64}$/u);
  });

  it.each([
    ["a JSON object that is not a record", '{"note":"hello"}\n'],
    ["a record of another format", '{"format":"other/1","chain":{"index":1,"prev":"0"}}\n'],
    ["a truncated last line", '{"format":"polar-decision/1","chain":{"ind\n'],
  ])("refuses a log whose last line is %s", (_name, tail) => {
    const bad = join(dir, `bad-${_name.length}.jsonl`);
    copyFileSync(log, bad);
    appendFileSync(bad, tail);
    const e = thrown(() => runAuditHead(bad));
    expect(e.code).toBe("bad-log");
    expect(e.message).toContain("has no head to anchor");
    expect(() => chainHead(readFileSync(bad, "utf8"))).toThrow(AuditHeadError);
  });

  it("refuses a last record copied from elsewhere in the log (its chain index is not its place)", () => {
    const lines = readFileSync(log, "utf8").trim().split("\n");
    const bad = join(dir, "dup.jsonl");
    writeFileSync(bad, [...lines, lines[0]].join("\n") + "\n");
    expect(() => chainHead(readFileSync(bad, "utf8"))).toThrow(/is not a record of the chain .* at place/u);
  });
});

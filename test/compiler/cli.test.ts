// `polar check` and `polar compile`, run as a user runs them (through tsx, in a child process).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decodeBlob } from "../../src/blob/index.js";
import { compile } from "../../src/compiler/index.js";
import { REPO } from "./helpers.js";

const EXAMPLE = join("ontologies", "example", "library.polar");
const dir = mkdtempSync(join(tmpdir(), "polar-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function polar(...args: string[]) {
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), join(REPO, "src", "cli", "index.ts"), ...args], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("polar check", () => {
  it("prints a summary and exits 0 for a valid ontology", () => {
    const r = polar("check", EXAMPLE);
    expect(r.code).toBe(0);
    const t = compile(readFileSync(join(REPO, EXAMPLE)));
    if (!t.ok) throw new Error("example must compile");
    expect(r.stdout).toBe(`ok: ${t.tables.tools.length} tools, ${t.tables.edges.length} annotations\n`);
    expect(r.stderr).toBe("");
  });

  it("prints every error rustc-style on stderr and exits 1", () => {
    const path = file("bad.polar", "tool(a, acts_on = ordr).\ninverse_of(a, b, x.y, 2).\n");
    const r = polar("check", path);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`error[unknown-entity]: unknown entity \`ordr\`\n --> ${path}:1:19\n  |\n1 | tool(a, acts_on = ordr).\n  |                   ^^^^\n`);
    expect(r.stderr).toContain("error[unknown-tool]: unknown tool `b`");
    expect(r.stderr).toContain("error[weight-out-of-range]");
    expect(r.stderr).toContain("= help: ");
    expect(r.stderr).toMatch(/: 4 errors, 0 warnings\n$/);
  });

  it("prints warnings but exits 0 when there is no error", () => {
    const path = file("warn.polar", "tool(a).\n");
    const r = polar("check", path);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning[tool-without-annotation]");
    expect(r.stdout).toBe("ok: 1 tools, 0 annotations\n");
  });

  it("reports a file that is not UTF-8 and one that does not exist", () => {
    const bad = file("latin1.polar", new Uint8Array([0x74, 0x6f, 0x6f, 0x6c, 0x28, 0xe9, 0x29, 0x2e]));
    const r = polar("check", bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error[invalid-utf8]`);
    expect(r.stderr).toContain(`${bad}:1:6`);
    const missing = polar("check", join(dir, "nope.polar"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read");
  });
});

describe("polar compile", () => {
  it("writes the blob the library produces", () => {
    const out = join(dir, "library.blob");
    const r = polar("compile", EXAMPLE, "-o", out);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*library\.blob: \d+ bytes, \d+ tools, \d+ annotations, sha256 [0-9a-f]{64}\n$/);
    const expected = compile(readFileSync(join(REPO, EXAMPLE)), { name: "library.polar" });
    if (!expected.ok) throw new Error("example must compile");
    const written = new Uint8Array(readFileSync(out));
    expect(written).toEqual(expected.blob);
    expect(decodeBlob(written).sourceName).toBe("library.polar");
  });

  it("exits 1 and writes nothing on error", () => {
    const src = file("broken.polar", "tool(a.\n");
    const out = join(dir, "broken.blob");
    const r = polar("compile", src, "-o", out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error[syntax-error]");
    expect(() => readFileSync(out)).toThrow();
  });

  it("defaults the output path to the source path with .blob", () => {
    const src = file("default.polar", "tool(a).\nexternal_side_effect(a, s, 1).\nsink_definition(s).\n");
    const r = polar("compile", src);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "default.blob")).length).toBeGreaterThan(0);
  });
});

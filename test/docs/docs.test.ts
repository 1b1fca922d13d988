// Every TypeScript block in README.md and docs/*.md is a tested program: extracted, type-checked in
// strict mode against the packed package in a fresh consumer project (one `npm pack`, one `tsc` run for
// all blocks), then run with Node where it can run. A block that cannot run here says so in its info
// string (```ts no-run) and in the text beside it; it is still type-checked. New docs are picked up by
// themselves: the list is whatever docs/*.md holds.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { installPacked } from "../runtimes/helpers/pack.js";
import { REPO } from "../runtimes/helpers/paths.js";

interface Block {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  run: boolean;
  code: string;
  file: string;
}

/** The ```ts / ```typescript blocks of one Markdown file (the info string's further words are flags). */
export function extractBlocks(doc: string, text: string): Omit<Block, "file">[] {
  const out: Omit<Block, "file">[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)\s*(ts|typescript)(?:\s+(.*))?$/.exec(lines[i]);
    if (open === null) {
      // Skip any other fenced block whole, so a ```ts inside it is not taken for code.
      const other = /^(\s*)(```+)/.exec(lines[i]);
      if (other !== null) {
        const fence = other[2];
        for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence); i++);
      }
      continue;
    }
    const fence = open[2];
    const flags = (open[4] ?? "").split(/\s+/).filter(Boolean);
    const body: string[] = [];
    const start = i + 1;
    for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence); i++) body.push(lines[i].slice(open[1].length));
    out.push({ doc, line: start, run: !flags.includes("no-run"), code: body.join("\n") + "\n" });
  }
  return out;
}

const docs = ["README.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const blocks: Block[] = [];
for (const doc of docs) {
  extractBlocks(doc, readFileSync(join(REPO, doc), "utf8")).forEach((b, i) => {
    // Only ambient declarations (`declare module "*.blob" { … }`): a declaration file, nothing to run.
    const ambient = /^\s*declare\s+module\s/m.test(b.code) && !/^(import|export)\s/m.test(b.code);
    const file = `${doc.replace(/[/.]/g, "_")}_${String(i + 1).padStart(2, "0")}${ambient ? ".d.ts" : ".ts"}`;
    blocks.push({ ...b, run: b.run && !ambient, file });
  });
}

let root = "";
let diagnostics = "";

beforeAll(async () => {
  const packed = await installPacked("doc-test");
  root = packed.root;
  const dir = join(root, "blocks");
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(root, "out"), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Each block is its own module (an `export {}` keeps a block without imports out of the global scope,
  // unless it is an ambient declaration file the other blocks rely on).
  for (const b of blocks) writeFileSync(join(dir, b.file), b.file.endsWith(".d.ts") || /^(import|export)\s/m.test(b.code) ? b.code : `${b.code}\nexport {};\n`);
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "doc-consumer", private: true, type: "module" }, null, 2));
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          types: ["node"],
          strict: true,
          skipLibCheck: true,
          resolveJsonModule: true,
          rootDir: "blocks",
          outDir: "out",
        },
        include: ["blocks"],
      },
      null,
      2,
    ),
  );
  const tsc = spawnSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", root, "--pretty", "false"], { cwd: root, encoding: "utf8" });
  diagnostics = (tsc.stdout + tsc.stderr).trim();
}, 300_000);

/** A tsc diagnostic points at a block file: name the doc and its line instead. */
function located(text: string): string {
  return text.replace(/blocks\/([\w-]+(?:\.d)?\.ts)\((\d+),(\d+)\)/g, (m, file: string, line: string) => {
    const b = blocks.find((x) => x.file === file);
    return b === undefined ? m : `${b.doc}:${b.line + Number(line)}`;
  });
}

describe("the docs' TypeScript", () => {
  test("the docs have blocks to test (the extractor finds them)", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10);
    // A ```ts shown inside a longer fence is text, not a block.
    expect(extractBlocks("x.md", "````md\n```ts\nx\n```\n````\n```ts no-run\nlet a = 1;\n```\n")).toEqual([{ doc: "x.md", line: 6, run: false, code: "let a = 1;\n" }]);
  });

  test("every block type-checks in strict mode against the packed package", () => {
    expect(located(diagnostics)).toBe("");
  });

  test.each(blocks.filter((b) => b.run).map((b) => [`${b.doc}:${b.line}`, b] as const))("%s runs", (_where, b) => {
    const js = join(root, "out", b.file.replace(/\.ts$/, ".js"));
    const r = spawnSync(process.execPath, [js], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({ status: 0, stderr: "" });
  });
});


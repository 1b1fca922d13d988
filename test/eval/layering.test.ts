// Layering as a test: library modules never import a CLI command. Only the CLI itself (src/cli) and the
// runtime entries (src/runtimes) sit on top; everything else under src/ must not reach up into src/cli.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../tau2/data-dir.js";

const SRC = join(REPO_ROOT, "src");

/** Every module specifier of a TypeScript source: static imports and re-exports, side-effect imports,
 * dynamic `import("…")`. Comments are stripped first so a path in a comment does not count. */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^"'`;]*?\bfrom\s*["']([^"']+)["']/g, /\bimport\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

/** Files under `dir` (relative to src/, posix separators) that import something under src/cli,
 * except the modules of src/cli and src/runtimes themselves. */
export function upwardImports(files: ReadonlyMap<string, string>): { from: string; to: string }[] {
  const bad: { from: string; to: string }[] = [];
  for (const [file, text] of files) {
    if (file.startsWith("cli/") || file.startsWith("runtimes/")) continue;
    for (const spec of specifiers(text)) {
      if (!spec.startsWith(".")) continue;
      const target = relative(SRC, resolve(SRC, dirname(file), spec)).split("\\").join("/");
      if (target === "cli" || target.startsWith("cli/")) bad.push({ from: file, to: target });
    }
  }
  return bad;
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.set(relative(SRC, path).split("\\").join("/"), readFileSync(path, "utf8"));
  }
  return out;
}

describe("layering: library modules do not import the CLI", () => {
  it("finds import, re-export, side-effect and dynamic imports, and ignores comments", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "../b/index.js";',
      'export { c } from "./c.js";',
      'import "./side.js";',
      'const d = await import("./d.js");',
      '// import { e } from "./e.js";',
      "/* import { f } from './f.js'; */",
    ].join("\n");
    expect(specifiers(text).sort()).toEqual(["../b/index.js", "./a.js", "./c.js", "./d.js", "./side.js"]);
  });

  it("flags a library module that reaches into src/cli, and allows the CLI and runtime entries", () => {
    const files = new Map([
      ["eval/tau2.ts", 'import { loadDomainOntology } from "../cli/commands/demo.js";'],
      ["tau2/ok.ts", 'import { x } from "../guard/index.js";'],
      ["cli/commands/eval.ts", 'import { runTau2Eval } from "../../eval/tau2.js";\nimport { packageRoot } from "./demo.js";'],
      ["runtimes/node.ts", 'import { y } from "../cli/index.js";'],
    ]);
    expect(upwardImports(files)).toEqual([{ from: "eval/tau2.ts", to: "cli/commands/demo.js" }]);
  });

  it("holds for every module under src/", () => {
    const files = sources(SRC);
    expect(files.size).toBeGreaterThan(20);
    expect(upwardImports(files)).toEqual([]);
  });
});

// What the package ships beside its code: the τ²-bench LICENSE next to every ontology derived from
// τ²-bench, and the framework subpaths (types first, frameworks as optional peers, never bundled).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { REPO } from "../runtimes/helpers/paths.js";

const files = (JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  exports: Record<string, Record<string, string> | string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
};

describe("the packed package", () => {
  test.each(["airline", "retail", "telecom"])("ontologies/%s ships τ²-bench's LICENSE beside the derived ontology", (d) => {
    expect(files).toContain(`ontologies/${d}/${d}.polar`);
    expect(files).toContain(`ontologies/${d}/LICENSE.tau2-bench`);
  });

  test.each(["ai", "openai-agents", "langchain"])("polar-guard/%s: types first, built, the framework an optional peer", (sub) => {
    const e = pkg.exports[`./${sub}`] as Record<string, string>;
    expect(Object.keys(e)[0]).toBe("types");
    expect(files).toContain(e.types.replace(/^\.\//, ""));
    expect(files).toContain(e.default.replace(/^\.\//, ""));
    const framework = { ai: "ai", "openai-agents": "@openai/agents", langchain: "langchain" }[sub]!;
    expect(pkg.peerDependencies[framework]).toBeDefined();
    expect(pkg.peerDependenciesMeta[framework]?.optional).toBe(true);
    expect(pkg.dependencies[framework]).toBeUndefined();
    // No framework code in the built adapter: only type imports, erased.
    const js = readFileSync(join(REPO, e.default), "utf8");
    expect(js).not.toMatch(/from\s+["'](ai|@openai\/agents|langchain|@langchain\/[^"']+)["']/);
  });
});

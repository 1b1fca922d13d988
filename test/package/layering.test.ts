// Layers point down: the runtime-neutral API (src/index.ts and everything it imports) never imports a
// runtime entry, a CLI command or an adapter; an adapter sits on the neutral API only and imports its
// framework as types (so no framework code is in it and the frameworks stay optional peers).
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");

/** Every module specifier of a TypeScript file, with whether the import is type-only. */
function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  const out: { spec: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm)) out.push({ spec: m[3], typeOnly: m[2] !== undefined });
  return out;
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return resolve(dirname(from), spec.replace(/\.js$/, ".ts"));
}

/** The local modules reachable from `entry` by value or type imports. */
function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const { spec } of imports(f)) {
      const r = resolveLocal(f, spec);
      if (r !== null && !r.endsWith(".d.ts")) todo.push(r);
    }
  }
  return seen;
}

describe("layering", () => {
  test("src/index.ts reaches no runtime entry, CLI command or adapter", () => {
    const reached = [...closure(join(src, "index.ts"))].map((f) => relative(src, f));
    const upward = reached.filter((f) => /^(runtimes|cli|adapters)\//.test(f));
    expect(upward).toEqual([]);
    expect(reached).toContain("loading/shared.ts");
  });

  test.each(["ai", "openai-agents", "langchain"])("src/adapters/%s.ts: the neutral API and the framework's types only", (name) => {
    const file = join(src, "adapters", `${name}.ts`);
    const problems: string[] = [];
    for (const f of closure(file)) {
      if (!relative(src, f).startsWith("adapters/")) continue;
      for (const { spec, typeOnly } of imports(f)) {
        const local = resolveLocal(f, spec);
        const rel = local === null ? null : relative(src, local);
        if (rel === null) {
          if (!typeOnly) problems.push(`${relative(src, f)}: value import of \`${spec}\``);
        } else if (!(rel === "index.ts" || rel.startsWith("adapters/"))) {
          problems.push(`${relative(src, f)}: imports \`${rel}\`, below the neutral API`);
        } else if (rel === "index.ts" && !typeOnly) {
          problems.push(`${relative(src, f)}: value import of the guard (the adapter gets the guard it is given)`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

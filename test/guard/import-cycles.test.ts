// Issue 27 §3: no import circle among the guard's parts (src/guard). The imports of each module are read
// with TypeScript's own pre-processor (type-only imports and re-exports count: a circle of types is
// still a circle of meaning), resolved to files, and the graph's strongly connected components are
// found (Tarjan); every component of more than one module, or a module importing itself, is a circle.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");

/** The local modules a file imports or re-exports (relative specifiers, `.js` → `.ts`). */
export function localImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
  const out: string[] = [];
  for (const ref of info.importedFiles) {
    const spec = ref.fileName;
    if (!spec.startsWith(".")) continue;
    const base = resolve(dirname(file), spec);
    const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
    const hit = candidates.find((c) => c.endsWith(".ts") && existsSync(c));
    if (hit !== undefined) out.push(hit);
  }
  return out;
}

/** The graph reachable from `entries` (each file → the local files it imports). */
function graphFrom(entries: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (graph.has(f)) continue;
    const next = localImports(f);
    graph.set(f, next);
    todo.push(...next);
  }
  return graph;
}

/** Strongly connected components with a circle in them: more than one module, or one importing itself. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe("import circles", () => {
  test("the walk finds a circle when there is one (a, b import each other; c imports itself)", () => {
    const g = new Map([["a", ["b"]], ["b", ["a", "c"]], ["c", ["c"]], ["d", ["a"]]]);
    expect(circles(g)).toEqual(expect.arrayContaining([["a", "b"], ["c"]]));
    expect(circles(g)).toHaveLength(2);
    expect(circles(new Map([["a", ["b"]], ["b", []]]))).toEqual([]);
  });

  test("the imports are read: guard.ts composes the parts", () => {
    const rel = localImports(join(src, "guard", "guard.ts")).map((f) => relative(src, f));
    expect(rel).toEqual(expect.arrayContaining(["guard/options.ts", "guard/judge.ts", "guard/observe.ts", "guard/snapshot.ts", "guard/consent-book.ts", "guard/types.ts"]));
  });

  test("no module reachable from src/guard is part of an import circle", () => {
    const entries = readdirSync(join(src, "guard")).filter((f) => f.endsWith(".ts")).map((f) => join(src, "guard", f));
    const found = circles(graphFrom(entries)).map((c) => c.map((f) => relative(src, f)));
    expect(found).toEqual([]);
  });
});

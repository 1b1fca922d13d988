// The dispatcher's case tables' workspace (test/shell/dispatch*.test.ts): a plain directory of files and
// symbolic links, and each line's whole answer as text (every typed call with its arguments, then every
// problem with its reason and message), the workspace written `@`.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll } from "vitest";
import { dispatchCommand, loadBashParser, parseCatalogue, type Catalogue, type TypedCall } from "../../src/shell/index.js";

export type Case = [string, string[]];

export const CATALOGUE_JSON = JSON.parse(readFileSync(new URL("../../ontologies/shell/commands.json", import.meta.url), "utf8")) as Record<string, unknown>;
export const catalogue: Catalogue = parseCatalogue(CATALOGUE_JSON);
export const HOME = "/home/u";

/** The workspace's path (set by `useWorkspace`'s beforeAll). */
export let ws = "";

/** Makes the workspace before the file's tests and removes it after. */
export function useWorkspace(): void {
  beforeAll(async () => {
    await loadBashParser();
    ws = realpathSync(mkdtempSync(`${tmpdir()}/polar-dispatch-`));
    for (const f of ["a.txt", "b.txt", "src/x.ts", "src/y.ts", "out/keep"]) {
      mkdirSync(`${ws}/${f}`.replace(/\/[^/]+$/, ""), { recursive: true });
      writeFileSync(`${ws}/${f}`, "x");
    }
    mkdirSync(`${ws}/sub`);
    symlinkSync("a.txt", `${ws}/link`);
    symlinkSync("src", `${ws}/srclink`);
    symlinkSync("srclink", `${ws}/srclink2`);
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));
}

/** A typed call as one line: `name key=value …` (arrays as JSON), the workspace written `@`. */
export function show(c: TypedCall): string {
  const args = Object.entries(c.arguments).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  const tracked = c.tracked === undefined ? "" : ` tracked=${JSON.stringify(c.tracked.trees)}`;
  return `${c.name} ${args.join(" ")}${tracked}`.replaceAll(ws, "@").trimEnd();
}

/** Every call, then every problem (`reason: detail`), of a line run in the workspace. */
export function dispatch(line: string, cat: Catalogue = catalogue): string[] {
  const d = dispatchCommand(line, ws, cat, HOME);
  return [...d.calls.map(show), ...d.problems.map((p) => `${p.reason}: ${p.detail.replaceAll(ws, "@")}`)];
}

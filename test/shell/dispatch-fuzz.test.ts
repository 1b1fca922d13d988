// Fuzz target for the dispatcher: random and mutated command lines never make it throw, and a line it
// could not parse is never approved (fixed seed; more runs in `npm run fuzz:shell`).
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellGuard, dispatchCommand, loadBashParser, parseCatalogue, type ShellGuard } from "../../src/shell/index.js";
import { commandLine } from "./corpus.js";
import { buildTemplate, tempDir } from "./helpers.js";
import { rmSync } from "node:fs";

const RUNS = Number(process.env.POLAR_SHELL_FUZZ ?? 1500);
const CHARS = [..."abc xyz-./*?$(){}[];&|<>\"'`\\\n#=~!%^+,:@0123456789\t"];
let ws: string;
let guard: ShellGuard;
const root = tempDir("polar-shell-fuzz-");

beforeAll(async () => {
  await loadBashParser();
  ws = buildTemplate("rich");
  guard = await createShellGuard({ cwd: ws, store: `${root}/store`, policy: "snapshot" });
});
afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

const noise = fc.array(fc.constantFrom(...CHARS), { maxLength: 80 }).map((a) => a.join(""));
const mutated = fc.tuple(commandLine, fc.nat(200), fc.constantFrom(...CHARS), fc.constantFrom("insert", "delete", "replace")).map(([line, at, ch, op]) => {
  const i = at % (line.length + 1);
  return op === "insert" ? line.slice(0, i) + ch + line.slice(i) : op === "delete" ? line.slice(0, i) + line.slice(i + 1) : line.slice(0, i) + ch + line.slice(i + 1);
});
const anyLine = fc.oneof(noise, mutated, fc.string({ maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 30 }));

describe("dispatcher fuzz", () => {
  it("never throws; an unparsed line is never approved", () => {
    const catalogue = parseCatalogue(JSON.parse(readFileSync(new URL("../../ontologies/shell/commands.json", import.meta.url), "utf8")));
    let unparsed = 0;
    fc.assert(
      fc.property(anyLine, (line) => {
        const d = dispatchCommand(line, ws, catalogue, "/root");
        expect(d.problems.every((p) => !p.detail.startsWith("dispatcher error") && !p.detail.startsWith("parser walk failed"))).toBe(true);
        if (d.problems.some((p) => p.reason === "unparsed")) unparsed++;
        // The guard only checks (never runs): the workspace is untouched by this test.
        const g = guard.check({ tool: "shell", args: { command: line } });
        if (g.problems.length > 0) expect(g.approved).toBe(false);
      }),
      { seed: 42, numRuns: RUNS },
    );
    expect(unparsed).toBeGreaterThan(0);
  });
});

// Issue 21 item 19: the frameworks' peer ranges say exactly what was tested. With `ai@7` or
// `@openai/agents@0.20` installed, `npm install polar-guard` failed (ERESOLVE: the ranges were `^6` and
// `^0.14.3`) though docs/adapters.md documents the AI SDK 7 path. TESTED lists every version the adapter
// tests ran on (scripts/peer-matrix.sh installs each into a temporary folder, outside the lockfile, and
// runs test/adapters against it; the devDependencies are the versions every `npm test` runs on); this
// test holds package.json's peerDependencies to it: each tested version is admitted, and the range
// admits no major (no minor, for 0.x) that has no tested version.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../runtimes/helpers/paths.js";

/** Versions the adapter tests ran on, per framework (scripts/peer-matrix.sh; 2026-12-06). */
export const TESTED: Record<string, Record<string, string>> = {
  ai: {
    "6.0.325": "devDependency: every npm test",
    "7.0.185": "test/adapters/ai*.test.ts 46/46; src/adapters/ai.ts runs, dist/adapters/ai.d.ts type-checks against v7",
  },
  "@openai/agents": {
    "0.14.3": "devDependency: every npm test",
    "0.15.0": "test/adapters/openai-agents*.test.ts 27/27",
    "0.16.1": "27/27",
    "0.17.2": "27/27",
    "0.18.0": "27/27",
    "0.19.0": "26/27: the SDK sends the model a generic tool-error text instead of the error's (its change, not the adapter's)",
    "0.20.0": "26/27, as 0.19; src and dist types check against 0.20",
  },
  langchain: {
    "1.5.12": "devDependency: every npm test",
  },
  // polar-guard/sql's parser and deparser (issue 25): optional peers of the ./sql subpath.
  "libpg-query": {
    "18.1.5": "devDependency: every npm test (test/sql)",
  },
  "pgsql-deparser": {
    "18.3.8": "devDependency: every npm test (test/sql)",
  },
};

type V = [number, number, number];

function parse(v: string): V {
  const m = /^(\d+)\.(\d+)\.(\d+)$/u.exec(v);
  if (m === null) throw new Error(`\`${v}\` is not a plain version`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** A range as the caret clauses it is made of (`^a.b.c || ^d.e.f`): anything else is refused, so the
 * ranges stay ones this test can read exactly. */
function carets(range: string): V[] {
  return range.split("||").map((c) => {
    const m = /^\s*\^(\d+\.\d+\.\d+)\s*$/u.exec(c);
    if (m === null) throw new Error(`peer range \`${range}\`: write it as \`^x.y.z || ^…\``);
    return parse(m[1]);
  });
}

/** The compatibility unit a caret admits: the major, or `0.minor` below 1.0. */
const unit = ([a, b]: V): string => (a > 0 ? `${a}` : `0.${b}`);

function admits(range: string, version: string): boolean {
  const v = parse(version);
  return carets(range).some((c) => {
    if (unit(c) !== unit(v)) return false;
    for (let i = 0; i < 3; i++) if (v[i] !== c[i]) return v[i] > c[i];
    return true;
  });
}

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { peerDependencies: Record<string, string>; devDependencies: Record<string, string> };

describe("peer ranges say exactly what was tested", () => {
  it("every framework peer has a tested list, and every tested list a peer", () => {
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(Object.keys(TESTED).sort());
  });

  it.each(Object.keys(TESTED))("%s: each tested version is admitted, the devDependency is a tested one, and nothing untested is admitted", (name) => {
    const range = pkg.peerDependencies[name];
    const tested = Object.keys(TESTED[name]);
    for (const v of tested) expect(admits(range, v), `${name}@${v} under \`${range}\``).toBe(true);
    expect(tested, `${name}'s devDependency`).toContain(pkg.devDependencies[name]);
    const testedUnits = new Set(tested.map((v) => unit(parse(v))));
    for (const c of carets(range)) expect(testedUnits.has(unit(c)), `\`${range}\` admits ${unit(c)}.x, which no test ran on`).toBe(true);
  });

  it("reads ranges exactly (the parser itself)", () => {
    expect(admits("^6.0.0 || ^7.0.0", "7.0.185")).toBe(true);
    expect(admits("^6.0.0", "7.0.0")).toBe(false);
    expect(admits("^0.14.3", "0.14.2")).toBe(false);
    expect(admits("^0.14.3", "0.15.0")).toBe(false);
    expect(admits("^0.14.3 || ^0.20.0", "0.20.1")).toBe(true);
    expect(() => carets(">=6")).toThrow(/write it as/u);
  });
});

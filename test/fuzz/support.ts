// Shared by the fuzz targets, their CI tests (test/fuzz/*.test.ts) and the long run (scripts/fuzz.ts):
// the target shape, the repo's real inputs (ontology sources and blobs), a per-case time bound and a
// check that no built-in prototype was polluted. Targets throw plain Errors, not vitest assertions,
// so the same properties run under vitest and under tsx.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type fc from "fast-check";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** One fuzz target: a fast-check property built lazily (some need a wasm instance). */
export interface FuzzTarget {
  name: string;
  /** What the property promises, one line. */
  claim: string;
  /** Cases the CI test runs with its fixed seed. */
  ciRuns: number;
  property(): fc.IProperty<any> | fc.IAsyncProperty<any>;
}

/** The fixed seed of every CI run (and the default of `npm run fuzz`). */
export const CI_SEED = 7;

export class FuzzFailure extends Error {
  override readonly name = "FuzzFailure";
}

export function fail(message: string): never {
  throw new FuzzFailure(message);
}

/** Runs `fn` and fails when it took longer than `ms`: a hang shows up as a slow case long before it
 * shows up as a stuck run (a real infinite loop is caught by the test timeout instead). */
export function withinTime<T>(ms: number, what: string, fn: () => T): T {
  const t0 = cpuMs();
  const out = fn();
  const spent = cpuMs() - t0;
  if (spent > ms) fail(`${what} took ${spent.toFixed(0)} ms of CPU, more than ${ms} ms`);
  return out;
}

/** The process's CPU time (user + system, ms): what a blow-up on a hostile input costs, and not the
 * time the process waited for a core on a loaded machine or was stopped (a wall-clock bound failed
 * there on inputs that take 1 ms). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Per-case time bound; POLAR_FUZZ_SLOW scales it on a loaded machine. */
export function caseBudgetMs(base: number): number {
  const scale = Number(process.env.POLAR_FUZZ_SLOW ?? "1");
  return base * (Number.isFinite(scale) && scale > 0 ? scale : 1);
}

// ---- real inputs --------------------------------------------------------------------------------

export interface NamedText { name: string; text: string }
export interface NamedBytes { name: string; bytes: Uint8Array }

/** Every ontology source in ontologies/ (the example and the τ²-bench domains). */
export function ontologySources(): NamedText[] {
  const dir = join(REPO, "ontologies");
  const out: NamedText[] = [];
  for (const d of readdirSync(dir).sort()) {
    const sub = join(dir, d);
    if (!existsSync(sub) || !statIsDir(sub)) continue;
    for (const f of readdirSync(sub).sort()) {
      if (f.endsWith(".polar")) out.push({ name: `${d}/${f}`, text: readFileSync(join(sub, f), "utf8") });
    }
  }
  return out;
}

/** The diagnostics corpus sources (strings only): more broken shapes to mutate. */
export function corpusSources(): NamedText[] {
  const dir = join(REPO, "test", "corpus", "diagnostics");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { name: string; source?: unknown })
    .filter((c): c is { name: string; source: string } => typeof c.source === "string")
    .map((c) => ({ name: `corpus/${c.name}`, text: c.source }));
}

/** The checked-in golden blobs (ontologies/<domain>/<domain>.blob). */
export function realBlobs(): NamedBytes[] {
  const dir = join(REPO, "ontologies");
  const out: NamedBytes[] = [];
  for (const d of readdirSync(dir).sort()) {
    const f = join(dir, d, `${d}.blob`);
    if (existsSync(f)) out.push({ name: `${d}.blob`, bytes: new Uint8Array(readFileSync(f)) });
  }
  return out;
}

export function readRepoFile(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(REPO, path)));
}

function statIsDir(p: string): boolean {
  try {
    readdirSync(p);
    return true;
  } catch {
    return false;
  }
}

// ---- prototype pollution ------------------------------------------------------------------------

const WATCHED: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];

function describeOwn(o: object): string {
  return Reflect.ownKeys(o)
    .map((k) => {
      const d = Object.getOwnPropertyDescriptor(o, k)!;
      return `${String(k)}:${typeof d.value}:${d.get === undefined ? "" : "g"}${d.set === undefined ? "" : "s"}:${d.enumerable}`;
    })
    .sort()
    .join("|");
}

const baseline = new Map(WATCHED.map(([n, o]) => [n, describeOwn(o)]));

/** Fails when a built-in prototype gained, lost or changed an own property since this module loaded,
 * or when a fresh object inherits something it should not. */
export function expectNoPollution(where: string): void {
  for (const [name, o] of WATCHED) {
    if (describeOwn(o) !== baseline.get(name)) fail(`${where}: ${name} was modified`);
  }
  const probe = {} as Record<string, unknown>;
  for (const k of ["polluted", "isAdmin", "approved", "x", "0"]) {
    if (probe[k] !== undefined) fail(`${where}: a fresh object inherits \`${k}\``);
  }
}

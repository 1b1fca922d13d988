// Layer B documents and tool results through the projection: mutated documents (missing entities,
// wrong types, hostile keys), malformed TOML text (the telecom db) and damaged tool results (JSON text
// cut or garbled, records with wrong types). The only failures allowed are typed ProjectionErrors;
// whatever happens, Layer B stays plain JSON that round-trips, a failed tool-result update leaves it as
// it was, and no built-in prototype changes.
import fc from "fast-check";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  applyToolResult,
  canonicalJson,
  LayerB,
  parseProjectionRules,
  parseTomlDocument,
  ProjectionError,
  projectDocument,
  type ProjectionRules,
} from "../../../src/projection/index.js";
import { BASE_CALLS } from "./guard-args.js";
import { expectNoPollution, fail, REPO, type FuzzTarget } from "../support.js";

const CODES = new Set(["invalid-rules", "not-json", "eval-error", "missing-id", "bad-document", "bad-state"]);

function rules(domain: string): ProjectionRules {
  return parseProjectionRules(JSON.parse(readFileSync(join(REPO, `ontologies/${domain}/projection.json`), "utf8")));
}

/** τ²-bench telecom db.toml from POLAR_TAU2_DIR (default ../shared/tau2), or a small stand-in. */
function telecomToml(): string {
  const dir = process.env.POLAR_TAU2_DIR ?? resolve(REPO, "../shared/tau2");
  const file = join(dir, "domains/telecom/db.toml");
  if (existsSync(file)) return readFileSync(file, "utf8");
  return [
    "[[plans]]", 'plan_id = "P1"', 'name = "Basic"', "data_limit_gb = 5.0", "price_per_month = 40.0", "",
    "[[customers]]", 'customer_id = "C1"', 'full_name = "Ann"', 'line_ids = ["L1"]', 'bill_ids = []', "",
    "[[lines]]", 'line_id = "L1"', 'phone_number = "555"', 'status = "Active"', 'plan_id = "P1"', "roaming_enabled = false",
  ].join("\n");
}

/** Runs `fn`; a thrown value must be a ProjectionError with a known code. */
function typed<T>(what: string, fn: () => T): T | ProjectionError {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ProjectionError)) fail(`${what} threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)} instead of a ProjectionError`);
    if (!CODES.has(e.code)) fail(`${what}: unknown ProjectionError code ${e.code}`);
    return e;
  }
}

/** Layer B must hold only JSON and survive toJSON → fromJSON unchanged. */
function checkLayerB(lb: LayerB, where: string): string {
  let text: string;
  try {
    text = canonicalJson(lb.toJSON());
  } catch (e) {
    fail(`${where}: Layer B is no longer JSON (${String(e)})`);
  }
  const again = canonicalJson(LayerB.fromJSON(JSON.parse(text)).toJSON());
  if (again !== text) fail(`${where}: Layer B does not round-trip through JSON`);
  return text;
}

// ---- value mutations ----------------------------------------------------------------------------

type ValueEdit = { path: number[]; op: "delete" | "replace" | "proto"; value: unknown };

const odd: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, 0, -1, 1e308, "", "x", true, [], {}, [null], { "": 1 }, "2024-13-45", "RES001"),
  fc.jsonValue({ maxDepth: 2 }),
);

const valueEdit: fc.Arbitrary<ValueEdit> = fc.record({
  path: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  op: fc.constantFrom("delete" as const, "replace" as const, "replace" as const, "proto" as const),
  value: odd,
});

/** A deep copy of JSON `doc` with one edit at a pseudo-random path (indices pick existing keys). */
function editValue(doc: unknown, e: ValueEdit): unknown {
  const root = structuredClone(doc);
  let parent: unknown = root;
  let key: string | null = null;
  let node: unknown = root;
  for (const step of e.path) {
    if (node === null || typeof node !== "object") break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    parent = node;
    key = keys[step % keys.length];
    node = (node as Record<string, unknown>)[key];
  }
  if (key === null || parent === null || typeof parent !== "object") return e.op === "replace" ? e.value : root;
  const p = parent as Record<string, unknown>;
  if (e.op === "delete") {
    if (Array.isArray(p)) p.splice(Number(key), 1);
    else delete p[key];
  } else if (e.op === "replace") p[key] = structuredClone(e.value);
  else if (!Array.isArray(p)) {
    // A `__proto__` key as JSON.parse makes it: an own data property, not a prototype change.
    Object.defineProperty(p, "__proto__", { value: { polluted: true, status: "cancelled" }, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

type TextEdit = { at: number; del: number; ins: string };
const textEdit: fc.Arbitrary<TextEdit> = fc.record({
  at: fc.nat(),
  del: fc.nat(8),
  ins: fc.oneof(fc.constantFrom("", "\"", "{", "}", "[", "]", ",", "=", "\n", "[[", "]]", "\\", "\u0000", "1e999", "NaN", "\"__proto__\": 1,"), fc.string({ maxLength: 4 })),
});

function editText(text: string, edits: readonly TextEdit[]): string {
  let t = text;
  for (const e of edits) {
    const at = e.at % (t.length + 1);
    t = t.slice(0, at) + e.ins + t.slice(at + e.del);
  }
  return t;
}

// ---- the target ---------------------------------------------------------------------------------

export const projectionTarget: FuzzTarget = {
  name: "projection",
  claim: "damaged documents, TOML text and tool results give typed ProjectionErrors or updates; Layer B stays JSON and a failed update changes nothing",
  ciRuns: 1500,
  property() {
    const airline = rules("airline");
    const telecom = rules("telecom");
    const airlineDoc = JSON.parse(readFileSync(join(REPO, "test/fuzz/fixtures/airline-db.json"), "utf8"));
    const toml = telecomToml();
    const baseState = projectDocument(airline, airlineDoc);
    const reservation = baseState.entity("reservation", "RES001");
    const mutatingCalls = BASE_CALLS.filter((c) => airline.tools.has(c.name));
    const kind = fc.constantFrom("document" as const, "toml" as const, "result" as const, "result-text" as const);
    return fc.property(
      kind,
      fc.array(valueEdit, { minLength: 1, maxLength: 3 }),
      fc.array(textEdit, { minLength: 1, maxLength: 4 }),
      fc.nat(),
      (k, vEdits, tEdits, pick) => {
        if (k === "document") {
          const doc = vEdits.reduce(editValue, airlineDoc as unknown);
          const out = typed("projectDocument", () => projectDocument(airline, doc));
          if (out instanceof LayerB) checkLayerB(out, "projectDocument");
        } else if (k === "toml") {
          const doc = typed("parseTomlDocument", () => parseTomlDocument(editText(toml, tEdits)));
          if (!(doc instanceof ProjectionError)) {
            const out = typed("projectDocument(toml)", () => projectDocument(telecom, doc));
            if (out instanceof LayerB) checkLayerB(out, "projectDocument(toml)");
          }
        } else {
          const call = mutatingCalls[pick % mutatingCalls.length];
          const args = vEdits.slice(0, 1).reduce(editValue, call.arguments as unknown);
          const record = vEdits.slice(1).reduce(editValue, { ...reservation, status: "cancelled" } as unknown);
          const result = k === "result" ? record : editText(JSON.stringify(record), tEdits);
          const lb = baseState.clone();
          const before = checkLayerB(lb, "before");
          const callArgs = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
          const out = typed("applyToolResult", () => applyToolResult(airline, lb, { name: call.name, arguments: callArgs }, result));
          const after = checkLayerB(lb, "applyToolResult");
          if (out instanceof ProjectionError && after !== before) fail(`a failed tool-result update (${out.code}) changed Layer B`);
        }
        expectNoPollution("projection");
      },
    );
  },
};

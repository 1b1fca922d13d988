// Tool-call arguments through the guard (the real airline ontology, a small Layer B, the veto policy):
// wrong types, missing and extra keys, huge strings, deep nesting, `__proto__` / `constructor` /
// `prototype` keys and values that are not JSON (functions, symbols, BigInt, cycles, throwing getters
// and proxies). check() must answer with a Decision and never throw; a call is approved only if the
// same call with its arguments sanitised to plain JSON is approved too; a call holding anything that
// is not JSON is never approved; Layer B and the built-in prototypes stay untouched.
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createGuard, type Decision, type Guard } from "../../../src/guard/index.js";
import { canonicalJson, parseProjectionRules, projectDocument, type LayerB } from "../../../src/projection/index.js";
import { expectNoPollution, fail, readRepoFile, REPO, type FuzzTarget } from "../support.js";

// ---- the guard under test -------------------------------------------------------------------------

export function airlineState(): LayerB {
  const rules = parseProjectionRules(JSON.parse(readFileSync(join(REPO, "ontologies/airline/projection.json"), "utf8")));
  return projectDocument(rules, JSON.parse(readFileSync(join(REPO, "test/fuzz/fixtures/airline-db.json"), "utf8")));
}

export function airlineGuard(state: LayerB): Guard {
  return createGuard({ ontology: readRepoFile("ontologies/airline/airline.blob"), state, policy: "veto" });
}

/** Calls the small state approves, vetoes or answers read-only: the starting points of mutation. */
export const BASE_CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: "cancel_reservation", arguments: { reservation_id: "RES001" } },
  { name: "cancel_reservation", arguments: { reservation_id: "RES002" } },
  { name: "update_reservation_baggages", arguments: { reservation_id: "RES001", total_baggages: 2, nonfree_baggages: 0, payment_id: "credit_card_1" } },
  {
    name: "update_reservation_flights",
    arguments: {
      reservation_id: "RES001",
      cabin: "economy",
      flights: [{ flight_number: "HAT100", date: "2024-05-20" }, { flight_number: "HAT200", date: "2024-05-25" }],
      payment_id: "credit_card_1",
    },
  },
  { name: "update_reservation_passengers", arguments: { reservation_id: "RES001", passengers: [{ first_name: "Ada", last_name: "Lee", dob: "1990-01-01" }] } },
  { name: "send_certificate", arguments: { user_id: "ada_lee_1", amount: 100 } },
  {
    name: "book_reservation",
    arguments: {
      user_id: "ada_lee_1", origin: "JFK", destination: "SFO", flight_type: "one_way", cabin: "economy",
      flights: [{ flight_number: "HAT100", date: "2024-05-20" }],
      passengers: [{ first_name: "Ada", last_name: "Lee", dob: "1990-01-01" }],
      payment_methods: [{ payment_id: "credit_card_1", amount: 180 }], total_baggages: 0, nonfree_baggages: 0, insurance: "no",
    },
  },
  { name: "get_reservation_details", arguments: { reservation_id: "RES001" } },
  { name: "transfer_to_human_agents", arguments: { summary: "the user asks for a human" } },
  { name: "drop_database", arguments: {} },
];

// ---- hostile values -------------------------------------------------------------------------------

/** A value builder: fresh objects per case (a cycle or a proxy must not leak between cases). */
type Make = () => unknown;

class Opaque {
  constructor(readonly x = 1) {}
}

function throwingProxy(): unknown {
  const boom = (): never => {
    throw new Error("proxy trap");
  };
  return new Proxy({}, { get: boom, ownKeys: boom, getPrototypeOf: boom, has: boom, getOwnPropertyDescriptor: boom });
}

function revokedProxy(): unknown {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function cyclic(): unknown {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

function throwingGetter(): unknown {
  const o = {};
  Object.defineProperty(o, "reservation_id", { enumerable: true, get: () => { throw new Error("getter"); } });
  return o;
}

function deep(levels: number, asArray: boolean): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < levels; i++) v = asArray ? [v] : { reservation_id: v };
  return v;
}

function sparse(length: number): unknown {
  const a: unknown[] = [];
  a.length = length;
  return a;
}

const NON_JSON: [string, Make][] = [
  ["function", () => () => "RES001"],
  ["symbol", () => Symbol("RES001")],
  ["bigint", () => 10n],
  ["undefined", () => undefined],
  ["NaN", () => NaN],
  ["Infinity", () => -Infinity],
  ["Date", () => new Date(0)],
  ["Map", () => new Map([["reservation_id", "RES001"]])],
  ["class instance", () => new Opaque()],
  ["boxed string", () => new String("RES001")],
  ["cycle", cyclic],
  ["throwing getter", throwingGetter],
  ["throwing proxy", throwingProxy],
  ["revoked proxy", revokedProxy],
  ["array hole", () => [1, , 3]],
  ["huge sparse array", () => sparse(2 ** 32 - 1)],
  ["typed array", () => new Uint8Array(4)],
];

const HUGE = "R".repeat(1 << 20);

const JSON_ODD: [string, Make][] = [
  ["deep object 10k", () => deep(10_000, false)],
  ["deep array 10k", () => deep(10_000, true)],
  ["huge string 1 MB", () => HUGE],
  ["long array 200k", () => new Array(200_000).fill("RES001")],
  ["null-prototype object", () => Object.assign(Object.create(null), { reservation_id: "RES001" })],
  ["minus zero", () => -0],
  ["proto-shaped object", () => JSON.parse('{"__proto__": {"polluted": true, "approved": true}}')],
];

const jsonValue: fc.Arbitrary<Make> = fc.jsonValue({ maxDepth: 3 }).map((v) => () => structuredClone(v));
const wrongType: fc.Arbitrary<Make> = fc.constantFrom<unknown>(0, -1, 1e308, 2 ** 53 + 1, "", "RES001 ", "res001", "RES001\u0000", true, false, null, [], {}, ["RES001"], { reservation_id: "RES001" })
  .map((v) => () => structuredClone(v));
const hostile: fc.Arbitrary<Make> = fc.oneof(
  { arbitrary: fc.constantFrom(...NON_JSON.map(([, m]) => m)), weight: 3 },
  { arbitrary: fc.constantFrom(...JSON_ODD.map(([, m]) => m)), weight: 1 },
  { arbitrary: wrongType, weight: 3 },
  { arbitrary: jsonValue, weight: 2 },
);

const SPECIAL_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "$nonjson", "reservation_id", "user_id", "", "extra"];
const key: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...SPECIAL_KEYS), fc.string({ maxLength: 8 }));

type Edit =
  | { op: "set"; key: string; make: Make }
  | { op: "delete"; which: number }
  | { op: "name"; make: Make }
  | { op: "arguments"; make: Make }
  | { op: "callKey"; key: string; make: Make }
  | { op: "whole"; make: Make };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("set" as const), key, make: hostile }), weight: 6 },
  { arbitrary: fc.record({ op: fc.constant("delete" as const), which: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant("name" as const), make: fc.oneof(hostile, fc.constantFrom<Make>(() => "__proto__", () => "constructor", () => "toString", () => "", () => "cancel_reservation ")) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("arguments" as const), make: hostile }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("callKey" as const), key, make: hostile }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("whole" as const), make: hostile }), weight: 1 },
);

/** Own data properties set with define semantics, so `__proto__` becomes a real key like JSON.parse
 * makes it; `assign` semantics are exercised too (they set the prototype instead). */
function put(obj: Record<string, unknown>, k: string, v: unknown, assign: boolean): void {
  // A hostile object may hold a non-configurable or getter-only key: then the edit is skipped.
  if (assign) Reflect.set(obj, k, v);
  else Reflect.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** A plain object (prototype Object.prototype or null, as the guard's copy accepts it) we may edit; a
 * hostile value (a revoked proxy) is left alone, never inspected twice. */
function isPlain(x: unknown): x is Record<string, unknown> {
  try {
    if (x === null || typeof x !== "object" || Array.isArray(x)) return false;
    const proto = Object.getPrototypeOf(x);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}

function build(base: number, edits: readonly Edit[], assign: boolean): unknown {
  const src = BASE_CALLS[base % BASE_CALLS.length];
  let call: unknown = { name: src.name, arguments: structuredClone(src.arguments) };
  for (const e of edits) {
    if (e.op === "whole") {
      call = e.make();
      continue;
    }
    if (!isPlain(call)) continue;
    const c = call;
    const args = c.arguments;
    const plainArgs = isPlain(args);
    if (e.op === "set" && plainArgs) put(args as Record<string, unknown>, e.key, e.make(), assign);
    else if (e.op === "delete" && plainArgs) {
      const keys = Object.keys(args as object);
      // Reflect: a hostile object may hold a non-configurable key, which `delete` would throw on.
      if (keys.length > 0) Reflect.deleteProperty(args as object, keys[e.which % keys.length]);
    } else if (e.op === "name") c.name = e.make();
    else if (e.op === "arguments") c.arguments = e.make();
    else if (e.op === "callKey") put(c, e.key, e.make(), assign);
  }
  return call;
}

// ---- the sanitiser: an independent notion of "the same call as plain JSON" --------------------------

const MAX_DEPTH = 64; // the guard's own copy depth: deeper is "not JSON" to it, so to us as well
const MAX_NODES = 100_000;

/** A plain-JSON copy; `changed` tells whether anything had to be dropped or could not be read. */
export function sanitise(value: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  let nodes = 0;
  const seen = new Set<object>();
  const drop = (): undefined => {
    changed = true;
    return undefined;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (++nodes > MAX_NODES) return drop();
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : drop();
    if (typeof v !== "object") return drop();
    if (depth >= MAX_DEPTH || seen.has(v)) return drop();
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        if (v.length > MAX_NODES) return drop();
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) {
            changed = true;
            out.push(null);
            continue;
          }
          const x = walk(v[i], depth + 1);
          out.push(x === undefined ? null : x);
        }
        return out;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return drop();
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        let x: unknown;
        try {
          x = walk((v as Record<string, unknown>)[k], depth + 1);
        } catch {
          x = drop();
        }
        if (x !== undefined) put(out, k, x, false);
      }
      return out;
    } catch {
      return drop();
    } finally {
      seen.delete(v);
    }
  };
  const out = walk(value, 0);
  return { value: out, changed };
}

// ---- the property ---------------------------------------------------------------------------------

function safeCheck(guard: Guard, call: unknown, where: string): Decision {
  let d: Decision;
  try {
    d = guard.check(call);
    // Judged, then not run: each case is judged on its own (a pending execution would join the next).
    if (d.execution !== null) guard.release(d.execution);
  } catch (e) {
    fail(`${where}: check() threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  if (d === null || typeof d !== "object" || typeof d.approved !== "boolean") fail(`${where}: check() returned no decision`);
  if (typeof d.reason !== "string" || String(d.reason) === "") fail(`${where}: a decision without a reason`);
  if (!d.approved && d.route !== "Vetoed") fail(`${where}: the veto policy refused with route ${d.route}`);
  try {
    JSON.stringify(d);
  } catch (e) {
    fail(`${where}: the decision is not JSON (${String(e)})`);
  }
  return d;
}

export function checkArguments(guard: Guard, state: LayerB, stateJson: string, call: unknown): void {
  const d = safeCheck(guard, call, "raw call");
  const clean = sanitise(call);
  const again = safeCheck(guard, clean.value, "sanitised call");
  if (d.approved && !again.approved) fail(`approved by accident: the raw call passed (${d.reason}) but its JSON form is vetoed (${again.reason})`);
  // Keys of the call beside `name` and `arguments` are not part of what is judged; inside those two,
  // anything that is not JSON must refuse the call.
  const judged = isPlain(call) ? sanitise({ name: call.name, arguments: call.arguments }) : clean;
  if (judged.changed && d.approved) fail(`a call holding non-JSON values was approved (${d.reason})`);
  // Equal decisions are owed only when the whole call is plain JSON: a non-JSON value in an extra key
  // (even `$nonjson`, the guard's own marker) may make the guard refuse the raw call, never approve it.
  if (!clean.changed && (d.approved !== again.approved || d.reason !== again.reason)) {
    fail(`a plain-JSON call and its copy got different decisions: ${d.reason} vs ${again.reason}`);
  }
  expectNoPollution("guard.check");
  if (canonicalJson(state.toJSON()) !== stateJson) fail("check() changed Layer B");
}

export const guardArgsTarget: FuzzTarget = {
  name: "guard-args",
  claim: "hostile tool-call arguments get a decision (never an exception), approval only when the plain-JSON call is approved, no prototype pollution",
  ciRuns: 1200,
  property() {
    const state = airlineState();
    const stateJson = canonicalJson(state.toJSON());
    const guard = airlineGuard(state);
    return fc.property(fc.nat(), fc.array(edit, { maxLength: 4 }), fc.boolean(), (base, edits, assign) => {
      checkArguments(guard, state, stateJson, build(base, edits, assign));
    });
  },
};

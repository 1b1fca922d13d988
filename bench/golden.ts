// The golden decision dump (issue 27 §1): every decision the guard makes over τ²-bench's airline and
// retail runs × the three policies × both consent modes × both scopes × both backends, the bench mix
// (single calls and session sequences, with observe/release) and hostile calls, one line each: the
// record's JSON (field order included), whether it is frozen all the way down, and the audit line.
// A change to the hot path must leave this dump byte-identical:
//   npx tsx bench/golden.ts bench/out/golden-before.jsonl   (before the change)
//   npx tsx bench/golden.ts bench/out/golden-after.jsonl && cmp bench/out/golden-{before,after}.jsonl
// Needs ../shared/tau2 (POLAR_TAU2_DIR) and build/polar-core.wasm; writes only its output file.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createMemorySink } from "../src/audit/index.js";
import { blobDigestHex } from "../src/blob/index.js";
import { createGuard, type Decision, type Guard } from "../src/guard/index.js";
import type { PolicyName } from "../src/policies/index.js";
import { createReferenceBackend } from "../src/reference/index.js";
import { scopedConsentDetector } from "../src/policies/consent-scoped.js";
import { readTau2Data } from "../src/tau2/data.js";
import { loadCoreBackend, loadDomainOntology, loadDomainRules } from "../src/tau2/domains.js";
import { projectAll, replayAll } from "../src/tau2/replay.js";
import { AIRLINE_NOW, loadAirline, sequence } from "./lib/airline.js";
import { ROOT, TAU2_DIR } from "./lib/paths.js";

const out: string[] = [];
const tally = new Map<string, number>();

function deepFrozen(v: unknown, seen = new Set<unknown>()): boolean {
  if (typeof v !== "object" || v === null || seen.has(v)) return true;
  seen.add(v);
  if (!Object.isFrozen(v)) return false;
  for (const k of Object.keys(v)) if (!deepFrozen((v as Record<string, unknown>)[k], seen)) return false;
  return true;
}

function dump(tag: string, d: Decision): void {
  out.push(`${tag}\t${deepFrozen(d) ? "F" : "f"}\t${JSON.stringify(d)}`);
  tally.set(tag.split(" ")[0], (tally.get(tag.split(" ")[0]) ?? 0) + 1);
}

const policies: PolicyName[] = ["veto", "escalate", "advisory"];
const consents = ["question", "recent-messages"] as const;
const wasm = loadCoreBackend(ROOT, "wasm").factory;
const backends = [["wasm", wasm], ["reference", (t: Parameters<typeof createReferenceBackend>[0]) => createReferenceBackend(t)]] as const;
const dataDir = TAU2_DIR;
const only = process.env.GOLDEN_ONLY; // e.g. "bench" while iterating

// 1. τ²-bench runs, replayed (observe after each executed call).
if (only === undefined || only === "tau2") {
  const data = readTau2Data(dataDir);
  for (const domain of ["airline", "retail"]) {
    const { ontology } = loadDomainOntology(ROOT, domain);
    const rules = loadDomainRules(ROOT, domain);
    const dom = data.domain(domain);
    const base = projectAll(rules, dom.documents);
    const trajectories = data.resultsFiles().flatMap((f) => data.readResultsFile(f)).filter((t) => t.domain === domain);
    for (const [bname, factory] of backends) {
      for (const policy of policies) {
        for (const consent of consents) {
          let lines = 0;
          const audit = createHash("sha256");
          trajectories.forEach((t, ti) => {
            const sink = createMemorySink();
            const { records } = replayAll(t, {
              rules,
              documents: dom.documents,
              base,
              guard: (state, scope) => {
                const g = createGuard({
                  ontology,
                  backend: factory,
                  state,
                  policy,
                  scope,
                  config: { consent, consentDetector: scopedConsentDetector, projection: rules, log: sink },
                });
                return {
                  updatesState: true,
                  check: (call, context) => g.check(call, { userMessages: context.userMessages, turnCalls: context.turnCalls, messages: context.messages }),
                  observe: (call, content, info) => g.observe(call, content, { failed: info.error }).applied,
                };
              },
            });
            records.forEach((r, ri) => {
              for (const scope of ["turn", "session"] as const) {
                const d = r.decisions[scope];
                if (d !== undefined) dump(`tau2 ${domain} ${bname} ${policy} ${consent} ${scope} t${ti} c${ri}`, d);
              }
            });
            for (const l of sink.lines()) audit.update(`${l}\n`);
            lines += sink.lines().length;
          });
          out.push(`audit tau2 ${domain} ${bname} ${policy} ${consent}\t${lines}\t${audit.digest("hex")}`);
        }
      }
    }
  }
}

// 2. The bench mix: 64 candidates alone, then sequences (session scope with executed history), both
// backends, each policy; approvals released or observed.
const f = loadAirline();
if (only === undefined || only === "bench") {
  for (const [bname, factory] of backends) {
    for (const policy of policies) {
      for (const scope of ["session", "turn"] as const) {
        const sink = createMemorySink();
        const g = createGuard({ ontology: { tables: f.tables, hash: blobDigestHex(f.blob), blob: f.blob }, backend: factory, state: f.state.clone(), policy, scope, config: { now: AIRLINE_NOW, projection: f.rules, log: sink } });
        for (let k = 0; k < 64; k++) {
          const d = g.check(f.calls[k]);
          dump(`bench ${bname} ${policy} ${scope} single ${k}`, d);
          if (d.execution !== null) g.release(d.execution);
        }
        for (const n of [2, 4, 16]) {
          for (let k = 0; k < 64; k += 5) {
            const seq = sequence(f, n, k, k % 2 === 0 ? "mixed" : "single-edge");
            const cand = seq[seq.length - 1];
            const head = seq.slice(0, -1);
            let d: Decision;
            if (scope === "turn") d = g.check(cand, { turnCalls: head, userMessages: ["please do it", "yes"] });
            else {
              // The history runs through the guard: checked, then observed with its result.
              const gs = createGuard({ ontology: { tables: f.tables, hash: blobDigestHex(f.blob), blob: f.blob }, backend: factory, state: f.state.clone(), policy, scope, config: { now: AIRLINE_NOW, projection: f.rules, log: sink } });
              for (const h of head) {
                const hd = gs.check({ name: h.name, arguments: h.arguments });
                dump(`bench ${bname} ${policy} ${scope} hist ${n} ${k}`, hd);
                gs.observe({ name: h.name, arguments: h.arguments }, JSON.stringify(h.result));
              }
              d = gs.check(cand, { userMessages: ["yes"] });
            }
            dump(`bench ${bname} ${policy} ${scope} seq ${n} ${k}`, d);
            if (d.execution !== null) g.release(d.execution);
          }
        }
        out.push(`audit bench ${bname} ${policy} ${scope}\t${sink.lines().length}\t${createHash("sha256").update(sink.lines().join("\n")).digest("hex")}`);
      }
    }
  }
}

// 3. Hostile calls and contexts: every one a refusal with a reason, the same one.
if (only === undefined || only === "hostile") {
  const cyc: Record<string, unknown> = { a: 1 };
  cyc.self = cyc;
  const revoked = (() => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  })();
  const rid = f.calls[0].arguments.reservation_id as string;
  const protoKey = JSON.parse(`{"name":"update_reservation_baggages","arguments":{"reservation_id":"${rid}","__proto__":{"x":1},"total_baggages":1,"nonfree_baggages":0,"payment_id":"credit_card_1"}}`);
  class Cls {
    x = 1;
  }
  let deep: unknown = 1;
  for (let i = 0; i < 80; i++) deep = [deep];
  const calls: [string, () => unknown][] = [
    ["null", () => null],
    ["undefined", () => undefined],
    ["string", () => "cancel_reservation"],
    ["array", () => [1, 2]],
    ["no name", () => ({ arguments: {} })],
    ["empty name", () => ({ name: "", arguments: {} })],
    ["numeric name", () => ({ name: 7, arguments: {} })],
    ["no arguments", () => ({ name: "cancel_reservation" })],
    ["array arguments", () => ({ name: "cancel_reservation", arguments: [] })],
    ["unknown tool", () => ({ name: "launch_rocket", arguments: { x: 1 } })],
    ["missing entity", () => ({ name: "cancel_reservation", arguments: { reservation_id: "NOPE00" } })],
    ["key not string", () => ({ name: "cancel_reservation", arguments: { reservation_id: 42 } })],
    ["bigint", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, n: 10n } })],
    ["NaN", () => ({ name: "update_reservation_baggages", arguments: { reservation_id: rid, total_baggages: NaN, nonfree_baggages: 0, payment_id: "credit_card_1" } })],
    ["-0", () => ({ name: "update_reservation_baggages", arguments: { reservation_id: rid, total_baggages: -0, nonfree_baggages: -0, payment_id: "credit_card_1" } })],
    ["Infinity", () => ({ name: "update_reservation_baggages", arguments: { reservation_id: rid, total_baggages: Infinity, nonfree_baggages: 0, payment_id: "credit_card_1" } })],
    ["function", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, f: () => 1 } })],
    ["symbol", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, s: Symbol("x") } })],
    ["undefined value", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, u: undefined } })],
    ["cycle", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, c: cyc } })],
    ["class instance", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, c: new Cls() } })],
    ["date", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, d: new Date(0) } })],
    ["map", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, m: new Map() } })],
    ["hole", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, h: [1, , 3] } })],
    ["deep", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, deep } })],
    ["big array", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, big: new Array(200_000).fill(0) } })],
    ["marker key", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, x: { $nonjson: "fake" } } })],
    ["marker call", () => ({ $nonjson: "x", name: "cancel_reservation", arguments: { reservation_id: rid } })],
    ["marker args", () => ({ name: "cancel_reservation", arguments: { $nonjson: "x", reservation_id: rid } })],
    ["__proto__ key", () => protoKey],
    ["toString key", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, toString: "x", constructor: 1, hasOwnProperty: [1] } })],
    ["null proto", () => Object.assign(Object.create(null), { name: "cancel_reservation", arguments: Object.assign(Object.create(null), { reservation_id: rid }) })],
    ["throwing getter", () => ({ name: "cancel_reservation", get arguments(): never { throw new Error("getter"); } })],
    ["getter arg", () => ({ name: "cancel_reservation", arguments: { get reservation_id() { return rid; } } })],
    ["proxy", () => new Proxy({}, { get: () => { throw new Error("trap"); } })],
    ["revoked", () => revoked],
    ["revoked args", () => ({ name: "cancel_reservation", arguments: revoked })],
    ["frozen", () => Object.freeze({ name: "cancel_reservation", arguments: Object.freeze({ reservation_id: rid }) })],
    ["extra fields", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid }, id: "call_1", type: "function" })],
    ["unicode", () => ({ name: "cancel_reservation", arguments: { reservation_id: rid, note: "\u2028\ud800 \"q\" \\ \u0001" } })],
    ["read-only", () => ({ name: "get_reservation_details", arguments: { reservation_id: rid } })],
    ["send_certificate", () => ({ name: "send_certificate", arguments: { user_id: f.calls[6].arguments.user_id, amount: 100 } })],
  ];
  const contexts: [string, () => unknown][] = [
    ["none", () => undefined],
    ["yes", () => ({ userMessages: ["cancel it", "yes"] })],
    ["messages", () => ({ messages: [{ role: "assistant", content: `Shall I cancel ${rid}?` }, { role: "user", content: "yes" }], userMessages: ["yes"] })],
    ["string", () => "yes"],
    ["throwing", () => ({ get userMessages(): never { throw new Error("getter"); } })],
    ["proxy", () => new Proxy({}, { get: () => { throw new Error("trap"); } })],
    ["bad turnCalls", () => ({ turnCalls: [null, 3, { name: "cancel_reservation" }] })],
    ["turnCalls", () => ({ turnCalls: [{ name: "update_reservation_passengers", arguments: f.history[0].arguments, result: f.history[0].result }] })],
    ["turnCalls before", () => ({ turnCalls: [f.history[1]] })],
    ["no roles", () => ({ messages: [{ content: "yes" }] })],
  ];
  for (const [bname, factory] of backends) {
    for (const policy of policies) {
      for (const consent of consents) {
        for (const scope of ["turn", "session"] as const) {
          const sink = createMemorySink();
          let g: Guard = createGuard({ ontology: { tables: f.tables, hash: blobDigestHex(f.blob), blob: f.blob }, backend: factory, state: f.state.clone(), policy, scope, config: { now: AIRLINE_NOW, consent, projection: f.rules, log: sink } });
          for (const [cn, c] of calls) {
            for (const [xn, x] of contexts) {
              let d: Decision;
              try {
                d = g.check(c(), x() as never);
              } catch (e) {
                // A check that throws (e.g. its record cannot be written to the log): recorded as such.
                out.push(`hostile ${bname} ${policy} ${consent} ${scope} ${cn} / ${xn}\tTHROW\t${String((e as Error).message)}`);
                continue;
              }
              dump(`hostile ${bname} ${policy} ${consent} ${scope} ${cn} / ${xn}`, d);
              if (d.execution !== null) g.release(d.execution);
            }
          }
          // Questions asked, then answered; approvals observed so the session forward grows.
          for (let k = 0; k < 16; k++) {
            const c = f.calls[k];
            const d1 = g.check(c, { userMessages: ["do it"] });
            dump(`hostile ${bname} ${policy} ${consent} ${scope} ask ${k}`, d1);
            const d2 = g.check(c, { userMessages: ["do it", "yes"], messages: [{ role: "assistant", content: `Shall I run ${c.name} on ${String(c.arguments.reservation_id ?? c.arguments.user_id)}?` }, { role: "user", content: "yes" }] });
            dump(`hostile ${bname} ${policy} ${consent} ${scope} answer ${k}`, d2);
            if (d2.execution !== null) {
              if (k % 2 === 0) g.observe(c, JSON.stringify(f.db.reservations[c.arguments.reservation_id as string] ?? {}));
              else g.release(d2.execution);
            }
          }
          out.push(`audit hostile ${bname} ${policy} ${consent} ${scope}\t${sink.lines().length}\t${createHash("sha256").update(sink.lines().join("\n")).digest("hex")}`);
          g = null as unknown as Guard;
        }
      }
    }
  }
}

const file = process.argv[2] ?? join(ROOT, "bench", "out", "golden.jsonl");
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${out.join("\n")}\n`);
console.log(`${out.length} lines -> ${file} (${[...tally].map(([k, v]) => `${k} ${v}`).join(", ")}) sha256 ${createHash("sha256").update(out.join("\n")).digest("hex").slice(0, 16)}`);

import { describe, expect, it } from "vitest";
import { createGuard, readsDigest, type Guard } from "../../src/guard/index.js";
import { CHAIN_GENESIS, chainHead, createJsonlSink, recordHash, verifyAuditLog, type VerifyOptions, type VerifyReport } from "../../src/audit/index.js";
import { airline, airlineState, NOW, referenceFactory, retail, retailState, wasmFactory } from "../guard/helpers.js";
import type { LayerB } from "../../src/projection/layer-b.js";

/** Deterministic PRNG (mulberry32) so the generated log is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MESSAGES = ["yes, go ahead", "no, don't", "네, 진행해 주세요", "아니요", "maybe", "my id is R1", "ok", "wait"];

function airlineCalls(r: () => number): unknown {
  const res = ["R1", "R2", "R9"][Math.floor(r() * 3)];
  const pick = Math.floor(r() * 12);
  switch (pick) {
    case 0: return { name: "update_reservation_flights", arguments: { reservation_id: res, flights: [{ flight_number: `HAT${Math.floor(r() * 100)}`, date: "2024-05-22" }] } };
    case 1: return { name: "update_reservation_cabin", arguments: { reservation_id: res, cabin: r() < 0.5 ? "business" : "economy" } };
    case 2: return { name: "cancel_reservation", arguments: { reservation_id: res } };
    case 3: return { name: "book_reservation", arguments: { user_id: "mia", flights: [] } };
    case 4: return { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } };
    case 5: return { name: "apply_voucher", arguments: { voucher_id: r() < 0.8 ? "V1" : "V9" } };
    case 6: return { name: "get_reservation_details", arguments: { reservation_id: res } };
    case 7: return { name: "launch_rocket", arguments: {} };
    case 8: return { name: "cancel_reservation", arguments: { reservation_id: { bad: true } } };
    case 9: return { name: 7, arguments: {} };
    case 10: return { name: "update_reservation_flights", arguments: { reservation_id: res, when: new Date(0) } };
    default: return { name: "update_reservation_flights", arguments: { reservation_id: res, flights: [] } };
  }
}

function retailCalls(r: () => number): unknown {
  const order = ["O1", "O2", "O7"][Math.floor(r() * 3)];
  const pick = Math.floor(r() * 7);
  switch (pick) {
    case 0: return { name: "modify_pending_order_address", arguments: { order_id: order, address: { city: "Dallas" } } };
    case 1: return { name: "modify_pending_order_items", arguments: { order_id: order, items: ["rug"] } };
    case 2: return { name: "cancel_pending_order", arguments: { order_id: order, reason: "ordered by mistake" } };
    case 3: return { name: "return_delivered_order_items", arguments: { order_id: order, item_ids: ["desk"] } };
    case 4: return { name: "modify_user_address", arguments: { user_id: "sam", address: { city: "Reno" } } };
    case 5: return { name: "get_order_details", arguments: { order_id: order } };
    default: return { name: "place_order", arguments: { user_id: "sam", items: ["lamp"] } };
  }
}

/** Runs generated sessions through guards (every policy, both scopes, both domains) into one log. */
function generateLog(decisions: number, seed: number): string[] {
  const r = rng(seed);
  const lines: string[] = [];
  const sink = createJsonlSink((line) => lines.push(line.trimEnd()));
  let booked = 0;
  while (lines.length < decisions) {
    const domain = r() < 0.6 ? "airline" : "retail";
    const policy = (["veto", "escalate", "advisory"] as const)[Math.floor(r() * 3)];
    const scope = r() < 0.5 ? "session" : "turn";
    const state = domain === "airline" ? airlineState() : retailState();
    const tau = [0.8, 0.8, 0.6, 0.9][Math.floor(r() * 4)];
    const g: Guard = createGuard({
      ontology: domain === "airline" ? airline.blob : retail.blob,
      backend: referenceFactory,
      state,
      policy,
      scope,
      config: { now: NOW, tau, log: sink, tiers: r() < 0.15 ? ["T1", "T3"] : undefined },
    });
    const messages: string[] = [];
    const turn: { name: string; arguments: Record<string, unknown> }[] = [];
    const steps = 3 + Math.floor(r() * 10);
    for (let i = 0; i < steps; i++) {
      if (r() < 0.4) messages.push(MESSAGES[Math.floor(r() * MESSAGES.length)]);
      if (r() < 0.2) turn.length = 0;
      if (r() < 0.05) g.checkpoint();
      const call = domain === "airline" ? airlineCalls(r) : retailCalls(r);
      let d = g.check(call, { userMessages: messages, turnCalls: turn });
      if (d.route === "ConsentEscalated" && r() < 0.7) {
        // Consent counts as the answer to the guard's own question: the user answers, the call again.
        messages.push(["yes, go ahead", "네, 진행해 주세요", "ok", "do it tomorrow", "아니요"][Math.floor(r() * 5)]);
        d = g.check(call, { userMessages: messages, turnCalls: turn });
      }
      if (!d.approved || d.reason === "malformed_call") continue;
      const c = call as { name: string; arguments: Record<string, unknown> };
      // Execute: a plausible result, and Layer B changes as the real tool would make them.
      let result: unknown = { ok: true };
      if (c.name === "book_reservation" || c.name === "place_order") {
        const id = `${c.name === "book_reservation" ? "NEW" : "ORD"}${booked++}`;
        result = c.name === "book_reservation" ? { reservation_id: id } : { order_id: id };
        if (c.name === "book_reservation") (state as LayerB).replaceEntity("reservation", id, { status: "confirmed", user_id: "mia", flights: [], cabin: "economy", first_departure: "2024-06-01T00:00:00" });
        else (state as LayerB).replaceEntity("order", id, { status: "pending", items: ["lamp"], user_id: "sam", address: { city: "Austin" } });
      }
      g.observe(c, result);
      if (c.name === "cancel_reservation") (state as LayerB).set("reservation", String(c.arguments.reservation_id), "status", "cancelled");
      if (c.name === "cancel_pending_order") (state as LayerB).set("order", String(c.arguments.order_id), "status", "cancelled");
      if (c.name === "update_reservation_flights" && Array.isArray(c.arguments.flights)) (state as LayerB).set("reservation", String(c.arguments.reservation_id), "flights", c.arguments.flights);
      turn.push(c);
    }
  }
  return lines.slice(0, decisions);
}

const ontologies = [airline.blob, retail.blob];
const log = generateLog(1200, 20261130);

function tamper(index: number, edit: (d: Record<string, any>) => void): string[] {
  const copy = [...log];
  const d = JSON.parse(copy[index]);
  edit(d);
  copy[index] = JSON.stringify(d);
  return copy;
}
const firstWith = (pred: (d: Record<string, any>) => boolean) => log.findIndex((l) => pred(JSON.parse(l)));
/** The re-derivation's findings on the edited line itself (the chain's are on the next line). */
const on = (report: VerifyReport, line: number) => report.mismatches.filter((m) => m.line === line).map((m) => m.field);


describe("audit replay", () => {
  it("re-derives every decision of a ≥ 1,000-decision generated log with zero mismatches", () => {
    const routes = new Map<string, number>();
    const reasons = new Set<string>();
    for (const l of log) {
      const d = JSON.parse(l);
      routes.set(d.route, (routes.get(d.route) ?? 0) + 1);
      reasons.add(d.reason);
    }
    console.log(`generated log: ${log.length} decisions, routes ${JSON.stringify(Object.fromEntries(routes))}, reasons ${[...reasons].sort().join(" ")}`);
    expect(log.length).toBeGreaterThanOrEqual(1000);
    for (const route of ["Approved", "Vetoed", "ConsentApproved", "ConsentEscalated", "AdvisoryPassthrough"]) expect(routes.get(route) ?? 0).toBeGreaterThan(10);
    for (const reason of ["ok", "read_only", "overlap_conflict", "external_side_effect", "irreversibly_consumes", "below_threshold", "unknown_tool", "malformed_call", "missing_entity", "bound_violated"]) {
      expect(reasons).toContain(reason);
    }
    const report = verifyAuditLog(log, { ontologies });
    expect(report.mismatches).toEqual([]);
    expect(report).toMatchObject({ ok: true, total: log.length, verified: log.length });
  });

  it("the wasm backend replays the reference's log identically", () => {
    const report = verifyAuditLog(log.slice(0, 300), { ontologies, backend: wasmFactory });
    expect(report.mismatches).toEqual([]);
  });

  it("accepts a JSONL text as well as lines", () => {
    expect(verifyAuditLog(log.slice(0, 20).join("\n") + "\n", { ontologies }).verified).toBe(20);
  });

  it("reports a tampered route by line, and the chain reports it on the next line", () => {
    const i = firstWith((d) => d.route === "Vetoed" && d.verdict !== null);
    const report = verifyAuditLog(tamper(i, (d) => { d.route = "Approved"; d.approved = true; }), { ontologies });
    expect(report.ok).toBe(false);
    expect(report.mismatches.map((m) => [m.line, m.field])).toEqual([[i + 1, "route"], [i + 1, "approved"], [i + 2, "chain.prev"]]);
  });

  it("reports an edited Layer B value (digest), and a consistent edit of value and digest (verdict)", () => {
    const i = firstWith((d) => d.route === "Approved" && d.reason === "ok" && d.reads.some((r: unknown[]) => r[2] === "status"));
    const edit = (d: Record<string, any>) => {
      const r = d.reads.find((x: unknown[]) => x[2] === "status");
      r[3] = "cancelled";
    };
    const a = verifyAuditLog(tamper(i, edit), { ontologies });
    expect(on(a, i + 1)).toContain("stateDigest");
    const b = verifyAuditLog(tamper(i, (d) => { edit(d); d.stateDigest = readsDigest(d.reads); }), { ontologies });
    expect(on(b, i + 1).length).toBeGreaterThan(0);
    expect(b.mismatches.every((m) => m.line === i + 1 || (m.line === i + 2 && m.field === "chain.prev"))).toBe(true);
  });

  it("reports a changed score, a dropped read, a changed config and a line that is not JSON", () => {
    const i = firstWith((d) => d.verdict !== null && d.verdict.complete);
    expect(on(verifyAuditLog(tamper(i, (d) => { d.verdict.phi += 1; }), { ontologies }), i + 1)).toEqual(["verdict"]);
    const dropped = verifyAuditLog(tamper(i, (d) => { d.reads = d.reads.slice(1); d.stateDigest = readsDigest(d.reads); }), { ontologies });
    expect(on(dropped, i + 1)).toContain("reads");
    const cfg = verifyAuditLog(tamper(i, (d) => { d.config.tau = 0.1; }), { ontologies });
    expect(on(cfg, i + 1)).toContain("configHash");
    const copy = [...log];
    copy[5] = "{not json";
    expect(verifyAuditLog(copy, { ontologies }).mismatches).toEqual([expect.objectContaining({ line: 6, field: "json" })]);
    expect(verifyAuditLog(log.slice(0, 5), { ontologies: [airline.blob.slice(0, 0)].slice(1) }).mismatches[0].field).toBe("ontologyHash");
  });
});

describe("audit log as a hash chain", () => {
  const short = log.slice(0, 40);
  const fields = (lines: string[] | string, options: Partial<VerifyOptions> = {}) => verifyAuditLog(lines, { ontologies, ...options }).mismatches.map((m) => `${m.line}:${m.field}`);
  const edit = (lines: string[], i: number, f: (d: Record<string, any>) => void) => {
    const copy = [...lines];
    const d = JSON.parse(copy[i]);
    f(d);
    copy[i] = JSON.stringify(d);
    return copy;
  };

  it("links every record to the one before it, from the genesis, with contiguous indexes", () => {
    const records = short.map((l) => JSON.parse(l));
    expect(records[0].chain).toEqual({ index: 1, prev: CHAIN_GENESIS });
    records.slice(1).forEach((r, k) => expect(r.chain).toEqual({ index: k + 2, prev: recordHash(records[k]) }));
    const report = verifyAuditLog(short, { ontologies });
    expect(report.ok).toBe(true);
    expect(report.head).toEqual({ index: 40, hash: recordHash(records[39]) });
    expect(chainHead(short.join("\n") + "\n")).toEqual(report.head);
  });

  it("a sink started from a log's head continues its chain (appending to an existing file)", () => {
    const first = short.slice(0, 10).join("\n") + "\n";
    const more: string[] = [];
    const sink = createJsonlSink((l) => more.push(l), { from: chainHead(first) });
    const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW, log: sink } });
    g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
    g.check({ name: "get_reservation_details", arguments: { reservation_id: "R1" } });
    expect(JSON.parse(more[0]).chain.index).toBe(11);
    expect(verifyAuditLog(first + more.join(""), { ontologies }).ok).toBe(true);
    expect(sink.head().index).toBe(12);
    // A sink that does not continue the chain starts a second genesis, which verify reports.
    const fresh: string[] = [];
    const g2 = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), config: { now: NOW, log: createJsonlSink((l) => fresh.push(l)) } });
    g2.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
    expect(fields(first + fresh.join(""))).toEqual(expect.arrayContaining(["11:chain.index", "11:chain.prev"]));
  });

  it("reports reordered, duplicated and deleted lines", () => {
    const swapped = [...short];
    [swapped[10], swapped[11]] = [swapped[11], swapped[10]];
    expect(fields(swapped)).toEqual(expect.arrayContaining(["11:chain.index", "11:chain.prev", "12:chain.index", "12:chain.prev"]));
    const duplicated = [...short.slice(0, 8), short[7], ...short.slice(8)];
    expect(fields(duplicated)).toEqual(expect.arrayContaining(["9:chain.index", "9:chain.prev"]));
    const deleted = [...short.slice(0, 8), ...short.slice(9)];
    expect(fields(deleted)).toEqual(expect.arrayContaining(["9:chain.index", "9:chain.prev"]));
    const deletedFirst = short.slice(1);
    expect(fields(deletedFirst)).toEqual(expect.arrayContaining(["1:chain.index", "1:chain.prev"]));
  });

  it("reports an edited seq, even on the last line", () => {
    const mid = edit(short, 5, (d) => { d.seq += 7; });
    expect(fields(mid)).toEqual(expect.arrayContaining(["6:seq", "7:chain.prev"]));
    const guardSeqs = short.map((l) => JSON.parse(l).seq as number);
    const last = short.length - 1;
    expect(guardSeqs[last]).toBeGreaterThan(1);
    expect(fields(edit(short, last, (d) => { d.seq += 1; }))).toEqual([`${last + 1}:seq`]);
    expect(fields(edit(short, last, (d) => { d.chain.index += 1; }))).toEqual([`${last + 1}:chain.index`]);
  });

  it("reports an empty log and a log cut off mid-line", () => {
    expect(fields("")).toEqual(["0:log"]);
    expect(fields([])).toEqual(["0:log"]);
    expect(verifyAuditLog("", { ontologies, allowEmpty: true }).ok).toBe(true);
    const text = short.join("\n") + "\n";
    const cut = text.slice(0, text.length - 30);
    expect(fields(cut)).toEqual(expect.arrayContaining([`${short.length}:truncated`, `${short.length}:json`]));
    expect(fields(short.join("\n"))).toEqual([`${short.length}:truncated`]);
  });

  it("catches an edit to call arguments that no operand reads", () => {
    const i = short.findIndex((l) => JSON.parse(l).call?.name === "update_reservation_flights");
    expect(i).toBeGreaterThanOrEqual(0);
    expect(i).toBeLessThan(short.length - 1);
    const tampered = edit(short, i, (d) => { d.call.arguments.note = "added later"; });
    expect(fields(tampered)).toEqual([`${i + 2}:chain.prev`]);
  });

  it("reports an edited scope, policy or tau, and a config with an extra key", () => {
    const i = 3;
    expect(fields(edit(short, i, (d) => { d.scope = d.scope === "turn" ? "session" : "turn"; }))).toEqual(expect.arrayContaining([`${i + 1}:scope`]));
    expect(fields(edit(short, i, (d) => { d.policy = d.policy === "veto" ? "advisory" : "veto"; }))).toEqual(expect.arrayContaining([`${i + 1}:policy`]));
    expect(fields(edit(short, i, (d) => { d.tau = 1; }))).toEqual(expect.arrayContaining([`${i + 1}:tau`]));
    const extra = fields(edit(short, i, (d) => { d.config.threshold = 0.1; }));
    expect(extra).toEqual(expect.arrayContaining([`${i + 1}:config`, `${i + 1}:configHash`]));
  });

  it("a head anchored elsewhere catches a truncated or rewritten tail", () => {
    const head = chainHead(short.join("\n") + "\n").hash;
    expect(verifyAuditLog(short, { ontologies, head }).ok).toBe(true);
    // The log grew after the anchor: the anchored record is still in it.
    expect(verifyAuditLog(log.slice(0, 60), { ontologies, head }).ok).toBe(true);
    expect(verifyAuditLog(short.slice(0, -3), { ontologies }).ok).toBe(true); // undetectable without an anchor
    expect(fields(short.slice(0, -3), { head })).toEqual([`${short.length - 3}:head`]);
    const last = short.length - 1;
    expect(fields(edit(short, last, (d) => { d.call.arguments.note = "x"; }), { head })).toEqual([`${last + 1}:head`]);
  });

  it("a record claiming a backend fault the replay does not reproduce fails, unless accepted as transient", () => {
    const i = firstWith((d) => d.route === "Approved" && d.reason === "ok" && d.policy === "veto");
    const hidden = (d: Record<string, any>) => {
      Object.assign(d, { route: "Vetoed", approved: false, admissible: false, reason: "internal_error", detail: "core-trap: unreachable", verdict: null });
    };
    const lines = tamper(i, hidden);
    const strict = verifyAuditLog(lines, { ontologies });
    expect(on(strict, i + 1)).toEqual(expect.arrayContaining(["route", "approved", "reason"]));
    expect(strict.transient).toEqual([]);
    const accepted = verifyAuditLog(lines, { ontologies, acceptTransient: true });
    expect(on(accepted, i + 1)).toEqual([]);
    expect(accepted.transient).toEqual([i + 1]);
    // Accepted as transient only as a plain veto: never as an approval or a passthrough.
    const j = firstWith((d) => d.route === "Vetoed" && d.reason !== "internal_error" && d.policy === "veto");
    for (const route of ["Approved", "AdvisoryPassthrough"]) {
      const r = verifyAuditLog(tamper(j, (d) => { hidden(d); d.route = route; d.approved = true; }), { ontologies, acceptTransient: true });
      expect(on(r, j + 1)).toContain("route");
    }
  });
});

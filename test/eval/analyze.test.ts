// The aggregations on hand-made rows whose tables are known, and the static baseline on the real
// ontologies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBlob } from "../../src/blob/index.js";
import { compile } from "../../src/compiler/index.js";
import {
  ALL,
  errorCounts,
  errorExamples,
  inventory,
  labeledEvaluation,
  labelQuality,
  paperTables,
  stops,
} from "../../src/eval/analyze.js";
import type { CallRow, ScopeOutcome, VariantOutcome } from "../../src/eval/collect.js";
import { staticEntry, staticTable } from "../../src/eval/collect.js";
import { allVariants, sweepId, TAU_SWEEP, tauId } from "../../src/eval/variants.js";
import type { GuardReason } from "../../src/policies/index.js";
import { REPO_ROOT, itTau2, tau2Dir } from "../tau2/data-dir.js";

const ONE = 1_000_000;

/** A scope outcome whose every variant agrees with the main one unless overridden. */
function outcome(reason: GuardReason, phi: number | null, over: Record<string, Partial<VariantOutcome>> = {}, escalate?: ScopeOutcome["escalate"], staticEscalate: ScopeOutcome["staticEscalate"] = "Approved"): ScopeOutcome {
  const admissible = reason === "ok";
  const base: VariantOutcome = { admissible, reason, phi, complete: phi !== null };
  const variants: Record<string, VariantOutcome> = {};
  for (const v of [allVariants(0.8).main, ...allVariants(0.8).others]) variants[v.id] = { ...base, ...(over[v.id] ?? {}) };
  return {
    ...base,
    loss: 0,
    bottleneckTool: admissible ? null : "tool",
    bottleneckAnnotation: null,
    inverse: "",
    forward: 0,
    bottleneckEarlier: false,
    veto: admissible ? "Approved" : "Vetoed",
    escalate: escalate ?? (admissible ? "Approved" : "ConsentEscalated"),
    consentEvidence: null,
    staticEscalate,
    variants,
  };
}

let callIndex = 0;
function row(p: Partial<CallRow> & { domain: string; model: string; taskId: string; tool: string }, out: ScopeOutcome | null): CallRow {
  return {
    file: "f.json",
    cluster: `${p.domain}:${p.taskId}`,
    trial: 0,
    simulation: 0,
    reward: 1,
    callIndex: callIndex++,
    arguments: {},
    write: out !== null && out.reason !== "read_only",
    ran: true,
    errored: false,
    label: null,
    matched: null,
    strictLabel: null,
    staticBlocked: false,
    lastUserMessage: null,
    scopes: out === null ? {} : { turn: out },
    ...p,
  };
}

// Airline: two tasks, three writes; retail: one task, two writes; plus one read-only call.
const rows: CallRow[] = [
  row({ domain: "airline", model: "m1", taskId: "1", tool: "cancel_reservation", label: "unauthorized", strictLabel: "unauthorized", reward: 0 }, outcome("ok", 810_000, { "tau-0.85": { admissible: false, reason: "below_threshold" }, "tau-0.90": { admissible: false }, "tau-0.95": { admissible: false }, "no-t3": { admissible: false, reason: "no_candidate", phi: null, complete: false }, t1: { admissible: false } })),
  row({ domain: "airline", model: "m1", taskId: "1", tool: "update_reservation_flights", label: "authorized", strictLabel: "authorized" }, outcome("ok", 990_000, { t1: { admissible: false }, "t1-t3": { admissible: false } })),
  row({ domain: "airline", model: "m2", taskId: "2", tool: "send_certificate", label: "authorized", strictLabel: "unauthorized", staticBlocked: true }, outcome("external_side_effect", 0, { "no-fail-closed": { admissible: true, reason: "ok", phi: ONE } }, "ConsentApproved", "ConsentApproved")),
  row({ domain: "airline", model: "m2", taskId: "2", tool: "get_user_details" }, outcome("read_only", null)),
  row({ domain: "retail", model: "m1", taskId: "7", tool: "return_delivered_order_items", label: "authorized", strictLabel: "authorized", staticBlocked: true }, outcome("external_side_effect", 0, { "no-fail-closed": { admissible: true, reason: "ok", phi: ONE } }, undefined, "ConsentEscalated")),
  row({ domain: "retail", model: "m1", taskId: "7", tool: "cancel_pending_order", label: "unauthorized", strictLabel: "unauthorized", staticBlocked: true, errored: true }, outcome("irreversibly_consumes", 0, {}, undefined, "ConsentEscalated")),
];
const domains = ["airline", "retail"];

describe("paperTables", () => {
  const p = paperTables(rows, "turn", 0.8, domains);

  it("counts what the veto blocks by tool, reason and domain", () => {
    expect(p.decisions).toBe(5);
    expect(p.blocked).toBe(3);
    expect(p.blockedByTool.map((r) => [r.model, r.domain, r.tool, r.blocked, r.decisions])).toEqual([
      ["m2", "airline", "send_certificate", 1, 1],
      ["m1", "retail", "cancel_pending_order", 1, 1],
      ["m1", "retail", "return_delivered_order_items", 1, 1],
    ]);
    expect(p.blockedByReason.map((r) => [r.reason, r.count, r.byDomain])).toEqual([
      ["external_side_effect", 2, { airline: 1, retail: 1 }],
      ["irreversibly_consumes", 1, { airline: 0, retail: 1 }],
    ]);
    expect(p.blockedByReason[0].share).toBeCloseTo(2 / 3, 12);
    expect(p.blockedByDomain).toEqual([
      { domain: "retail", blocked: 2, share: 2 / 3, decisions: 2, blockRate: 1 },
      { domain: "airline", blocked: 1, share: 1 / 3, decisions: 3, blockRate: 1 / 3 },
    ]);
  });

  it("puts admitted plans in φ buckets", () => {
    expect(p.admitted).toBe(2);
    expect(p.phiBuckets.map((b) => [b.phi, b.count, b.share])).toEqual([
      ["0.990", 1, 0.5],
      ["0.810", 1, 0.5],
    ]);
    expect(p.phiBuckets[1].origin).toMatch(/high loss/);
  });

  it("sweeps τ over the candidate pool and over all decisions", () => {
    const all = p.tauSweep.find((r) => r.domain === ALL)!;
    expect(all.pool).toBe(2); // φ 0 plans are not in the pool
    expect(all.poolPass).toEqual({ "0.50": 1, "0.70": 1, "0.80": 1, "0.85": 0.5, "0.90": 0.5, "0.95": 0.5 });
    expect(all.decisions).toBe(5);
    expect(all.pass["0.80"]).toBeCloseTo(2 / 5, 12);
    expect(p.tauSweep.find((r) => r.domain === "retail")).toMatchObject({ pool: 0, poolPass: { "0.80": null } });
  });

  it("reports each tier ablation's block rate", () => {
    const get = (id: string) => p.ablations.find((a) => a.id === id)!.cells;
    expect(get("full").airline).toEqual({ blocked: 1, decisions: 3, blockRate: 1 / 3 });
    expect(get("no-t3").airline.blocked).toBe(2);
    expect(get("t1").airline.blocked).toBe(3);
    expect(get("t1-t3").airline.blocked).toBe(2);
    expect(get("no-fail-closed")[ALL]).toEqual({ blocked: 1, decisions: 5, blockRate: 0.2 });
  });
});

describe("labeledEvaluation", () => {
  const cells = labeledEvaluation(rows, "turn", { resamples: 500, seed: 1 });
  const cell = (d: string, m: string) => cells.find((c) => c.domain === d && c.model === m && !c.dedup)!;

  it("has per-model, per-domain and pooled cells over effective labeled writes, deduplicated first, then over every call", () => {
    const names = ["airline/m1", "airline/m2", "airline/all", "retail/m1", "retail/all", "all/all"];
    expect(cells.map((c) => `${c.dedup ? "dedup " : ""}${c.domain}/${c.model}`)).toEqual([...names.map((n) => `dedup ${n}`), ...names]);
    expect(cell(ALL, ALL)).toMatchObject({ effectiveWrites: 4, authorized: 3, unauthorized: 1, erroredUnauthorized: 1, tasks: 3 });
  });

  it("baselines: allow-all stops nothing, block-every-write everything", () => {
    for (const c of cells) {
      for (const k of ["unauthorizedStopped", "authorizedStopped"] as const) {
        const a = c.policies["allow-all"][k];
        const b = c.policies["block-every-write"][k];
        if (a.n === 0) continue;
        expect([a.share, a.lo, a.hi]).toEqual([0, 0, 0]);
        expect([b.share, b.lo, b.hi]).toEqual([1, 1, 1]);
      }
    }
  });

  it("veto, escalate and the static table stop what their routes say", () => {
    const all = cell(ALL, ALL).policies;
    // Authorized: update flights (approved), certificate (vetoed; consent approves it), return (vetoed; escalated).
    expect(all["polar-veto"].authorizedStopped).toMatchObject({ hits: 2, n: 3 });
    expect(all["polar-escalate"].authorizedStopped).toMatchObject({ hits: 1, n: 3 });
    expect(all["static-table"].authorizedStopped).toMatchObject({ hits: 2, n: 3 });
    // static-escalate: the certificate got consent, the return is held for a question.
    expect(all["static-escalate"].authorizedStopped).toMatchObject({ hits: 1, n: 3 });
    // The one unauthorized effective write (a cancellation) is admitted by all three.
    expect(all["polar-veto"].unauthorizedStopped).toMatchObject({ share: 0, n: 1 });
    expect(cell("retail", ALL).policies["polar-veto"].unauthorizedStopped.share).toBeNull();
  });

  it("is deterministic", () => {
    expect(labeledEvaluation(rows, "turn", { resamples: 500, seed: 1 })).toEqual(cells);
  });

  it("stops() by policy", () => {
    const r = rows[2];
    expect(stops("polar-veto", r, r.scopes.turn!)).toBe(true);
    expect(stops("polar-escalate", r, r.scopes.turn!)).toBe(false);
    expect(stops("allow-all", r, r.scopes.turn!)).toBe(false);
    expect(stops("block-every-write", r, r.scopes.turn!)).toBe(true);
    expect(stops("static-table", r, r.scopes.turn!)).toBe(true);
    expect(stops("static-escalate", r, r.scopes.turn!)).toBe(false);
    expect(stops("static-escalate", rows[4], rows[4].scopes.turn!)).toBe(true);
  });
});

describe("label quality, guard errors and the inventory", () => {
  it("counts strict-rule disagreements and unauthorized writes in solved runs", () => {
    const q = labelQuality(rows);
    expect(q).toMatchObject({ effectiveWrites: 4, strictDisagreements: 1, unauthorized: 1, unauthorizedInSolvedRuns: 0 });
    expect(q.unauthorizedByTool).toEqual([{ domain: "airline", tool: "cancel_reservation", count: 1, inSolvedRuns: 0 }]);
  });

  it("lists vetoed authorized and admitted unauthorized writes", () => {
    expect(errorCounts(rows, "turn")).toEqual([
      { kind: "admitted-unauthorized", domain: "airline", tool: "cancel_reservation", reason: "ok", count: 1 },
      { kind: "vetoed-authorized", domain: "airline", tool: "send_certificate", reason: "external_side_effect", count: 1 },
      { kind: "vetoed-authorized", domain: "retail", tool: "return_delivered_order_items", reason: "external_side_effect", count: 1 },
    ]);
    expect(errorExamples(rows, "turn").map((e) => e.kind)).toEqual(["admitted-unauthorized", "vetoed-authorized", "vetoed-authorized"]);
  });

  it("summarizes runs per (domain, model)", () => {
    const inv = inventory(rows, [
      { domain: "airline", model: "m1", cluster: "airline:1", reward: 0 },
      { domain: "airline", model: "m2", cluster: "airline:2", reward: 1 },
      { domain: "retail", model: "m1", cluster: "retail:7", reward: 1 },
    ]);
    expect(inv.map((i) => [i.domain, i.model, i.trajectories, i.agentCalls, i.writes, i.effectiveWrites, i.erroredWrites, i.authorized, i.unauthorized])).toEqual([
      ["airline", "m1", 1, 2, 2, 2, 0, 1, 1],
      ["airline", "m2", 1, 2, 1, 1, 0, 1, 0],
      ["retail", "m1", 1, 2, 2, 1, 1, 1, 0],
    ]);
  });
});

describe("variants", () => {
  it("searches each configuration once and maps the sweep onto them", () => {
    const { main, others } = allVariants(0.8);
    expect(main.id).toBe("full");
    const ids = [main.id, ...others.map((o) => o.id)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const t of TAU_SWEEP) expect(ids).toContain(sweepId(t, 0.8));
    expect(sweepId(0.8, 0.8)).toBe("full");
    expect(sweepId(0.85, 0.8)).toBe(tauId(0.85));
    expect(ids).toHaveLength(10);
  });
});

describe("the static tier table of the real ontologies", () => {
  const table = (d: string) => staticTable(decodeBlob(new Uint8Array(readFileSync(join(REPO_ROOT, "ontologies", d, `${d}.blob`)))));

  it("blocks a tool whose worst tier is T4/T5 or that has no positive annotation", () => {
    const airline = table("airline");
    expect(airline.get("send_certificate")).toMatchObject({ blocked: true, readOnly: false });
    expect(airline.get("transfer_to_human_agents")?.blocked).toBe(true);
    // A tool whose self-undo is conditional and whose failing case is annotated T4 (issue 12) is blocked:
    // the table cannot read the state that decides between the two.
    expect(airline.get("update_reservation_flights")).toMatchObject({ blocked: true, tiers: ["T2", "T4"], why: "worst tier T4" });
    expect(airline.get("update_reservation_baggages")).toMatchObject({ blocked: false, tiers: ["T2", "T3"] });
    expect(airline.get("get_user_details")).toMatchObject({ readOnly: true, blocked: false });
    expect(table("retail").get("cancel_pending_order")?.blocked).toBe(true);
    expect(table("retail").get("modify_user_address")?.blocked).toBe(false);
    expect(table("telecom").get("reseat_sim_card")).toMatchObject({ blocked: true, tiers: ["T2", "T4"] });
    const compiled = compile("slot_definition(doc, body, string).\ntool(touch, acts_on = doc, key = id).\n", { name: "bare.polar" });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
    const bare = staticTable(compiled.tables);
    expect(bare.get("touch")).toMatchObject({ blocked: true, why: "no positive annotation" });
    expect(staticEntry(airline, "no_such_tool")).toMatchObject({ known: false, blocked: true });
  });
});

describe("write calls", () => {
  itTau2("the ontologies' non-read-only tools are exactly the manifests' write and transfer tools", () => {
    for (const d of ["airline", "retail", "telecom"]) {
      const tables = decodeBlob(new Uint8Array(readFileSync(join(REPO_ROOT, "ontologies", d, `${d}.blob`))));
      const writes = tables.tools.filter((t) => !t.readOnly).map((t) => t.name).sort();
      const manifest = JSON.parse(readFileSync(join(tau2Dir(), "tools", `${d}.json`), "utf8")) as { name: string; kind: string }[];
      expect(writes, d).toEqual(manifest.filter((t) => t.kind === "write" || t.kind === "transfer").map((t) => t.name).sort());
    }
  });
});

// The fair comparison on small fixtures: one write one vote (dedup), the per-file mean, static-escalate's
// routing, the dominance verdict and its paired bootstrap, and the domain of a file that does not say it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeBlob } from "../../src/blob/index.js";
import { ALL, fileMean, labeledCells } from "../../src/eval/analyze.js";
import { staticEntry, staticEscalateRoute, staticReason, staticTable, type CallRow, type ScopeOutcome } from "../../src/eval/collect.js";
import { dedupKey, dedupRows } from "../../src/eval/dedup.js";
import { comparePair, dominance, dominanceVerdict } from "../../src/eval/dominance.js";
import { inferDomain, type DomainEvidence } from "../../src/eval/infer-domain.js";
import { escalatePolicy, defaultConsentDetector } from "../../src/policies/index.js";
import type { Trajectory } from "../../src/tau2/adapter.js";
import { REPO_ROOT } from "../tau2/data-dir.js";

/** A write whose POLAR routes follow `polar` (stops or not) and static routes follow `stat`. */
function out(polar: boolean, stat: boolean): ScopeOutcome {
  return {
    admissible: !polar,
    reason: polar ? "bound_violated" : "ok",
    phi: polar ? 0 : 990_000,
    complete: true,
    loss: 0,
    bottleneckTool: "t",
    bottleneckAnnotation: "a-1",
    inverse: "",
    forward: 0,
    bottleneckEarlier: false,
    veto: polar ? "Vetoed" : "Approved",
    escalate: polar ? "ConsentEscalated" : "Approved",
    consentEvidence: null,
    staticEscalate: stat ? "ConsentEscalated" : "Approved",
    variants: {},
  };
}

let seq = 0;
function w(p: { file?: string; sim?: number; task: string; tool?: string; args?: Record<string, unknown>; label: "authorized" | "unauthorized"; polar: boolean; stat: boolean; domain?: string }): CallRow {
  const domain = p.domain ?? "airline";
  return {
    file: p.file ?? "a.json",
    model: "m",
    domain,
    taskId: p.task,
    cluster: `${domain}:${p.task}`,
    trial: 0,
    simulation: p.sim ?? 0,
    reward: 0,
    callIndex: seq++,
    tool: p.tool ?? "cancel_reservation",
    arguments: p.args ?? { reservation_id: "R1" },
    write: true,
    ran: true,
    errored: false,
    label: p.label,
    matched: null,
    strictLabel: p.label,
    staticBlocked: p.stat,
    lastUserMessage: null,
    scopes: { turn: out(p.polar, p.stat) },
  };
}

describe("one write, one vote", () => {
  it("an identical call (same run, tool, canonical arguments) is one key; another run, tool or argument is not", () => {
    const base = { file: "a.json", simulation: 3, tool: "set_apn_settings", arguments: { apn: { name: "x", mms: null }, n: 1 } };
    expect(dedupKey({ ...base, arguments: { n: 1, apn: { mms: null, name: "x" } } })).toBe(dedupKey(base));
    // A string holding the same JSON is the same argument (the labels compare it so).
    expect(dedupKey({ ...base, arguments: { n: 1, apn: '{"mms": null, "name": "x"}' } })).toBe(dedupKey(base));
    expect(dedupKey({ ...base, simulation: 4 })).not.toBe(dedupKey(base));
    expect(dedupKey({ ...base, file: "b.json" })).not.toBe(dedupKey(base));
    expect(dedupKey({ ...base, tool: "reset_apn_settings" })).not.toBe(dedupKey(base));
    expect(dedupKey({ ...base, arguments: { ...base.arguments, n: 2 } })).not.toBe(dedupKey(base));
    // A value canonical JSON refuses still gets a key.
    expect(() => dedupKey({ ...base, arguments: { x: "[1e400]" } })).not.toThrow();
  });

  it("keeps the first occurrence of each call, in order", () => {
    const a = w({ task: "1", label: "unauthorized", polar: true, stat: true });
    const b = w({ task: "1", label: "unauthorized", polar: false, stat: true }); // the same call again
    const c = w({ task: "1", args: { reservation_id: "R2" }, label: "unauthorized", polar: false, stat: true });
    expect(dedupRows([a, b, c])).toEqual([a, c]);
  });

  it("a model that repeats one call ten times weighs one write in the deduplicated cells, ten in the others", () => {
    const loop = Array.from({ length: 10 }, () => w({ file: "loop.json", task: "1", label: "unauthorized", polar: true, stat: true }));
    const other = [w({ file: "b.json", task: "2", label: "unauthorized", polar: false, stat: false })];
    const settings = { resamples: 200, seed: 7 };
    const all = labeledCells([...loop, ...other], "turn", settings, false).find((c) => c.domain === ALL)!;
    const dd = labeledCells([...loop, ...other], "turn", settings, true).find((c) => c.domain === ALL)!;
    expect(all).toMatchObject({ dedup: false, unauthorized: 11 });
    expect(all.policies["polar-veto"].unauthorizedStopped).toMatchObject({ hits: 10, n: 11 });
    expect(dd).toMatchObject({ dedup: true, unauthorized: 2 });
    expect(dd.policies["polar-veto"].unauthorizedStopped).toMatchObject({ hits: 1, n: 2, share: 0.5 });
    // Each results file one vote: loop.json stops 100%, b.json 0%.
    expect(all.policies["polar-veto"].unauthorizedStopped).toMatchObject({ fileMean: 0.5, files: 2 });
  });

  it("the per-file mean gives every file the same weight and leaves out files without a unit", () => {
    const rows = [
      w({ file: "a.json", task: "1", label: "authorized", polar: true, stat: false }),
      w({ file: "a.json", task: "1", args: { reservation_id: "R9" }, label: "authorized", polar: true, stat: false }),
      w({ file: "a.json", task: "1", args: { reservation_id: "R8" }, label: "authorized", polar: true, stat: false }),
      w({ file: "b.json", task: "2", label: "authorized", polar: false, stat: false }),
    ];
    expect(fileMean(rows, (r) => r.scopes.turn!.veto === "Vetoed")).toEqual({ mean: 0.5, files: 2 });
    expect(fileMean([], () => true)).toEqual({ mean: null, files: 0 });
  });
});

describe("static-escalate asks exactly as POLAR-escalate does", () => {
  const tables = decodeBlob(new Uint8Array(readFileSync(join(REPO_ROOT, "ontologies/airline/airline.blob"))));
  const table = staticTable(tables);
  const call = (name: string) => ({ name, arguments: { user_id: "u", amount: 100 } });
  const tau = 800_000;

  it("a tool the static table allows runs; a blocked one asks, and the user's consent approves it", () => {
    const allowed = [...table.values()].find((e) => !e.readOnly && !e.blocked)!;
    expect(staticEscalateRoute(allowed, call(allowed.tool), [], tau, tables)).toBe("Approved");
    const cert = staticEntry(table, "send_certificate");
    expect(cert.blocked).toBe(true);
    expect(staticEscalateRoute(cert, call("send_certificate"), ["Yes, please go ahead."], tau, tables)).toBe("ConsentApproved");
    expect(staticEscalateRoute(cert, call("send_certificate"), ["Yes.", "No, wait, don't do that."], tau, tables)).toBe("ConsentEscalated");
    expect(staticEscalateRoute(cert, call("send_certificate"), [], tau, tables)).toBe("ConsentEscalated");
  });

  it("an unknown tool is refused, never put to the user (as POLAR refuses it)", () => {
    const unknown = staticEntry(table, "drop_all_tables");
    expect(staticReason(unknown)).toBe("unknown_tool");
    expect(staticEscalateRoute(unknown, call("drop_all_tables"), ["Yes, go ahead."], tau, tables)).toBe("Vetoed");
  });

  it("gives the route the Escalate policy gives for the same reason and messages", () => {
    const cert = staticEntry(table, "send_certificate");
    expect(staticReason(cert)).toBe("external_side_effect");
    for (const msgs of [["ok, do it"], ["no"], ["what?", "sure, proceed"], []]) {
      const policy = escalatePolicy.decide({ call: call("send_certificate"), admissible: false, reason: "external_side_effect", verdict: null, tau, userMessages: msgs, consent: defaultConsentDetector, tables }).route;
      expect(staticEscalateRoute(cert, call("send_certificate"), msgs, tau, tables), msgs.join(" / ")).toBe(policy);
    }
  });
});

describe("dominance", () => {
  const c = (polar: number, baseline: number, n: number) => ({ polar, baseline, n });

  it("dominates: at least as good on both rates, strictly better on one", () => {
    expect(dominanceVerdict(c(5, 4, 10), c(2, 2, 10))).toBe("dominates");
    expect(dominanceVerdict(c(4, 4, 10), c(1, 2, 10))).toBe("dominates");
    expect(dominanceVerdict(c(5, 4, 10), c(1, 2, 10))).toBe("dominates");
  });

  it("ties are equal, not dominance; the reverse is dominated; opposite signs are a trade-off", () => {
    expect(dominanceVerdict(c(4, 4, 10), c(2, 2, 10))).toBe("equal");
    expect(dominanceVerdict(c(4, 5, 10), c(2, 2, 10))).toBe("dominated");
    expect(dominanceVerdict(c(4, 4, 10), c(3, 2, 10))).toBe("dominated");
    expect(dominanceVerdict(c(5, 4, 10), c(3, 2, 10))).toBe("trade-off");
    expect(dominanceVerdict(c(3, 4, 10), c(1, 2, 10))).toBe("trade-off");
  });

  it("a label without writes compares as equal on that side; no writes at all is no data", () => {
    expect(dominanceVerdict(c(0, 0, 0), c(1, 2, 10))).toBe("dominates");
    expect(dominanceVerdict(c(0, 0, 0), c(0, 0, 0))).toBe("no data");
  });

  const settings = { resamples: 400, seed: 6793 };
  // POLAR stops one more unauthorized write (task 1) and one fewer authorized (task 3) than static.
  const rows = [
    w({ task: "1", label: "unauthorized", polar: true, stat: false }),
    w({ task: "1", args: { reservation_id: "X" }, label: "unauthorized", polar: true, stat: true }),
    w({ task: "2", label: "unauthorized", polar: false, stat: false }),
    w({ task: "3", label: "authorized", polar: false, stat: true }),
    w({ task: "3", args: { reservation_id: "Y" }, label: "authorized", polar: true, stat: true }),
    w({ task: "4", label: "authorized", polar: false, stat: false }),
  ];

  it("pairs the writes: the difference, its interval over resampled tasks, and where the two disagree", () => {
    const e = comparePair(rows, "turn", "polar-veto", "static-table", settings);
    expect(e.verdict).toBe("dominates");
    expect(e.unauthorized).toMatchObject({ n: 3, polarHits: 2, baselineHits: 1 });
    expect(e.unauthorized.diff).toBeCloseTo(1 / 3, 12);
    expect(e.authorized.diff).toBeCloseTo(-1 / 3, 12);
    expect(e.unauthorized.lo!).toBeGreaterThanOrEqual(0);
    expect(e.unauthorized.lo!).toBeLessThanOrEqual(e.unauthorized.diff!);
    expect(e.unauthorized.hi!).toBeGreaterThanOrEqual(e.unauthorized.diff!);
    expect(e.authorized.hi!).toBeLessThanOrEqual(0);
    // Paired: no resample can make POLAR worse here, and some draw neither task 1 nor task 3.
    expect(e.resamplesDominating!).toBeGreaterThan(0.5);
    expect(e.resamplesDominating!).toBeLessThan(1);
    expect(e.discordant.map((d) => [d.tool, d.label, d.side, d.count])).toEqual([
      ["cancel_reservation", "authorized", "baseline-only", 1],
      ["cancel_reservation", "unauthorized", "polar-only", 1],
    ]);
    expect(e.discordant[1].why).toEqual(["bound_violated @a-1 ×1"]);
    expect(e.discordant[0].why).toEqual(["admitted φ 0.990 @a-1 ×1"]);
    // The same seed gives the same interval.
    expect(comparePair(rows, "turn", "polar-veto", "static-table", settings)).toEqual(e);
  });

  it("a policy against itself: difference 0 with interval [0, 0], equal", () => {
    const e = comparePair(rows, "turn", "static-table", "static-table", settings);
    expect(e.verdict).toBe("equal");
    expect([e.unauthorized.diff, e.unauthorized.lo, e.unauthorized.hi]).toEqual([0, 0, 0]);
    expect(e.resamplesDominating).toBe(0);
  });

  it("one entry per (domain and all, pair), deduplicated and over every call", () => {
    const more = [...rows, w({ domain: "retail", file: "r.json", task: "9", label: "authorized", polar: true, stat: true })];
    const entries = dominance(more, "turn", settings);
    expect(entries.map((e) => `${e.dedup ? "d" : "a"} ${e.domain} ${e.pair}`)).toEqual([
      "d all veto", "d all escalate", "d airline veto", "d airline escalate", "d retail veto", "d retail escalate",
      "a all veto", "a all escalate", "a airline veto", "a airline escalate", "a retail veto", "a retail escalate",
    ]);
    expect(entries.find((e) => e.domain === "retail" && e.pair === "veto")!.verdict).toBe("equal");
    expect(entries.find((e) => e.domain === "airline" && e.pair === "escalate")).toMatchObject({ polar: "polar-escalate", baseline: "static-escalate", verdict: "dominates" });
  });
});

describe("the domain of a file that does not say it", () => {
  function traj(taskId: string, tools: string[], gold: string[] = []): Trajectory {
    return {
      source: { file: "mystery.json", format: "standard", index: 0 },
      domain: null,
      model: null,
      agentImplementation: null,
      userModel: null,
      simulationId: null,
      taskId,
      task: gold.length === 0 ? null : { id: taskId, goldActions: gold.map((name) => ({ actionId: null, requestor: "assistant", name, arguments: {}, compareArgs: null })), initialState: null, raw: {} },
      trial: 0,
      reward: null,
      terminationReason: null,
      messages: [{ role: "assistant", turn: 0, content: null, toolCalls: tools.map((name, i) => ({ id: String(i), name, arguments: {}, requestor: "assistant" })) }],
    };
  }
  const domains: DomainEvidence[] = [
    { name: "airline", taskIds: new Set(["0", "1", "2"]), tools: new Set(["book_reservation", "cancel_reservation", "transfer_to_human_agents"]) },
    { name: "retail", taskIds: new Set(["0", "1", "2", "3"]), tools: new Set(["cancel_pending_order", "transfer_to_human_agents"]) },
    { name: "telecom", taskIds: new Set(["[mobile_data_issue]x"]), tools: new Set(["toggle_data", "transfer_to_human_agents"]) },
  ];

  it("from its tasks", () => {
    expect(inferDomain([traj("[mobile_data_issue]x", [])], domains)).toMatchObject({ domain: "telecom" });
    expect(inferDomain([traj("3", [])], domains)).toMatchObject({ domain: "retail" });
  });

  it("from the tools its runs call or its gold actions name", () => {
    const r = inferDomain([traj("0", ["cancel_reservation"]), traj("1", ["transfer_to_human_agents"])], domains);
    expect(r).toEqual({ domain: "airline", how: expect.stringContaining("fit airline") });
    expect(inferDomain([traj("1", [], ["cancel_pending_order"])], domains)).toMatchObject({ domain: "retail" });
  });

  it("a tool no domain has (a hallucinated name) does not rule the file's domain out", () => {
    const r = inferDomain([traj("1", ["cancel_reservation", "get_reservation_status"])], domains);
    expect(r).toEqual({ domain: "airline", how: "inferred: its task ids `1` fit airline, retail; its tools `cancel_reservation`, `get_reservation_status` fit airline (1 of 2 known)" });
    expect(inferDomain([traj("9", ["made_up"])], domains)).toEqual({ domain: null, reason: "no domain fits: its task ids `9` fit none; no domain has its tools `made_up`" });
  });

  it("skips an ambiguous file and says why", () => {
    const r = inferDomain([traj("0", ["transfer_to_human_agents"])], domains);
    expect(r.domain).toBeNull();
    expect((r as { reason: string }).reason).toBe(
      "ambiguous between airline, retail: its task ids `0` fit airline, retail; its tools `transfer_to_human_agents` fit airline, retail, telecom",
    );
  });

  it("skips a file no domain fits, and a file without simulations", () => {
    const r = inferDomain([traj("3", ["cancel_reservation"])], domains);
    expect(r).toMatchObject({ domain: null, reason: expect.stringMatching(/^no domain fits: its task ids `3` fit retail; its tools `cancel_reservation` fit airline$/) });
    expect(inferDomain([], domains)).toEqual({ domain: null, reason: "the file has no simulations" });
  });
});

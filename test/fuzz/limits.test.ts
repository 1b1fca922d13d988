// Every bound the guard relies on, with its default, and the typed refusal past it: compile limits
// (source size, tools, edges, bound program size, expression depth, strings, operands, diagnostics),
// verdict limits (sequence length maxDepth, combinations searched maxNodes, the input record's
// capacity), guard configuration, the guard's JSON copy of a call and the wasm memory bound
// (test/fuzz/guard-copy.test.ts, test/fuzz/core-memory.test.ts). docs/security.md lists them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuTime } from "../cpu-time.js";
import { MAX_CALLS, MAX_OPERANDS, MAX_PROGRAM_LEN } from "../../src/abi.js";
import { compile, DEFAULT_LIMITS, type CompileLimits } from "../../src/compiler/index.js";
import { createVerifier, VerifierError } from "../../src/core/verifier.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { decodeBlob } from "../../src/blob/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { createGuard, DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES, GuardError } from "../../src/guard/index.js";
import { airlineState } from "./targets/guard-args.js";

const blob = new Uint8Array(readFileSync(new URL("../../ontologies/airline/airline.blob", import.meta.url)));
const tables = decodeBlob(blob);

function codes(source: string | Uint8Array, limits: Partial<CompileLimits>): string[] {
  const r = compile(source, { limits });
  expect(r.ok).toBe(false);
  return r.diagnostics.map((d) => d.code);
}

const SMALL = "slot_definition(order, status, string).\ntool(cancel, acts_on = order, key = order_id).\ntool(reopen, acts_on = order, key = order_id).\n";

describe("compile limits", () => {
  it("have the documented defaults", () => {
    expect({ ...DEFAULT_LIMITS }).toEqual({
      sourceBytes: 4 * 1024 * 1024,
      tools: 20_000,
      edges: 100_000,
      programInstructions: MAX_PROGRAM_LEN,
      strings: 1_000_000,
      expressionDepth: 256,
      operandsPerTool: 256,
      diagnostics: 1000,
    });
  });

  it("source size: source-too-large, for text and for bytes, before anything is parsed", () => {
    expect(codes(SMALL, { sourceBytes: 20 })).toEqual(["source-too-large"]);
    expect(codes(new TextEncoder().encode(SMALL), { sourceBytes: 20 })).toEqual(["source-too-large"]);
    const big = "% ".padEnd(DEFAULT_LIMITS.sourceBytes + 1, "x");
    const { value, ms } = cpuTime(() => codes(big, {}));
    expect(value).toEqual(["source-too-large"]);
    expect(ms).toBeLessThan(1000);
  });

  it("tools: limit-exceeded", () => {
    expect(codes(SMALL, { tools: 1 })).toContain("limit-exceeded");
  });

  it("edges: limit-exceeded", () => {
    const src = SMALL + "inverse_of(cancel, reopen, order.status, 0.9).\ninverse_of(reopen, cancel, order.status, 0.9).\n";
    expect(compile(src).ok).toBe(true);
    expect(codes(src, { edges: 1 })).toContain("limit-exceeded");
  });

  it("bound program size: limit-exceeded, and the limit never exceeds the core's MAX_PROGRAM_LEN", () => {
    const src = SMALL.replace("tool(cancel", "slot_definition(order, total, number).\ntool(cancel") +
      "bounded_reversibility(cancel, order.total > 1 and order.total > 2 and order.total > 3, none, 0.9).\n";
    expect(compile(src).ok).toBe(true);
    expect(codes(src, { programInstructions: 4 })).toContain("limit-exceeded");
    const r = compile(SMALL, { limits: { programInstructions: MAX_PROGRAM_LEN * 10 } });
    expect(r.ok).toBe(true);
  });

  it("expression depth: a 100k-deep bound is refused without a stack overflow", () => {
    const deep = "(".repeat(100_000) + "order.status == \"x\"" + ")".repeat(100_000);
    const src = SMALL + `bounded_reversibility(cancel, ${deep}, none, 0.9).\n`;
    const got = codes(src, {});
    expect(got.length).toBeGreaterThan(0);
    expect(got).toContain("limit-exceeded");
  });

  it("strings: limit-exceeded", () => {
    expect(codes(SMALL, { strings: 2 })).toContain("limit-exceeded");
  });

  it("diagnostics: a source of garbage reports at most the cap, plus one summary", () => {
    const garbage = "x(.\n".repeat(5000);
    const r = compile(garbage, { limits: { diagnostics: 10 } });
    expect(r.diagnostics.length).toBeLessThanOrEqual(11);
    expect(r.diagnostics.filter((d) => d.code === "limit-exceeded").map((d) => d.message)).toEqual([expect.stringMatching(/more diagnostics not shown$/)]);
  });
});

describe("verdict limits", () => {
  const verifier = createVerifier(tables, createReferenceBackend(tables));
  const state = airlineState();
  const cancel = (id: string): ExecutedCall => ({ name: "cancel_reservation", arguments: { reservation_id: id } });
  const rebag: ExecutedCall = { name: "update_reservation_baggages", arguments: { reservation_id: "RES001", total_baggages: 1, nonfree_baggages: 0, payment_id: "credit_card_1" } };

  it("have the documented defaults", () => {
    expect([DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES, MAX_CALLS, MAX_OPERANDS]).toEqual([64, 100_000, 256, 4096]);
  });

  it("sequence length (maxDepth): more mutating calls than maxDepth is depth_exceeded", () => {
    expect(verifier.verdict([cancel("RES002"), rebag], state, { maxDepth: 2 }).reason).not.toBe("depth_exceeded");
    expect(verifier.verdict([cancel("RES002"), rebag], state, { maxDepth: 1 }).reason).toBe("depth_exceeded");
  });

  it("combinations searched (maxNodes): an exhausted budget is depth_exceeded with nodes = maxNodes", () => {
    // One bag change needs two nodes (the call and its self-inverse); RES002 cannot be cancelled at
    // all (not re-bookable: bound_violated before any search), so it is no test of the budget.
    const full = verifier.verdict([rebag], state);
    expect(full.reason).toBe("ok");
    expect(full.nodes).toBeGreaterThan(1);
    const v = verifier.verdict([rebag], state, { maxNodes: 1 });
    expect(v.reason).toBe("depth_exceeded");
    expect(v.nodes).toBe(1);
  });

  it("the input record's capacity: more than MAX_CALLS calls is depth_exceeded or a typed input-too-large", () => {
    const many = Array.from({ length: MAX_CALLS + 1 }, () => cancel("RES001"));
    expect(verifier.verdict(many, state).reason).toBe("depth_exceeded");
    const reads = Array.from({ length: MAX_CALLS + 1 }, () => ({ name: "get_reservation_details", arguments: { reservation_id: "RES001" } }));
    try {
      const v = verifier.verdict([...reads, cancel("RES001")], state, { maxDepth: MAX_CALLS });
      expect(v.reason).toBeDefined();
    } catch (e) {
      expect(e).toBeInstanceOf(VerifierError);
      expect((e as VerifierError).code).toBe("input-too-large");
    }
  });

  it("bad options are typed VerifierErrors", () => {
    for (const options of [{ maxDepth: MAX_CALLS + 1 }, { maxDepth: -1 }, { maxNodes: 1.5 }, { maxNodes: 2 ** 32 }]) {
      expect(() => verifier.verdict([rebag], state, options)).toThrow(VerifierError);
    }
  });
});

describe("guard configuration", () => {
  it("refuses bounds outside their range with invalid-config", () => {
    for (const config of [{ maxDepth: MAX_CALLS + 1 }, { maxDepth: -1 }, { maxNodes: -5 }, { maxNodes: 2 ** 32 }, { tau: 1.5 }]) {
      try {
        createGuard({ ontology: blob, state: airlineState(), config });
        throw new Error(`accepted ${JSON.stringify(config)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(GuardError);
        expect((e as GuardError).code).toBe("invalid-config");
      }
    }
  });

  it("a guard with maxDepth 1 vetoes a second mutating call of a turn with depth_exceeded", () => {
    const g = createGuard({ ontology: blob, state: airlineState(), policy: "veto", config: { maxDepth: 1 } });
    const rebag = { name: "update_reservation_baggages", arguments: { reservation_id: "RES001", total_baggages: 1, nonfree_baggages: 0, payment_id: "credit_card_1" } };
    const d = g.check(rebag, { turnCalls: [{ name: "cancel_reservation", arguments: { reservation_id: "RES002" } }] });
    expect(d).toMatchObject({ approved: false, route: "Vetoed", reason: "depth_exceeded" });
  });
});

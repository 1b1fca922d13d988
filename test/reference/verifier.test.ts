// The verifier around a backend: typed errors, defaults, the read set, the depth shortcut beyond the
// record's capacity, the explanation text and the CLI.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INPUT_SIZE, MAX_CALLS, OUTPUT_SIZE, OUT_STATUS, Status } from "../../src/abi.js";
import { runVerdict } from "../../src/cli/commands/verdict.js";
import { compile } from "../../src/compiler/index.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { explainVerdict, fixedToDecimal } from "../../src/core/explain.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier, JsonState, VerifierError, type ReadCollector } from "../../src/core/verifier.js";
import { createReferenceBackend } from "../../src/reference/index.js";

const SOURCE = `
slot_definition(order, status, string).
slot_definition(order, placed_at, datetime).
tool(set_note, acts_on = order, key = order_id).
tool(reschedule, acts_on = order, key = order_id).
read_only(get_order).
bounded_reversibility(set_note, order.status != "cancelled", none, 0.9, id = "note",
    args = { order_id: call.order_id }).
bounded_reversibility(reschedule, now < order.placed_at, none, 0.95, id = "reschedule").
`;

function setup() {
  const r = compile(SOURCE, { name: "unit.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  const verifier = createVerifier(r.tables, createReferenceBackend(r.tables));
  return { tables: r.tables, verifier, source: SOURCE };
}

const STATE = new JsonState({ entities: { order: { o1: { status: "open", placed_at: "2024-05-16T00:00:00" }, o2: { status: "cancelled" } } } });
const note = (id: unknown): ExecutedCall => ({ name: "set_note", arguments: { order_id: id } });

function errorOf(f: () => unknown): VerifierError {
  try {
    f();
  } catch (e) {
    if (e instanceof VerifierError) return e;
    throw e;
  }
  throw new Error("no error thrown");
}

describe("verifier", () => {
  it("answers with names, annotation ids, spans and arguments", () => {
    const { verifier } = setup();
    const v = verifier.verdict([note("o1")], STATE);
    expect(v.reason).toBe("ok");
    expect(v.phi).toBe(900_000);
    expect(v.steps[0]).toMatchObject({ call: 0, forwardTool: "set_note", tool: "set_note", annotation: "note", tier: "T2", arguments: { order_id: "o1" }, line: 7 });
    expect(v.bottleneck).toMatchObject({ call: 0, tool: "set_note", annotation: "note", line: 7 });
  });

  it("reports every Layer B read to the collector", () => {
    const { verifier } = setup();
    const reads: [string, string, string | null, unknown][] = [];
    const collector: ReadCollector = { read: (e, id, s, v) => reads.push([e, id, s, v]) };
    verifier.verdict([{ name: "get_order", arguments: { order_id: "o1" } }, note("o2")], STATE, {}, collector);
    expect(reads).toEqual([
      ["order", "o2", null, true],
      ["order", "o2", "status", "cancelled"],
    ]);
  });

  it("defaults now to the epoch and takes it from options", () => {
    const { verifier } = setup();
    const call = { name: "reschedule", arguments: { order_id: "o1" } };
    expect(verifier.verdict([call], STATE).reason).toBe("ok");
    expect(verifier.verdict([call], STATE, { now: "2024-05-17T00:00:00" }).reason).toBe("bound_violated");
    const late = setup().tables;
    const withDefault = createVerifier(late, createReferenceBackend(late), { now: "2024-05-17T00:00:00" });
    expect(withDefault.verdict([call], STATE).reason).toBe("bound_violated");
  });

  it("throws typed errors for malformed calls and options", () => {
    const { verifier } = setup();
    expect(errorOf(() => verifier.verdict([{ name: 3 } as never], STATE)).code).toBe("malformed-call");
    expect(errorOf(() => verifier.verdict([{ name: "set_note", arguments: [] } as never], STATE)).code).toBe("malformed-call");
    expect(errorOf(() => verifier.verdict([{ name: "set_note", arguments: new Map() } as never], STATE)).code).toBe("malformed-call");
    expect(errorOf(() => verifier.verdict([], STATE)).code).toBe("malformed-call");
    expect(errorOf(() => verifier.verdict([note("o1")], STATE, { tau: 1.5 })).code).toBe("bad-option");
    expect(errorOf(() => verifier.verdict([note("o1")], STATE, { now: "never" })).code).toBe("bad-option");
    expect(errorOf(() => verifier.verdict([note("o1")], STATE, { maxDepth: MAX_CALLS + 1 })).code).toBe("bad-option");
    const e = errorOf(() => verifier.verdict([{ name: 3 } as never], STATE));
    expect(e.message).toMatch(/^[a-z].*[^.]$/);
  });

  it("turns a backend status into an internal-error", () => {
    const { tables } = setup();
    const output = new DataView(new ArrayBuffer(OUTPUT_SIZE));
    output.setInt32(OUT_STATUS, Status.Internal, true);
    const broken: SearchBackend = { kind: "wasm", inputView: () => new DataView(new ArrayBuffer(INPUT_SIZE)), run: () => output };
    expect(errorOf(() => createVerifier(tables, broken).verdict([note("o1")], STATE)).code).toBe("internal-error");
    // A trap is the backend's own typed error and passes through unchanged.
    const trap = new Error("the core trapped");
    const trapping: SearchBackend = { ...broken, run: () => { throw trap; } };
    expect(() => createVerifier(tables, trapping).verdict([note("o1")], STATE)).toThrow(trap);
  });

  it("answers depth_exceeded without the backend beyond the record's capacity", () => {
    const { verifier } = setup();
    const calls = Array.from({ length: MAX_CALLS + 5 }, () => note("o1"));
    const v = verifier.verdict(calls, STATE);
    expect(v.reason).toBe("depth_exceeded");
    expect(v.bottleneck.call).toBe(-1);
    // The same bytes the search writes for a sequence just past the depth bound.
    const short = verifier.verdict(calls.slice(0, 65), STATE);
    expect(short.reason).toBe("depth_exceeded");
    expect(Buffer.from(v.bytes).equals(Buffer.from(short.bytes))).toBe(true);
  });

  it("describes tools", () => {
    const { verifier } = setup();
    expect(verifier.tool("set_note")).toEqual({ known: true, readOnly: false, actsOn: "order", keyArg: "order_id", keyConst: null, creates: null });
    expect(verifier.tool("get_order").readOnly).toBe(true);
    expect(verifier.tool("nope").known).toBe(false);
  });
});

describe("JsonState", () => {
  it("reads own properties only", () => {
    const s = new JsonState({ now: "2024-01-01", entities: { order: { o1: { status: "open" } } } });
    expect(s.now).toBe("2024-01-01");
    expect(s.hasEntity("order", "o1")).toBe(true);
    expect(s.hasEntity("order", "constructor")).toBe(false);
    expect(s.hasEntity("order", "toString")).toBe(false);
    expect(s.slot("order", "o1", "status")).toBe("open");
    expect(s.slot("order", "o1", "__proto__")).toBeUndefined();
    expect(() => new JsonState(null)).toThrow(/expected an object with `entities`/u);
  });
});

describe("explanation", () => {
  it("prints fixed point as decimals", () => {
    expect(fixedToDecimal(855_000)).toBe("0.855");
    expect(fixedToDecimal(1_000_000)).toBe("1");
    expect(fixedToDecimal(0)).toBe("0");
    expect(fixedToDecimal(1)).toBe("0.000001");
    expect(fixedToDecimal(-500_000)).toBe("-0.5");
  });

  it("shows the sequence, the score and the bottleneck's source line", () => {
    const { verifier, source } = setup();
    const ok = explainVerdict(verifier.verdict([note("o1")], STATE), source);
    expect(ok).toContain("φ = 0.9");
    expect(ok).toContain('set_note({"order_id":"o1"})');
    expect(ok).toContain("annotation note at line 7:1");
    expect(ok).toContain('7 | bounded_reversibility(set_note, order.status != "cancelled", none, 0.9, id = "note",');
    const bad = explainVerdict(verifier.verdict([note("o2")], STATE), source);
    expect(bad).toMatch(/^verdict: bound_violated/);
    expect(bad).toContain("no complete inverse sequence");
  });
});

describe("polar verdict", () => {
  const dir = mkdtempSync(join(tmpdir(), "polar-verdict-"));
  const file = (name: string, body: string) => {
    const p = join(dir, name);
    writeFileSync(p, body);
    return p;
  };
  const ontology = file("unit.polar", SOURCE);
  const state = file("state.json", JSON.stringify({ now: "2024-05-15T15:00:00", entities: { order: { o1: { status: "open", placed_at: "2024-05-16T00:00:00" } } } }));
  const call = file("call.json", JSON.stringify({ name: "reschedule", arguments: { order_id: "o1" } }));
  const earlier = file("earlier.json", JSON.stringify([{ name: "set_note", arguments: { order_id: "o1" }, result: {}, before: { status: "open" } }]));

  it("explains a verdict with both backends alike", () => {
    const text = runVerdict({ ontology, state, call, earlier, backend: "reference" });
    expect(text).toContain("verdict: ok");
    expect(text).toContain("φ = 0.9,");
    expect(runVerdict({ ontology, state, call, earlier, backend: "wasm" })).toBe(text);
  });

  it("prints the Verdict as JSON with hex bytes, honouring --now and --tau", () => {
    const json = JSON.parse(runVerdict({ ontology, state, call, json: true, now: "2024-05-17T00:00:00" }));
    expect(json.reason).toBe("bound_violated");
    expect(json.bytes).toMatch(/^[0-9a-f]+$/);
    expect(JSON.parse(runVerdict({ ontology, state, call, json: true, tau: "0.96" })).reason).toBe("below_threshold");
  });

  it("refuses bad options and files with typed errors", () => {
    expect(() => runVerdict({ ontology, state })).toThrow(/required/);
    expect(() => runVerdict({ ontology, state, call, tiers: "T9" })).toThrow(/unknown tier `T9`/);
    expect(() => runVerdict({ ontology, state, call, backend: "gpu" })).toThrow(/unknown backend/);
    expect(() => runVerdict({ ontology, state: file("bad.json", "{"), call })).toThrow(/is not JSON/);
    expect(() => runVerdict({ ontology: join(dir, "missing.polar"), state, call })).toThrow(/cannot read/);
  });
});

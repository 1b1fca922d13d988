// The loader's checks at their edges: the last valid value of each bound is accepted and the first
// invalid one refused; index 0 of every table is a valid index like any other; every string index names
// the field it was read for and its byte offset; sections shorter than their own head; and what a valid
// blob's tables hold (meta entries as ordinary data). Each case is one small blob.
import { describe, expect, it } from "vitest";
import {
  BLOB_HEADER_SIZE,
  EDGE_ARGMAP,
  EDGE_SIZE,
  FIXED_ONE,
  HDR_TOTAL_LEN,
  MAX_OPERANDS,
  OPERAND_SIZE,
  OperandKind,
  SECTION_ENTRY_SIZE,
  Section,
  SlotType,
  Tier,
  TOOL_KEY_ARG,
  TOOL_KEY_CONST,
  TOOL_NEW_KEY,
  TOOL_OPERAND_COUNT,
  TOOL_SIZE,
  TOOL_TARGET,
  ValueTag,
} from "../../src/abi.js";
import { BlobError, decodeBlob, encodeBlob, safeDecodeBlob, type BlobErrorCode } from "../../src/blob/index.js";
import { sealBlob } from "../../src/blob/encode.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { canonical, edgeById as edge, sectionOf, tierScore, toolIndex, viewOf } from "./builder.js";

const SAMPLE = encodeBlob(canonical());
const STRINGS = canonical().strings.length;
const BIG = 1_000_000;

/** Edits the tables, recomputes every edge's stored φ and loss weight, encodes without validation. */
function fromTables(mutate: (t: OntologyTables) => void): Uint8Array {
  const t = canonical();
  mutate(t);
  for (const e of t.edges) {
    const s = tierScore(e.tier, e.weight, e.lossClass >= 0 ? t.lossClasses[e.lossClass].weight : 0);
    e.phi = s.phi;
    e.lossWeight = s.loss;
  }
  return encodeBlob(t, { validate: false });
}

/** The sample's bytes edited in place, the digest resealed. */
function patched(mutate: (v: DataView, b: Uint8Array) => void): Uint8Array {
  const b = SAMPLE.slice();
  mutate(viewOf(b), b);
  return sealBlob(b);
}

/** The sample with one section's bytes replaced: the sections after it are laid out again. */
function relaid(id: Section, body: (old: Uint8Array) => Uint8Array): Uint8Array {
  const bodies = Array.from({ length: 14 }, (_, i) => {
    const s = sectionOf(SAMPLE, i + 1);
    const old = SAMPLE.slice(s.offset, s.offset + s.length);
    return i + 1 === id ? body(old) : old;
  });
  const first = sectionOf(SAMPLE, 1).offset;
  const align = (n: number) => Math.ceil(n / 8) * 8;
  let total = first;
  for (const b of bodies) total = align(total + b.length);
  const out = new Uint8Array(total);
  out.set(SAMPLE.subarray(0, first));
  const v = viewOf(out);
  let cursor = first;
  bodies.forEach((b, i) => {
    out.set(b, cursor);
    v.setUint32(BLOB_HEADER_SIZE + i * SECTION_ENTRY_SIZE + 4, cursor, true);
    v.setUint32(BLOB_HEADER_SIZE + i * SECTION_ENTRY_SIZE + 8, b.length, true);
    cursor = align(cursor + b.length);
  });
  v.setUint32(HDR_TOTAL_LEN, total, true);
  return sealBlob(out);
}

function refusal(bytes: Uint8Array): { code: BlobErrorCode; message: string; offset: number | undefined } {
  const r = safeDecodeBlob(bytes);
  if (r.ok) throw new Error("the blob was accepted");
  expect(r.error).toBeInstanceOf(BlobError);
  return { code: r.error.code, message: r.error.message, offset: r.error.offset };
}
const accepted = (bytes: Uint8Array) => {
  const r = safeDecodeBlob(bytes);
  if (!r.ok) throw new Error(`refused: ${r.error.code}: ${r.error.message}`);
  return r.tables;
};
const at = (id: Section, plus = 0) => sectionOf(SAMPLE, id).offset + plus;

describe("every string index names its field and where it was read", () => {
  const tool1 = at(Section.Tools, TOOL_SIZE);
  const cases: [string, number, string][] = [
    ["slot name", at(Section.Slots), "slot 0 name string"],
    ["loss class name", at(Section.LossClasses), "loss class 0 name string"],
    ["sink name", at(Section.Sinks), "sink 0 name string"],
    ["tool key argument", tool1 + TOOL_KEY_ARG, "tool `book_reservation` key argument string"],
    ["tool new key", tool1 + TOOL_NEW_KEY, "tool `book_reservation` new key string"],
    ["tool constant key", tool1 + TOOL_KEY_CONST, "tool `book_reservation` constant key string"],
    ["argument map parameter", at(Section.ArgMaps, 4 * 8), "argument map 0 parameter string"],
    ["argument map reference", at(Section.ArgMaps, 4 * 8 + 8), "argument map 0 reference string"],
    ["source name", at(Section.Meta), "source name string"],
    ["meta key", at(Section.Meta, 8), "meta entry 0 key string"],
  ];
  it.each(cases)("%s", (_what, offset, field) => {
    expect(refusal(patched((v) => v.setUint32(offset, BIG, true)))).toEqual({ code: "index-out-of-range", message: `${field} is ${BIG}, out of range (${STRINGS} available)`, offset });
  });

  it("an entity index names its field too", () => {
    const offset = at(Section.Tools, TOOL_SIZE + TOOL_TARGET);
    expect(refusal(patched((v) => v.setInt32(offset, 7, true)))).toEqual({ code: "index-out-of-range", message: "tool `book_reservation` target entity is 7, out of range (2 available)", offset });
  });

  it("an edge's argument map index below -1 is out of range", () => {
    const offset = at(Section.Edges, EDGE_ARGMAP);
    // Edge 0 had map 0: -2 still counts as an edge with a map, so there are 4.
    expect(refusal(patched((v) => v.setInt32(offset, -2, true)))).toEqual({ code: "index-out-of-range", message: "edge 0 argument map is -2, out of range (4 available)", offset });
  });
});

describe("bounds: the last valid value and the first invalid one", () => {
  it("an index equal to the count is out of range", () => {
    expect(refusal(fromTables((t) => (t.slots[0].entity = t.entities.length))).message).toBe("slot 0 entity is 2, out of range (2 available)");
  });

  it("a tool may have exactly MAX_OPERANDS operands", () => {
    const many = (n: number) => fromTables((t) => {
      t.tools[toolIndex(t, "send_email")].operands = Array.from({ length: n }, () => ({ kind: OperandKind.SlotValue, slot: 0, path: null, type: SlotType.String }));
    });
    expect(accepted(many(MAX_OPERANDS)).tools[toolIndex(canonical(), "send_email")].operands).toHaveLength(MAX_OPERANDS);
    expect(refusal(many(MAX_OPERANDS + 1)).code).toBe("bad-tool");
  });

  it("a tool's operand range one past the end, from a start inside it, is out of range", () => {
    // send_email (tool 4) starts at 5, the end of the 5 operands, with none.
    const offset = at(Section.Tools, 4 * TOOL_SIZE + TOOL_OPERAND_COUNT);
    expect(refusal(patched((v) => v.setUint32(offset, 1, true)))).toMatchObject({ code: "index-out-of-range", message: "tool `send_email` operands 5..6 run past the 5 operands" });
  });

  it("operands no tool uses are refused", () => {
    const extra = relaid(Section.Operands, (old) => {
      const b = new Uint8Array(old.length + OPERAND_SIZE);
      b.set(old);
      b.set(old.subarray(0, OPERAND_SIZE), old.length);
      return b;
    });
    expect(refusal(extra)).toMatchObject({ code: "bad-tool", message: "tools use 5 operands but the section holds 6" });
  });

  it("a program's code one past the end, from a start inside it, is out of range; unused code words are refused", () => {
    const t = canonical();
    t.programs.push({ code: [t.programs[0].code[3]], maxStack: 1 });
    const b = encodeBlob(t);
    const code = t.programs[0].code.length;
    viewOf(b).setUint32(sectionOf(b, Section.Programs).offset + 12 + 4, 2, true);
    expect(refusal(sealBlob(b))).toMatchObject({ code: "index-out-of-range", message: `program 1 code ${code}..${code + 2} runs past the ${code + 1} instructions` });
    const unused = relaid(Section.Code, (old) => {
      const w = new Uint8Array(old.length + 4);
      w.set(old);
      return w;
    });
    expect(refusal(unused)).toMatchObject({ code: "bad-program", message: `code section holds ${code + 1} instructions, programs use ${code}` });
  });

  it("Bool constants are 0 or 1; string constants index the pool, from 0 to its last string", () => {
    expect(accepted(fromTables((t) => (t.constants[2] = { tag: ValueTag.Bool, value: 0n }))).constants[2]).toEqual({ tag: ValueTag.Bool, value: 0n });
    expect(accepted(fromTables((t) => (t.constants[0] = { tag: ValueTag.String, value: BigInt(t.strings.length - 1) }))).constants[0].value).toBe(BigInt(STRINGS - 1));
    for (const value of [-1n, BigInt(STRINGS)]) {
      expect(refusal(fromTables((t) => (t.constants[0] = { tag: ValueTag.String, value }))).message).toBe(`constant 0 string is ${value}, out of range (${STRINGS} available)`);
    }
  });

  it("a one-character span is a forward range", () => {
    expect(accepted(fromTables((t) => (t.edges[0].span = { line: 5, col: 3, endLine: 5, endCol: 3 }))).edges[0].span).toEqual({ line: 5, col: 3, endLine: 5, endCol: 3 });
  });

  it("names up to 40 characters are quoted whole, longer ones cut", () => {
    const dup = (name: string) => refusal(fromTables((t) => { t.tools[1].name = name; t.tools[2].name = name; })).message;
    const forty = "a".repeat(40);
    expect(dup(forty)).toBe(`tool \`${forty}\` is defined twice`);
    expect(dup(`${forty}bc`)).toBe(`tool \`${forty}…\` is defined twice`);
  });

  it("meta keys strictly ascend: the same key twice is refused", () => {
    const meta = at(Section.Meta);
    expect(refusal(patched((v) => v.setUint32(meta + 16, v.getUint32(meta + 8, true), true)))).toMatchObject({ code: "bad-meta" });
  });
});

describe("index 0 is an index like any other", () => {
  it("a tool that creates entity 0, or acts on it with a constant key", () => {
    const t = accepted(fromTables((x) => {
      // cancel_reservation acts on entity 1; creating entity 0, that is what its inverse restores.
      const cancel = x.tools[toolIndex(x, "cancel_reservation")];
      cancel.creates = 0;
      cancel.target = 0;
      const pay = x.tools[toolIndex(x, "pay")];
      pay.actsOn = 0;
      pay.target = 0;
      pay.keyArg = null;
      pay.keyConst = "the-user";
    }));
    expect(t.tools[toolIndex(t, "cancel_reservation")]).toMatchObject({ actsOn: 1, creates: 0, target: 0 });
    expect(t.tools[toolIndex(t, "pay")]).toMatchObject({ actsOn: 0, keyArg: null, keyConst: "the-user" });
  });

  it("a positive edge may undo with tool 0; a fail-closed edge names no inverse, not even tool 0", () => {
    expect(accepted(fromTables((t) => (edge(t, "t1.pay.self").inverse = 0))).edges.find((e) => e.id === "t1.pay.self")?.inverse).toBe(0);
    expect(refusal(fromTables((t) => (edge(t, "t4.delete").inverse = 0))).code).toBe("bad-tier-fields");
  });

  it("loss class 0 is a loss class: a T3 edge may pay it, and its weight counts", () => {
    const e = accepted(fromTables((t) => {
      t.lossClasses[0].weight = 100_000;
      edge(t, "t3.odd").lossClass = 0;
    })).edges.find((x) => x.id === "t3.odd")!;
    // floor(0.777777 × 0.9) in fixed point.
    expect(e).toMatchObject({ lossClass: 0, lossWeight: 100_000, phi: 699_999 });
  });

  it("a fail-closed edge with the first argument map is refused", () => {
    const bytes = fromTables((t) => {
      for (const e of t.edges) e.argMap = null;
      edge(t, "t4.delete").argMap = [];
    });
    expect(refusal(bytes)).toMatchObject({ code: "bad-tier-fields", message: expect.stringContaining("a fail-closed edge has no inverse arguments") });
  });
});

describe("tier fields and scores", () => {
  it("a T5 edge pays no loss class and a T3 edge reads a slot", () => {
    expect(refusal(fromTables((t) => (edge(t, "t5.email").lossClass = 1))).message).toContain("has no loss class");
    expect(refusal(fromTables((t) => (edge(t, "t3.odd").slot = -1))).message).toContain("needs a slot");
  });

  it("a T2 edge with a weighted loss class keeps its weight as φ and adds the loss", () => {
    const e = accepted(fromTables((t) => (edge(t, "t2.update").lossClass = 1))).edges.find((x) => x.id === "t2.update")!;
    expect(e).toMatchObject({ tier: Tier.T2, phi: 990_000, lossWeight: 100_000 });
  });

  it("edge offsets never go down", () => {
    const bytes = fromTables((t) => (t.edgeOffsets[3] = 0));
    expect(refusal(bytes)).toMatchObject({ code: "bad-csr", message: "edge offset of tool 3 is 0, below the previous 1" });
  });
});

describe("argument maps", () => {
  it("an odd number of maps, all empty, fills the section with records alone", () => {
    const t = accepted(fromTables((x) => {
      for (const e of x.edges) e.argMap = null;
      for (const id of ["t1.book.cancel", "t3.cancel.book", "t2.update"]) edge(x, id).argMap = [];
    }));
    expect(t.edges.filter((e) => e.argMap !== null).map((e) => e.argMap)).toEqual([[], [], []]);
  });

  it("a map running one past the entries from a start inside them, and entries no map uses, are refused", () => {
    const am = at(Section.ArgMaps);
    // Map 3 (t2.update.always) is empty and starts at the end of the 8 entries.
    expect(refusal(patched((v) => v.setUint32(am + 3 * 8 + 4, 1, true)))).toMatchObject({ code: "index-out-of-range", message: "argument map 3 entries 8..9 run past the 8 entries" });
    const shorter = patched((v) => {
      v.setUint32(am + 2 * 8 + 4, v.getUint32(am + 2 * 8 + 4, true) - 1, true);
      v.setUint32(am + 3 * 8, 7, true);
    });
    expect(refusal(shorter)).toMatchObject({ code: "bad-argmap", message: "argument maps use 7 entries, the section holds 8" });
  });
});

describe("sections shorter than their own head", () => {
  it("a string pool without its count, without its offsets, or with zero strings", () => {
    expect(refusal(relaid(Section.Strings, () => new Uint8Array(0)))).toMatchObject({ code: "bad-string-pool", message: "string pool is shorter than its count field" });
    expect(refusal(relaid(Section.Strings, () => new Uint8Array(4)))).toMatchObject({ code: "bad-string-pool", message: "string pool declares 0 strings but holds only 4 bytes" });
    // Count 0 and one offset: a valid empty pool, so the first name is what is refused.
    expect(refusal(relaid(Section.Strings, () => new Uint8Array(8)))).toMatchObject({ code: "index-out-of-range", message: "compiler version string is 1, out of range (0 available)" });
  });

  it("a meta section without its head, or with no entries", () => {
    expect(refusal(relaid(Section.Meta, () => new Uint8Array(4)))).toMatchObject({ code: "bad-record-size", message: "meta section is 4 bytes, shorter than its 8-byte head" });
    expect(accepted(fromTables((t) => (t.meta = {}))).meta).toEqual({});
  });

  it("an argument maps section one entry short of its records", () => {
    const bytes = relaid(Section.ArgMaps, () => new Uint8Array(4 * 8 - 16));
    expect(refusal(bytes)).toMatchObject({ code: "bad-record-size", message: "argument maps section is 16 bytes, not 4 records and whole entries" });
  });
});

describe("string pool offsets", () => {
  const pool = at(Section.Strings);
  const area = (v: DataView) => v.getUint32(pool + 4 + 4 * STRINGS, true);

  it("a string ending past the area is refused where it is read", () => {
    const r = refusal(patched((v) => v.setUint32(pool + 8, area(v) + 10, true)));
    expect(r).toMatchObject({ code: "bad-string-pool", offset: pool + 8 });
    expect(r.message).toMatch(/^string 0 ends at \d+: offsets must rise within the \d+-byte area$/u);
  });

  it("invalid UTF-8 is refused at the string's first byte", () => {
    const v = viewOf(SAMPLE);
    const byteArea = pool + 4 + 4 * (STRINGS + 1);
    const j = 5;
    const start = v.getUint32(pool + 4 + 4 * j, true);
    expect(start).toBeGreaterThan(0);
    expect(refusal(patched((_, b) => (b[byteArea + start] = 0xff)))).toEqual({ code: "bad-string-pool", message: `string ${j} is not valid UTF-8`, offset: byteArea + start });
  });

  it("bytes after the last string are refused", () => {
    const end = area(viewOf(SAMPLE));
    const r = refusal(relaid(Section.Strings, (old) => {
      const b = new Uint8Array(old.length + 1);
      b.set(old);
      b[old.length] = 0x20;
      return b;
    }));
    expect(r).toEqual({ code: "bad-string-pool", message: `string pool's last offset is ${end}, its byte area is ${end + 1} bytes`, offset: pool + 4 + 4 * STRINGS });
  });
});

describe("what a valid blob's tables hold", () => {
  it("meta entries are ordinary data: enumerable, writable, configurable", () => {
    const meta = decodeBlob(SAMPLE).meta;
    for (const k of Object.keys(meta)) {
      expect(Object.getOwnPropertyDescriptor(meta, k)).toEqual({ value: meta[k], enumerable: true, writable: true, configurable: true });
    }
  });

  it("the sample's edges keep their argument maps in edge order", () => {
    const t = decodeBlob(SAMPLE);
    expect(t.edges.map((e) => e.argMap?.length ?? null)).toEqual(canonical().edges.map((e) => e.argMap?.length ?? null));
    expect(EDGE_SIZE * t.edges.length).toBe(sectionOf(SAMPLE, Section.Edges).length);
    expect(FIXED_ONE).toBe(1_000_000);
  });
});

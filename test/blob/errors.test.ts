// One targeted corruption per refusal the loader makes. Structural corruptions are made either through
// the tables (encoded without validation, so the digest is right) or by patching bytes and resealing the
// digest, so the check under test, not the digest, is what fires.
import { describe, expect, it } from "vitest";
import {
  ABI_VERSION,
  ArgSource,
  BLOB_FORMAT_VERSION,
  BLOB_HEADER_SIZE,
  EDGE_ARGMAP,
  EDGE_PAD,
  EDGE_SIZE,
  FIXED_ONE,
  HDR_FLAGS,
  Identity,
  Lifecycle,
  HDR_COMPILER_VERSION,
  HDR_SECTION_COUNT,
  HDR_TOTAL_LEN,
  MAX_OPERANDS,
  OPERAND_KEY,
  OPERAND_KIND,
  OPERAND_SIZE,
  MAX_PROGRAM_LEN,
  MAX_STACK,
  Op,
  OperandKind,
  SECTION_ENTRY_SIZE,
  Section,
  SlotType,
  Tier,
  TOOL_FLAGS,
  TOOL_OPERAND_START,
  TOOL_KEY_CONST,
  TOOL_SIZE,
  ValueTag,
} from "../../src/abi.js";
import { BlobError, decodeBlob, encodeBlob, safeDecodeBlob, type BlobErrorCode } from "../../src/blob/index.js";
import { sealBlob } from "../../src/blob/encode.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { canonical, edgeById as edge, ins, sectionOf, toolIndex, viewOf } from "./builder.js";


/** Tables edited, then encoded without the encoder's own validation. */
function fromTables(mutate: (t: OntologyTables) => void): Uint8Array {
  const t = canonical();
  mutate(t);
  return encodeBlob(t, { validate: false });
}

/** The sample's bytes edited in place, then the digest recomputed. */
function patched(mutate: (b: Uint8Array, v: DataView) => void, reseal = true): Uint8Array {
  const b = encodeBlob(canonical());
  mutate(b, viewOf(b));
  return reseal ? sealBlob(b) : b;
}

function refused(bytes: Uint8Array, code: BlobErrorCode): BlobError {
  const r = safeDecodeBlob(bytes);
  if (r.ok) throw new Error(`expected ${code}, the blob was accepted`);
  expect(r.error).toBeInstanceOf(BlobError);
  expect({ code: r.error.code, message: r.error.message }).toMatchObject({ code });
  // Message style: one line, lower-case start, no final period.
  expect(r.error.message).toMatch(/^[a-z`]/);
  expect(r.error.message).not.toMatch(/[.\n]$/);
  expect(() => decodeBlob(bytes)).toThrow(BlobError);
  // The whole error as the user sees it (message, byte offset, help), reviewed in __snapshots__/.
  expect({ code: r.error.code, message: r.error.message, offset: r.error.offset, help: r.error.help }).toMatchSnapshot();
  return r.error;
}

describe("the sample blob", () => {
  it("is accepted", () => {
    expect(safeDecodeBlob(encodeBlob(canonical())).ok).toBe(true);
  });
});

describe("header", () => {
  it("blob-truncated: shorter than a header", () => {
    refused(encodeBlob(canonical()).slice(0, 40), "blob-truncated");
    refused(new Uint8Array(0), "blob-truncated");
  });
  it("blob-truncated: shorter than the header says", () => {
    const b = encodeBlob(canonical());
    const e = refused(b.slice(0, b.length - 8), "blob-truncated");
    expect(e.offset).toBe(b.length - 8);
  });
  it("bad-magic", () => {
    refused(patched((b) => (b[0] ^= 0x20), false), "bad-magic");
    refused(new TextEncoder().encode("{\"not\": \"a blob\"}"), "bad-magic");
  });
  it("abi-version-mismatch", () => {
    const e = refused(patched((_, v) => v.setUint16(4, ABI_VERSION + 1, true), false), "abi-version-mismatch");
    expect(e.help).toMatch(/recompile/);
  });
  it("format-version-mismatch", () => {
    refused(patched((_, v) => v.setUint16(6, BLOB_FORMAT_VERSION + 1, true), false), "format-version-mismatch");
  });
  it("length-mismatch: trailing bytes", () => {
    const b = encodeBlob(canonical());
    const longer = new Uint8Array(b.length + 8);
    longer.set(b);
    refused(longer, "length-mismatch");
  });
  it("length-mismatch: the header claims bytes after the last section", () => {
    const b = encodeBlob(canonical());
    const longer = new Uint8Array(b.length + 8);
    longer.set(b);
    viewOf(longer).setUint32(HDR_TOTAL_LEN, longer.length, true);
    refused(sealBlob(longer), "length-mismatch");
  });
  it("digest-mismatch: any edit without resealing", () => {
    const e = refused(patched((b) => (b[b.length - 20] ^= 1), false), "digest-mismatch");
    expect(e.help).toBeDefined();
  });
  it("digest-mismatch is skipped with verifyDigest false", () => {
    const b = patched((x) => (x[60] ^= 0xff), false); // inside the stored digest
    expect(safeDecodeBlob(b).ok).toBe(false);
    expect(safeDecodeBlob(b, { verifyDigest: false }).ok).toBe(true);
  });
  it("bad-reserved: header flags and reserved bytes", () => {
    refused(patched((_, v) => v.setUint32(HDR_FLAGS, 1, true)), "bad-reserved");
    refused(patched((b) => (b[93] = 7)), "bad-reserved");
  });
});

describe("section table", () => {
  const entry = (id: number) => BLOB_HEADER_SIZE + (id - 1) * SECTION_ENTRY_SIZE;
  it("bad-section-table: wrong section count", () => {
    refused(patched((_, v) => v.setUint32(HDR_SECTION_COUNT, 13, true)), "bad-section-table");
  });
  it("bad-section-table: unknown, duplicate and out-of-order ids", () => {
    refused(patched((_, v) => v.setUint32(entry(3), 99, true)), "bad-section-table");
    refused(patched((_, v) => v.setUint32(entry(3), 2, true)), "bad-section-table");
    refused(patched((_, v) => v.setUint32(entry(3), 4, true)), "bad-section-table");
  });
  it("bad-section-table: unaligned, overlapping and gapped offsets", () => {
    const b = encodeBlob(canonical());
    const tools = sectionOf(b, Section.Tools);
    refused(patched((_, v) => v.setUint32(entry(Section.Tools) + 4, tools.offset + 4, true)), "bad-section-table");
    refused(patched((_, v) => v.setUint32(entry(Section.Tools) + 4, tools.offset - 8, true)), "bad-section-table");
    refused(patched((_, v) => v.setUint32(entry(Section.Tools) + 4, tools.offset + 8, true)), "bad-section-table");
    refused(patched((_, v) => v.setUint32(entry(Section.Strings) + 4, 0, true)), "bad-section-table");
  });
  it("section-out-of-range", () => {
    const e = refused(patched((_, v) => v.setUint32(entry(Section.Meta) + 8, 1 << 30, true)), "section-out-of-range");
    expect(e.offset).toBe(entry(Section.Meta) + 4);
    refused(patched((_, v) => v.setUint32(entry(Section.Code) + 4, 0xfffffff8, true)), "section-out-of-range");
  });
  it("bad-padding: a non-zero byte between sections", () => {
    const b = encodeBlob(canonical());
    const padded = [...Array(14).keys()].map((i) => sectionOf(b, i + 1)).find((s) => s.length % 8 !== 0)!;
    expect(padded).toBeDefined();
    refused(patched((x) => (x[padded.offset + padded.length] = 1)), "bad-padding");
  });
});

describe("string pool", () => {
  const pool = () => sectionOf(encodeBlob(canonical()), Section.Strings);
  it("bad-string-pool: first offset not zero", () => {
    refused(patched((_, v) => v.setUint32(pool().offset + 4, 1, true)), "bad-string-pool");
  });
  it("bad-string-pool: offsets not monotonic", () => {
    refused(
      patched((_, v) => {
        const s = pool();
        v.setUint32(s.offset + 12, v.getUint32(s.offset + 8, true) - 1, true);
      }),
      "bad-string-pool",
    );
  });
  it("bad-string-pool: a count larger than the section", () => {
    refused(patched((_, v) => v.setUint32(pool().offset, 1_000_000, true)), "bad-string-pool");
    refused(patched((_, v) => v.setUint32(pool().offset, 0xffffffff, true)), "bad-string-pool");
  });
  it("bad-string-pool: invalid UTF-8", () => {
    const t = canonical();
    const s = pool();
    const area = s.offset + 4 + 4 * (t.strings.length + 1);
    refused(patched((b) => (b[area] = 0xff)), "bad-string-pool");
    refused(patched((b) => (b[area] = 0xc0)), "bad-string-pool");
  });
  it("bad-string-pool: the same string twice", () => {
    // "cancelled" is string 0; overwrite another 9-byte string so it spells the same.
    const t = canonical();
    const j = t.strings.findIndex((s, i) => i > 0 && new TextEncoder().encode(s).length === 9)!;
    expect(j).toBeGreaterThan(0);
    const s = pool();
    refused(
      patched((b, v) => {
        const area = s.offset + 4 + 4 * (t.strings.length + 1);
        b.set(new TextEncoder().encode("cancelled"), area + v.getUint32(s.offset + 4 + 4 * j, true));
      }),
      "bad-string-pool",
    );
  });
  it("bad-string-pool: a character split between two strings (the whole area is valid UTF-8)", () => {
    const t = canonical();
    t.strings.push("z\u00e9", "q");
    const j = t.strings.length - 2;
    const b = encodeBlob(t);
    const s = sectionOf(b, Section.Strings);
    const at = s.offset + 4 + 4 * (j + 1); // string j's end offset: move it inside the é
    const v = viewOf(b);
    v.setUint32(at, v.getUint32(at, true) - 1, true);
    const e = refused(sealBlob(b), "bad-string-pool");
    expect(e.message).toBe(`string ${j} is not valid UTF-8`);
  });
  it("keeps a leading byte-order mark as part of the string", () => {
    const t = canonical();
    t.strings.push("\uFEFFbom");
    expect(decodeBlob(encodeBlob(t)).strings).toContain("\uFEFFbom");
  });
});

describe("record sizes", () => {
  it("bad-record-size: a section that is not whole records", () => {
    refused(patched((_, v) => v.setUint32(BLOB_HEADER_SIZE + (Section.Entities - 1) * 12 + 8, 7, true)), "bad-record-size");
  });
  it("bad-record-size: edge offsets that do not match the tool count", () => {
    refused(fromTables((t) => t.edgeOffsets.push(t.edges.length)), "bad-record-size");
  });
  it("bad-record-size: code that is not whole words", () => {
    const b = encodeBlob(canonical());
    const code = sectionOf(b, Section.Code);
    expect(code.length % 8).not.toBe(0); // 13 words: the last word is followed by padding
    refused(patched((_, v) => v.setUint32(BLOB_HEADER_SIZE + (Section.Code - 1) * 12 + 8, code.length + 2, true)), "bad-record-size");
  });
  it("bad-record-size: meta entry count", () => {
    refused(patched((_, v) => v.setUint32(sectionOf(encodeBlob(canonical()), Section.Meta).offset + 4, 9, true)), "bad-record-size");
  });
  it("bad-record-size: argument maps that are not records plus whole entries", () => {
    refused(
      patched((_, v) => {
        const e = sectionOf(encodeBlob(canonical()), Section.Edges);
        // The last edge (`pay`, T1) claims a fifth map: the section now reads as 5 records + 7.5 entries.
        v.setInt32(e.offset + 7 * EDGE_SIZE + EDGE_ARGMAP, 4, true);
      }),
      "bad-record-size",
    );
  });
});

describe("indices", () => {
  const cases: [string, (t: OntologyTables) => void][] = [
    ["slot entity", (t) => (t.slots[0].entity = 9)],
    ["tool acts_on", (t) => (t.tools[2].actsOn = 9)],
    ["tool acts_on below -1", (t) => (t.tools[2].actsOn = -2)],
    ["tool creates", (t) => ((t.tools[1].creates = 9), (t.tools[1].target = 9))],
    ["operand slot", (t) => (t.tools[3].operands[0].slot = 40)],
    ["edge forward", (t) => (t.edges[0].forward = 99)],
    ["edge inverse", (t) => (edge(t, "t1.book.cancel").inverse = 99)],
    ["edge slot", (t) => (edge(t, "t1.book.cancel").slot = 99)],
    ["edge loss class", (t) => (edge(t, "t3.cancel.book").lossClass = 99)],
    ["edge sink", (t) => (edge(t, "t5.email").sink = 99)],
    ["edge program", (t) => (edge(t, "t2.update").program = 99)],
    ["constant string", (t) => (t.constants[0].value = 10_000n)],
  ];
  for (const [what, mutate] of cases) {
    it(`index-out-of-range: ${what}`, () => refused(fromTables(mutate), "index-out-of-range"));
  }
  it("index-out-of-range: string indices in the header, records and meta", () => {
    const big = 1_000_000;
    refused(patched((_, v) => v.setUint32(HDR_COMPILER_VERSION, big, true)), "index-out-of-range");
    const b = encodeBlob(canonical());
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Entities).offset, big, true)), "index-out-of-range");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Tools).offset, big, true)), "index-out-of-range");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Edges).offset + 40, big, true)), "index-out-of-range");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Meta).offset + 12, big, true)), "index-out-of-range");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Operands).offset + 3 * OPERAND_SIZE + 4, big, true)), "index-out-of-range");
  });
  it("index-out-of-range: operand and program ranges", () => {
    const b = encodeBlob(canonical());
    const tools = sectionOf(b, Section.Tools).offset;
    refused(patched((_, v) => v.setUint32(tools + 3 * TOOL_SIZE + TOOL_OPERAND_START + 4, 50, true)), "index-out-of-range");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Programs).offset + 4, 500, true)), "index-out-of-range");
  });
  it("index-out-of-range: argument map entries", () => {
    const b = encodeBlob(canonical());
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.ArgMaps).offset + 4, 500, true)), "index-out-of-range");
  });
});

describe("names", () => {
  it("duplicate-name: tools, entities, loss classes, sinks, slots of one entity, annotation ids", () => {
    refused(fromTables((t) => (t.tools[2].name = t.tools[1].name)), "duplicate-name");
    refused(fromTables((t) => (t.entities[1].name = t.entities[0].name)), "duplicate-name");
    refused(fromTables((t) => (t.lossClasses[1].name = t.lossClasses[0].name)), "duplicate-name");
    refused(fromTables((t) => (t.sinks[1].name = t.sinks[0].name)), "duplicate-name");
    refused(fromTables((t) => (t.slots[1].name = t.slots[0].name)), "duplicate-name");
    refused(fromTables((t) => (t.edges[1].id = t.edges[0].id)), "duplicate-name");
  });
  it("allows the same slot name on different entities", () => {
    const t = canonical();
    t.slots[3].name = t.slots[0].name; // balance (user) renamed to status
    expect(safeDecodeBlob(encodeBlob(t)).ok).toBe(true);
  });
});

describe("CSR adjacency", () => {
  it("bad-csr: does not start at 0", () => {
    refused(fromTables((t) => (t.edgeOffsets[0] = 1)), "bad-csr");
  });
  it("bad-csr: decreasing", () => {
    refused(fromTables((t) => (t.edgeOffsets[2] = 0)), "bad-csr");
  });
  it("bad-csr: past the edges or not ending at the edge count", () => {
    refused(fromTables((t) => (t.edgeOffsets[3] = 99)), "bad-csr");
    refused(fromTables((t) => (t.edgeOffsets[t.edgeOffsets.length - 1] -= 1)), "bad-csr");
  });
  it("bad-csr: an edge in the row of another tool", () => {
    refused(fromTables((t) => (edge(t, "t5.email").forward = toolIndex(t, "delete_user"))), "bad-csr");
  });
});

describe("enums", () => {
  const cases: [string, (t: OntologyTables) => void][] = [
    ["tier", (t) => (t.edges[0].tier = 6 as Tier)],
    ["tier zero", (t) => (t.edges[0].tier = 0 as Tier)],
    ["lifecycle", (t) => (t.edges[0].lifecycle = 4 as Lifecycle)],
    ["identity", (t) => (t.edges[0].identity = 2 as Identity)],
    ["slot type", (t) => (t.slots[0].type = 7 as SlotType)],
    ["operand kind", (t) => (t.tools[3].operands[0].kind = 7 as OperandKind)],
    ["operand type", (t) => (t.tools[3].operands[0].type = 9 as SlotType)],
    ["constant tag", (t) => (t.constants[1].tag = 5 as ValueTag)],
    ["argument source", (t) => (edge(t, "t3.cancel.book").argMap![0].source = 5 as ArgSource)],
  ];
  for (const [what, mutate] of cases) {
    it(`bad-enum: ${what}`, () => refused(fromTables(mutate), "bad-enum"));
  }
  it("bad-enum: a lookup key on an operand that is not a lookup, a lookup without one", () => {
    const b = encodeBlob(canonical());
    const at = sectionOf(b, Section.Operands).offset;
    refused(patched((_, v) => v.setInt32(at + OPERAND_KEY, 0, true)), "bad-enum");
    refused(patched((_, v) => v.setUint32(at + OPERAND_KIND, OperandKind.SlotLookup, true)), "bad-enum");
  });
  it("bad-enum: sink external flag", () => {
    refused(patched((_, v) => v.setUint32(sectionOf(encodeBlob(canonical()), Section.Sinks).offset + 4, 2, true)), "bad-enum");
  });
});

describe("weights and scores", () => {
  it("bad-weight: edge weight 0, negative, above ONE", () => {
    for (const w of [0, -5, FIXED_ONE + 1]) {
      refused(fromTables((t) => (edge(t, "t5.email").weight = w)), "bad-weight");
    }
  });
  it("bad-weight: loss class weight ONE or negative", () => {
    refused(fromTables((t) => (t.lossClasses[0].weight = FIXED_ONE)), "bad-weight");
    refused(fromTables((t) => (t.lossClasses[0].weight = -1)), "bad-weight");
  });
  it("phi-mismatch: stored phi is not the tier formula", () => {
    refused(fromTables((t) => (edge(t, "t1.book.cancel").phi -= 1)), "phi-mismatch");
    refused(fromTables((t) => (edge(t, "t3.odd").phi += 1)), "phi-mismatch"); // rounded up instead of floored
    refused(fromTables((t) => (edge(t, "t4.delete").phi = 1)), "phi-mismatch");
    refused(fromTables((t) => (edge(t, "t5.email").phi = FIXED_ONE)), "phi-mismatch");
  });
  it("phi-mismatch: stored loss weight is not the loss class's", () => {
    refused(fromTables((t) => (edge(t, "t3.cancel.book").lossWeight = 0)), "phi-mismatch");
    refused(fromTables((t) => (edge(t, "t1.book.cancel").lossWeight = 5)), "phi-mismatch");
    // A loss class whose weight changed after the edge was scored.
    refused(fromTables((t) => (t.lossClasses[1].weight += 1)), "phi-mismatch");
  });
});

describe("programs", () => {
  const withBound = (code: number[], maxStack = 4) =>
    fromTables((t) => {
      t.programs[0] = { code, maxStack };
    });
  it("accepts the sample bound", () => {
    expect(safeDecodeBlob(withBound([ins(Op.Now), ins(Op.Now), ins(Op.Lt)])).ok).toBe(true);
  });
  const cases: [string, number[], number?][] = [
    ["stack underflow", [ins(Op.Now), ins(Op.Eq)]],
    ["underflow on Not", [ins(Op.Not)]],
    ["two values left", [ins(Op.Now), ins(Op.Now)]],
    ["empty", []],
    ["unknown opcode", [ins(Op.Now), 0x0f]],
    ["opcode zero", [0]],
    ["argument on an opcode without one", [ins(Op.Now, 1)]],
    ["constant out of range", [ins(Op.Const, 99)]],
    ["operand beyond the tool's operands", [ins(Op.Operand, 5)]],
    ["deeper than declared", [ins(Op.Now), ins(Op.Now), ins(Op.Now), ins(Op.Eq), ins(Op.Eq)], 2],
    ["declared deeper than MAX_STACK", [ins(Op.Now)], MAX_STACK + 1],
    ["longer than MAX_PROGRAM_LEN", [ins(Op.Now), ...Array(MAX_PROGRAM_LEN).fill(ins(Op.Not))]],
  ];
  for (const [what, code, maxStack] of cases) {
    it(`bad-program: ${what}`, () => refused(withBound(code, maxStack), "bad-program"));
  }
  it("bad-program: deeper than MAX_STACK", () => {
    const code = [...Array(MAX_STACK + 1).fill(ins(Op.Now)), ...Array(MAX_STACK).fill(ins(Op.Eq))];
    refused(withBound(code, MAX_STACK), "bad-program");
  });
  it("bad-program: a program shared with a tool that supplies fewer operands", () => {
    // The update bound reads operand 3; `pay` supplies none, so a T2 edge of `pay` cannot run it.
    const bytes = fromTables((t) => {
      const pay = toolIndex(t, "pay");
      const e = { ...edge(t, "t2.update"), forward: pay, inverse: pay, id: "t2.pay", argMap: null };
      t.edges.push(e);
      t.edgeOffsets[pay + 1] += 1;
    });
    refused(bytes, "bad-program");
  });
  it("bad-program: code words no program uses", () => {
    const b = encodeBlob(canonical());
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Programs).offset + 4, 12, true)), "bad-program");
  });
  it("bad-program: programs not laid out one after another", () => {
    const t = canonical();
    t.programs.push({ code: [ins(Op.Now), ins(Op.Not)], maxStack: 1 });
    const b = encodeBlob(t); // an extra program no edge runs is fine
    viewOf(b).setUint32(sectionOf(b, Section.Programs).offset + 12, 1, true); // program 1 starts inside program 0
    refused(sealBlob(b), "bad-program");
  });
});

describe("tier fields", () => {
  const cases: [string, (t: OntologyTables) => void][] = [
    ["T4 with an inverse", (t) => (edge(t, "t4.delete").inverse = 1)],
    ["T5 with an inverse", (t) => (edge(t, "t5.email").inverse = 1)],
    ["T1 without an inverse", (t) => (edge(t, "t1.book.cancel").inverse = -1)],
    ["T3 without an inverse", (t) => (edge(t, "t3.cancel.book").inverse = -1)],
    ["T2 whose inverse is another tool", (t) => (edge(t, "t2.update").inverse = 1)],
    ["T5 without a sink", (t) => (edge(t, "t5.email").sink = -1)],
    ["T1 with a sink", (t) => (edge(t, "t1.book.cancel").sink = 0)],
    ["T3 without a loss class", (t) => ((edge(t, "t3.cancel.book").lossClass = -1), (edge(t, "t3.cancel.book").lossWeight = 0))],
    ["T4 without a loss class", (t) => ((edge(t, "t4.delete").lossClass = -1), (edge(t, "t4.delete").lossWeight = 0))],
    ["T1 with a loss class", (t) => (edge(t, "t1.book.cancel").lossClass = 0)],
    ["T1 without a slot", (t) => (edge(t, "t1.book.cancel").slot = -1)],
    ["T4 without a slot", (t) => (edge(t, "t4.delete").slot = -1)],
    ["T4 with inverse arguments", (t) => (edge(t, "t4.delete").argMap = [])],
  ];
  for (const [what, mutate] of cases) {
    it(`bad-tier-fields: ${what}`, () => refused(fromTables(mutate), "bad-tier-fields"));
  }
});

describe("tools", () => {
  it("bad-tool: target is not creates-else-acts_on", () => {
    refused(fromTables((t) => (t.tools[1].target = t.tools[1].actsOn)), "bad-tool");
  });
  it("bad-tool: unknown flag bits, or Declared missing", () => {
    const tools = () => sectionOf(encodeBlob(canonical()), Section.Tools).offset;
    refused(patched((_, v) => v.setUint32(tools() + TOOL_FLAGS, 6, true)), "bad-tool");
    refused(patched((_, v) => v.setUint32(tools() + TOOL_FLAGS, 1, true)), "bad-tool");
  });
  it("bad-tool: an annotation on a read-only tool", () => {
    refused(fromTables((t) => (t.tools[toolIndex(t, "pay")].readOnly = true)), "bad-tool");
  });
  it("bad-tool: operands not grouped in tool order", () => {
    const t = canonical();
    t.tools[toolIndex(t, "pay")].operands = [{ kind: OperandKind.SlotValue, slot: 0, path: null, type: SlotType.String }];
    const b = encodeBlob(t);
    // update_reservation_baggages (tool 3) owns operands 0..4; starting it at 1 stays in range.
    viewOf(b).setUint32(sectionOf(b, Section.Tools).offset + 3 * TOOL_SIZE + TOOL_OPERAND_START, 1, true);
    refused(sealBlob(b), "bad-tool");
  });
  it("bad-tool: more operands than an input record holds", () => {
    refused(
      fromTables((t) => {
        t.tools[4].operands = Array.from({ length: MAX_OPERANDS + 1 }, () => ({ kind: OperandKind.SlotValue, slot: 0, path: null, type: SlotType.String }));
      }),
      "bad-tool",
    );
  });
  it("bad-tool: a constant key on a tool that names its entity by an argument or acts on none", () => {
    const b = encodeBlob(canonical());
    const tools = sectionOf(b, Section.Tools).offset;
    for (let i = 0; i < canonical().tools.length; i++) {
      refused(patched((_, v) => v.setInt32(tools + i * TOOL_SIZE + TOOL_KEY_CONST, 0, true)), "bad-tool");
    }
  });
  it("bad-reserved: edge padding, constant padding, argument entry padding", () => {
    const b = encodeBlob(canonical());
    refused(patched((x) => (x[sectionOf(b, Section.Edges).offset + EDGE_PAD] = 1)), "bad-reserved");
    refused(patched((_, v) => v.setUint32(sectionOf(b, Section.Constants).offset + 4, 1, true)), "bad-reserved");
    const am = sectionOf(b, Section.ArgMaps);
    refused(patched((_, v) => v.setUint32(am.offset + 4 * 8 + 12, 1, true)), "bad-reserved");
  });
});

describe("spans, constants, argument maps, meta", () => {
  it("bad-span", () => {
    refused(fromTables((t) => (t.edges[0].span.line = 0)), "bad-span");
    refused(fromTables((t) => (t.edges[0].span.col = 0)), "bad-span");
    refused(fromTables((t) => (t.edges[0].span = { line: 5, col: 1, endLine: 4, endCol: 9 })), "bad-span");
    refused(fromTables((t) => (t.edges[0].span = { line: 5, col: 9, endLine: 5, endCol: 3 })), "bad-span");
  });
  it("bad-constant", () => {
    refused(fromTables((t) => (t.constants[2] = { tag: ValueTag.Bool, value: 2n })), "bad-constant");
    refused(fromTables((t) => (t.constants[3] = { tag: ValueTag.Null, value: 5n })), "bad-constant");
    refused(fromTables((t) => (t.constants[3] = { tag: ValueTag.Missing, value: -1n })), "bad-constant");
  });
  it("bad-argmap: a parameter set twice", () => {
    refused(fromTables((t) => (edge(t, "t3.cancel.book").argMap![1].param = "user_id")), "bad-argmap");
  });
  it("bad-argmap: a literal that is not JSON", () => {
    refused(fromTables((t) => (edge(t, "t3.cancel.book").argMap![2].ref = "no")), "bad-argmap");
  });
  it("bad-argmap: a new-id source with a reference, an empty path", () => {
    refused(fromTables((t) => (edge(t, "t1.book.cancel").argMap![0].ref = "id")), "bad-argmap");
    refused(fromTables((t) => (edge(t, "t3.cancel.book").argMap![3].ref = "")), "bad-argmap");
  });
  it("bad-argmap: argument maps not numbered in edge order", () => {
    const b = encodeBlob(canonical());
    const edges = sectionOf(b, Section.Edges).offset;
    refused(
      patched((_, v) => {
        v.setInt32(edges + EDGE_ARGMAP, 1, true);
        v.setInt32(edges + EDGE_SIZE + EDGE_ARGMAP, 0, true);
      }),
      "bad-argmap",
    );
  });
  it("bad-argmap: entries not laid out one map after another", () => {
    const am = sectionOf(encodeBlob(canonical()), Section.ArgMaps);
    refused(patched((_, v) => v.setUint32(am.offset + 8, 0, true)), "bad-argmap");
  });
  it("bad-meta: keys out of order", () => {
    const meta = sectionOf(encodeBlob(canonical()), Section.Meta);
    refused(
      patched((_, v) => {
        const a = v.getBigUint64(meta.offset + 8, true);
        v.setBigUint64(meta.offset + 8, v.getBigUint64(meta.offset + 16, true), true);
        v.setBigUint64(meta.offset + 16, a, true);
      }),
      "bad-meta",
    );
  });
  it("keeps a meta key named __proto__ as an ordinary entry", () => {
    const t = canonical();
    Object.defineProperty(t.meta, "__proto__", { value: "x", enumerable: true, configurable: true, writable: true });
    const d = decodeBlob(encodeBlob(t));
    expect(Object.keys(d.meta)).toContain("__proto__");
    expect(Object.getPrototypeOf(d.meta)).toBe(Object.prototype);
  });
});

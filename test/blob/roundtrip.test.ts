import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ABI_VERSION,
  BLOB_DIGEST_FROM,
  BLOB_FORMAT_VERSION,
  BLOB_HEADER_SIZE,
  EDGE_SIZE,
  EDGE_WEIGHT,
  FIXED_ONE,
  HDR_BLOB_DIGEST,
  OperandKind,
  SECTION_COUNT,
  Section,
  SlotType,
  Tier,
  TOOL_SIZE,
} from "../../src/abi.js";
import { blobDigestHex, blobInfo, BlobError, decodeBlob, encodeBlob, safeDecodeBlob } from "../../src/blob/index.js";
import { createHash } from "node:crypto";
import { sha256, toHex } from "../../src/util/sha256.js";
import { randomTables, sampleTables, sectionOf, TablesBuilder } from "./builder.js";

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

describe("encodeBlob / decodeBlob round trip", () => {
  it("decodes the sample ontology to exactly the tables it was built from", () => {
    const tables = sampleTables();
    const bytes = encodeBlob(tables);
    const decoded = decodeBlob(bytes);
    // The sample's pool holds only the literal; names are appended by the encoder in section order.
    expect(decoded.strings.slice(0, tables.strings.length)).toEqual(tables.strings);
    expect({ ...decoded, strings: [] }).toEqual({ ...tables, strings: [] });
    // Once the pool is complete, the round trip is exact, bytes and tables.
    expect(decodeBlob(encodeBlob(decoded))).toEqual(decoded);
    expect(encodeBlob(decoded)).toEqual(bytes);
  });

  it("round-trips random valid tables exactly", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
        const first = decodeBlob(encodeBlob(randomTables(seed)));
        const bytes = encodeBlob(first);
        expect(decodeBlob(bytes)).toEqual(first);
        expect(encodeBlob(decodeBlob(bytes))).toEqual(bytes);
      }),
      { seed: 20260601, numRuns: 200 },
    );
  });

  it("keeps the indices of strings already in the pool (interned literals)", () => {
    const tables = sampleTables();
    const decoded = decodeBlob(encodeBlob(tables));
    const literal = decoded.constants.find((c) => c.value === 0n && c.tag === 4);
    expect(decoded.strings[0]).toBe("cancelled");
    expect(literal).toBeDefined();
  });

  it("round-trips an empty ontology", () => {
    const tables = new TablesBuilder().build();
    const decoded = decodeBlob(encodeBlob(tables));
    expect(decoded.tools).toEqual([]);
    expect(decoded.edgeOffsets).toEqual([0]);
    expect(decoded.strings).toEqual(["polar-guard/test", "test.polar"]);
  });

  it("reads a blob that sits inside a larger buffer", () => {
    const bytes = encodeBlob(sampleTables());
    const big = new Uint8Array(bytes.length + 24);
    big.set(bytes, 16);
    const inner = big.subarray(16, 16 + bytes.length);
    expect(decodeBlob(inner)).toEqual(decodeBlob(bytes));
    expect(blobDigestHex(inner)).toBe(blobDigestHex(bytes));
  });

  it("returns copies, not views into the blob", () => {
    const bytes = encodeBlob(sampleTables());
    const decoded = decodeBlob(bytes);
    bytes.fill(0);
    expect(decoded.sourceSha256).toEqual(sampleTables().sourceSha256);
  });
});

describe("determinism", () => {
  it("gives equal bytes for equal tables", () => {
    expect(encodeBlob(sampleTables())).toEqual(encodeBlob(sampleTables()));
    expect(encodeBlob(randomTables(7))).toEqual(encodeBlob(randomTables(7)));
  });

  it("does not depend on the insertion order of meta keys", () => {
    const a = sampleTables();
    const b = { ...a, meta: Object.fromEntries(Object.entries(a.meta).reverse()) };
    expect(Object.keys(b.meta)).not.toEqual(Object.keys(a.meta));
    expect(encodeBlob(b)).toEqual(encodeBlob(a));
  });

  it("has a stable digest for the sample ontology", () => {
    // A layout change must be deliberate: it changes this hash and must bump ABI_VERSION or the format.
    const bytes = encodeBlob(sampleTables());
    expect(bytes.length % 8).toBe(0);
    expect(blobDigestHex(bytes)).toBe(toHex(sha256(bytes)));
    // A string is hashed as its UTF-8 bytes (the Sha256 contract), as node:crypto does.
    expect(toHex(sha256("héllo ✓"))).toBe(createHash("sha256").update("héllo ✓", "utf8").digest("hex"));
    expect(blobDigestHex(bytes)).toBe("28e3a133112b9713e7e1a754a2598b782a2b4ede3f84c142d0a7934c3b4d796f");
  });
});

describe("layout", () => {
  const tables = sampleTables();
  const bytes = encodeBlob(tables);
  const v = view(bytes);

  it("writes the header of src/abi.ts", () => {
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("PLRO");
    expect(v.getUint16(4, true)).toBe(ABI_VERSION);
    expect(v.getUint16(6, true)).toBe(BLOB_FORMAT_VERSION);
    expect(v.getUint32(8, true)).toBe(bytes.length);
    expect(v.getUint32(12, true)).toBe(SECTION_COUNT);
    expect(bytes.subarray(16, 48)).toEqual(tables.sourceSha256);
    // The digest covers every byte but its own field, the source hash included.
    const covered = new Uint8Array([...bytes.subarray(0, HDR_BLOB_DIGEST), ...bytes.subarray(BLOB_DIGEST_FROM)]);
    expect(bytes.subarray(HDR_BLOB_DIGEST, HDR_BLOB_DIGEST + 32)).toEqual(sha256(covered));
    expect([...bytes.subarray(84, 96)].every((x) => x === 0)).toBe(true);
  });

  it("lays sections out in id order, 8-byte aligned, with zero padding", () => {
    let end = BLOB_HEADER_SIZE + SECTION_COUNT * 12;
    for (let id = 1; id <= SECTION_COUNT; id++) {
      expect(v.getUint32(BLOB_HEADER_SIZE + (id - 1) * 12, true)).toBe(id);
      const s = sectionOf(bytes, id);
      expect(s.offset % 8).toBe(0);
      expect(s.offset).toBe(Math.ceil(end / 8) * 8);
      expect([...bytes.subarray(end, s.offset)].every((x) => x === 0)).toBe(true);
      end = s.offset + s.length;
    }
    expect(Math.ceil(end / 8) * 8).toBe(bytes.length);
  });

  it("puts tool and edge fields where the core reads them", () => {
    const tools = sectionOf(bytes, Section.Tools);
    const edges = sectionOf(bytes, Section.Edges);
    expect(tools.length).toBe(tables.tools.length * TOOL_SIZE);
    expect(edges.length).toBe(tables.edges.length * EDGE_SIZE);
    tables.edges.forEach((e, i) => {
      const at = edges.offset + i * EDGE_SIZE;
      expect(bytes[at]).toBe(e.tier);
      expect(v.getUint32(at + 4, true)).toBe(e.forward);
      expect(v.getInt32(at + 8, true)).toBe(e.inverse);
      expect(v.getInt32(at + EDGE_WEIGHT, true)).toBe(e.weight);
      expect(v.getInt32(at + 28, true)).toBe(e.phi);
      expect(v.getInt32(at + 36, true)).toBe(e.program);
    });
    const offsets = sectionOf(bytes, Section.EdgeOffsets);
    tables.edgeOffsets.forEach((o, t) => expect(v.getUint32(offsets.offset + 4 * t, true)).toBe(o));
  });

  it("stores the T3 phi floored in integers", () => {
    const odd = decodeBlob(bytes).edges.find((e) => e.id === "t3.odd")!;
    // 777777 * (1e6 - 333333) / 1e6 = 518518.0...: floored
    expect(odd.phi).toBe(Math.floor((777_777 * 666_667) / FIXED_ONE));
    expect(odd.lossWeight).toBe(333_333);
  });
});

describe("blobInfo and blobDigestHex", () => {
  it("summarises a valid blob", () => {
    const tables = sampleTables();
    const bytes = encodeBlob(tables);
    const info = blobInfo(bytes);
    expect(info.error).toBeNull();
    expect(info.digestOk).toBe(true);
    expect(info.abiVersion).toBe(ABI_VERSION);
    expect(info.formatVersion).toBe(BLOB_FORMAT_VERSION);
    expect(info.totalLength).toBe(bytes.length);
    expect(info.blobSha256).toBe(blobDigestHex(bytes));
    expect(info.sourceSha256).toBe(toHex(tables.sourceSha256));
    expect(info.compilerVersion).toBe("polar-guard/test");
    expect(info.sourceName).toBe("airline.polar");
    expect(info.sections).toHaveLength(SECTION_COUNT);
    expect(info.counts).toMatchObject({
      entities: 2,
      slots: 4,
      lossClasses: 3,
      sinks: 2,
      tools: tables.tools.length,
      edges: tables.edges.length,
      operands: 5,
      programs: 1,
      instructions: 13,
      constants: 5,
      argMaps: 4,
      meta: 3,
    });
  });

  it("reports a damaged blob without throwing, and its digest separately", () => {
    const bytes = encodeBlob(sampleTables());
    bytes[bytes.length - 9] ^= 1;
    const info = blobInfo(bytes);
    expect(info.digestOk).toBe(false);
    expect(info.error?.code).toBe("digest-mismatch");
    expect(info.blobSha256).toBe(toHex(sha256(bytes)));
  });

  it("throws only when there is no header at all", () => {
    expect(() => blobInfo(new Uint8Array(10))).toThrow(BlobError);
  });
});

describe("encoder refuses tables it cannot represent", () => {
  const cases: [string, (t: ReturnType<typeof sampleTables>) => void][] = [
    ["a non-integer weight", (t) => (t.edges[0].weight = 0.5)],
    ["a weight beyond i32", (t) => (t.edges[0].weight = 2 ** 31)],
    ["a negative count-like field", (t) => (t.edges[0].span.line = -1)],
    ["a constant beyond i64", (t) => (t.constants[1].value = 1n << 63n)],
    ["a short source hash", (t) => (t.sourceSha256 = new Uint8Array(31))],
    ["a duplicate pool string", (t) => t.strings.push(t.strings[0])],
    ["a lone surrogate", (t) => (t.tools[1].name = "bad\uD800name")],
    ["an argument operand without a path", (t) => (t.tools.find((x) => x.operands.length)!.operands[3].path = null)],
  ];
  for (const [what, mutate] of cases) {
    it(`refuses ${what}`, () => {
      const t = sampleTables();
      mutate(t);
      expect(() => encodeBlob(t, { validate: false })).toThrow(expect.objectContaining({ code: "unencodable" }));
    });
  }

  it("validates its own output by default", () => {
    const t = sampleTables();
    t.edges[0].phi += 1;
    expect(() => encodeBlob(t)).toThrow(expect.objectContaining({ code: "phi-mismatch" }));
  });
});

describe("scale", () => {
  it("encodes and validates a 10,000-tool ontology", () => {
    const b = new TablesBuilder("big.polar", "big");
    const e = b.entity("thing");
    const s = b.slot(e, "state", SlotType.String);
    const fee = b.loss("fee", 50_000);
    for (let i = 0; i < 10_000; i++) {
      b.tool(`tool_${i}`, {
        actsOn: e,
        keyArg: "id",
        operands: [{ kind: OperandKind.SlotValue, slot: s, path: null, type: SlotType.String }],
      });
    }
    for (let i = 0; i < 10_000; i++) {
      b.edge(Tier.T3, i, { inverse: (i + 1) % 10_000, slot: s, lossClass: fee, weight: 900_000, id: `c${i}` });
    }
    const tables = b.build();
    // How long this takes is the benchmark's business (bench/: blob load at 10 to 10,000 tools), not a test's.
    const bytes = encodeBlob(tables);
    const decoded = decodeBlob(bytes);
    expect(decoded.tools).toHaveLength(10_000);
    expect(decoded.edges).toHaveLength(10_000);
    expect(decoded.edges[9_999]).toMatchObject({ forward: 9_999, inverse: 0, id: "c9999" });
    expect(safeDecodeBlob(bytes).ok).toBe(true);
  });
});

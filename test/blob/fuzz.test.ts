// Damage a real blob every way we can think of: the loader must answer with a typed BlobError, never
// another exception; and whatever it accepts must be exactly the blob it would write itself (the format
// is canonical), so nothing the core reads can differ from what was validated.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HDR_TOTAL_LEN } from "../../src/abi.js";
import { BlobError, decodeBlob, encodeBlob, safeDecodeBlob, type DecodeOptions } from "../../src/blob/index.js";
import { sealBlob } from "../../src/blob/encode.js";
import { randomTables, sampleTables } from "./builder.js";

const sample = encodeBlob(decodeBlob(encodeBlob(sampleTables())));

/** The loader's answer: a typed refusal or tables; anything else fails the test. */
function load(bytes: Uint8Array, options?: DecodeOptions): BlobError | ReturnType<typeof decodeBlob> {
  try {
    return decodeBlob(bytes, options);
  } catch (e) {
    if (!(e instanceof BlobError)) throw new Error(`loader threw a non-BlobError: ${String(e)}`);
    expect(e.code).not.toBe("internal-error");
    return e;
  }
}

/** Accepted bytes must re-encode to themselves (with the digest the encoder computes). */
function expectCanonical(bytes: Uint8Array, options?: DecodeOptions): boolean {
  const r = load(bytes, options);
  if (r instanceof BlobError) return false;
  const again = encodeBlob(r);
  const expected = sealBlob(bytes.slice());
  // A plain loop: toEqual on kilobyte arrays dominates the run time of thousands of cases.
  if (firstDifference(again, expected) !== -1) expect(again).toEqual(expected);
  return true;
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe("truncation", () => {
  it("refuses the sample cut at every byte offset", () => {
    for (let k = 0; k < sample.length; k++) {
      const r = load(sample.slice(0, k));
      expect(r).toBeInstanceOf(BlobError);
      expect((r as BlobError).code).toBe("blob-truncated");
    }
  });

  it("refuses the sample cut at every offset even when the header length and digest are fixed up", () => {
    for (let k = 0; k < sample.length; k++) {
      const cut = sample.slice(0, k);
      if (k >= 12) new DataView(cut.buffer).setUint32(HDR_TOTAL_LEN, k, true);
      if (k >= 96) sealBlob(cut);
      expect(load(cut)).toBeInstanceOf(BlobError);
      expect(load(cut, { verifyDigest: false })).toBeInstanceOf(BlobError);
    }
  });

  it("refuses random tables cut anywhere", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 30 }), fc.double({ min: 0, max: 1, noNaN: true }), (seed, where) => {
        const bytes = encodeBlob(randomTables(seed));
        const k = Math.floor(where * (bytes.length - 1));
        const cut = bytes.slice(0, k);
        if (k >= 12) new DataView(cut.buffer).setUint32(HDR_TOTAL_LEN, k, true);
        if (k >= 96) sealBlob(cut);
        expect(load(cut, { verifyDigest: false })).toBeInstanceOf(BlobError);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe("bit flips", () => {
  it("refuses every single bit flip of the sample (digest), and otherwise stays typed and canonical", () => {
    let acceptedWithoutDigest = 0;
    fc.assert(
      fc.property(fc.nat(sample.length * 8 - 1), (bit) => {
        const flipped = sample.slice();
        flipped[bit >> 3] ^= 1 << (bit & 7);
        expect(load(flipped)).toBeInstanceOf(BlobError);
        if (expectCanonical(flipped, { verifyDigest: false })) acceptedWithoutDigest++;
      }),
      { seed: 20260601, numRuns: 3000 },
    );
    // Some flips land in free-form data (a weight, a line number, a digest byte) and stay valid; most not.
    expect(acceptedWithoutDigest).toBeGreaterThan(0);
  });

  it("flips over random tables stay typed and canonical", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 30 }), fc.nat(), (seed, pick) => {
        const bytes = encodeBlob(randomTables(seed));
        const bit = pick % (bytes.length * 8);
        bytes[bit >> 3] ^= 1 << (bit & 7);
        expect(load(bytes)).toBeInstanceOf(BlobError);
        expectCanonical(bytes, { verifyDigest: false });
      }),
      { seed: 7, numRuns: 1000 },
    );
  });
});

describe("resealed byte edits", () => {
  // Structure-aware damage: a few bytes set to values that are likely to be meaningful (0, -1, small
  // counts, large counts), then the digest recomputed so every structural check is exercised.
  const interesting = fc.oneof(
    fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 7, 8, 0x7f, 0x80, 0xfe, 0xff),
    fc.integer({ min: 0, max: 255 }),
  );
  const edit = fc.record({ at: fc.nat(), value: interesting });

  it("the sample with 1–4 bytes changed is refused with a typed error or accepted canonically", () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        const bytes = sample.slice();
        for (const e of edits) bytes[96 + (e.at % (bytes.length - 96))] = e.value;
        sealBlob(bytes);
        expectCanonical(bytes);
      }),
      { seed: 1234, numRuns: 3000 },
    );
  });

  it("random tables with 1–4 bytes changed are refused with a typed error or accepted canonically", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 30 }), fc.array(edit, { minLength: 1, maxLength: 4 }), (seed, edits) => {
        const bytes = encodeBlob(randomTables(seed));
        for (const e of edits) bytes[96 + (e.at % (bytes.length - 96))] = e.value;
        sealBlob(bytes);
        expectCanonical(bytes);
      }),
      { seed: 99, numRuns: 1000 },
    );
  });

  it("u32 fields overwritten with boundary values are refused or canonical", () => {
    const values = [1, 0x80000000, 0xffffffff];
    for (let at = 80; at + 4 <= sample.length; at += 4) {
      for (const v of values) {
        const bytes = sample.slice();
        new DataView(bytes.buffer).setUint32(at, v, true);
        sealBlob(bytes);
        expectCanonical(bytes);
      }
    }
  });
});

describe("safeDecodeBlob", () => {
  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const r = safeDecodeBlob(bytes);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toBeInstanceOf(BlobError);
      }),
      { seed: 5, numRuns: 500 },
    );
  });

  it("never throws for random bodies behind a valid header", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (body) => {
        const bytes = new Uint8Array(96 + body.length);
        bytes.set(sample.subarray(0, 96));
        bytes.set(body, 96);
        new DataView(bytes.buffer).setUint32(HDR_TOTAL_LEN, bytes.length, true);
        sealBlob(bytes);
        const r = safeDecodeBlob(bytes);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.code).not.toBe("internal-error");
      }),
      { seed: 6, numRuns: 500 },
    );
  });
});

// What the loader returns for a valid blob: exactly the tables it was encoded from, every field, and
// the SHA-256 it is given for the digest check (a broken one refuses the blob, never skips the check).
// The refusals are in errors.test.ts; the large and random round trips in roundtrip.test.ts.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeBlob, encodeBlob, safeDecodeBlob } from "../../src/blob/index.js";
import { randomTables, sampleTables } from "./builder.js";

const nodeSha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());

describe("a valid blob", () => {
  it("decodes to exactly the sample's tables, every field of every record", () => {
    const tables = sampleTables();
    const decoded = decodeBlob(encodeBlob(tables));
    // The sample's pool holds only its literal; the encoder appends the names after it.
    expect(decoded.strings.slice(0, tables.strings.length)).toEqual(tables.strings);
    expect({ ...decoded, strings: [] }).toEqual({ ...tables, strings: [] });
  });

  it("decodes an all-ASCII string pool (read in one piece) to the same tables", () => {
    const tables = sampleTables();
    tables.meta = { domain: "airline" };
    const decoded = decodeBlob(encodeBlob(tables));
    expect(decoded.strings.every((x) => /^[\x00-\x7f]*$/u.test(x))).toBe(true);
    expect(decoded.strings.slice(0, tables.strings.length)).toEqual(tables.strings);
    expect({ ...decoded, strings: [] }).toEqual({ ...tables, strings: [] });
  });

  it("decodes small random tables exactly, and re-encodes to the same bytes", () => {
    for (const seed of [1, 2, 3, 5, 8, 13]) {
      const first = decodeBlob(encodeBlob(randomTables(seed, 6)));
      const bytes = encodeBlob(first);
      expect(decodeBlob(bytes)).toEqual(first);
      expect(encodeBlob(first)).toEqual(bytes);
    }
  });
});

describe("the digest check's SHA-256", () => {
  const bytes = encodeBlob(sampleTables());

  it("a correct one accepts the blob", () => {
    expect(decodeBlob(bytes, { sha256: nodeSha256 })).toEqual(decodeBlob(bytes));
  });

  it("one that answers the wrong digest, a short or long one, or not bytes refuses it", () => {
    const right = (data: Uint8Array | string) => nodeSha256(data);
    const longer = (data: Uint8Array | string) => Uint8Array.from([...right(data), 0]);
    const shorter = (data: Uint8Array | string) => right(data).slice(0, 31);
    // The right digest as a plain list of numbers is still not the 32 bytes a Sha256 returns.
    const list = (data: Uint8Array | string) => Array.from(right(data)) as unknown as Uint8Array;
    for (const wrong of [() => new Uint8Array(32), shorter, longer, list]) {
      const r = safeDecodeBlob(bytes, { sha256: wrong });
      expect(r.ok ? null : r.error.code).toBe("digest-mismatch");
    }
  });

  it("one that throws is a loader failure: refused with the cause, never thrown", () => {
    const r = safeDecodeBlob(bytes, { sha256: () => { throw new Error("no crypto"); } });
    expect(r.ok ? null : { code: r.error.code, message: r.error.message }).toEqual({ code: "internal-error", message: "blob loader failed: Error: no crypto" });
  });

  it("is not asked when the check is off", () => {
    let asked = 0;
    expect(safeDecodeBlob(bytes, { verifyDigest: false, sha256: () => { asked++; return new Uint8Array(32); } }).ok).toBe(true);
    expect(asked).toBe(0);
  });
});

// The blob loader on damaged real blobs (ontologies/*/*.blob): truncations, bit flips, overwritten
// words and splices of two blobs. Each damaged blob is tried twice: as is (the digest must refuse it
// unless it is byte-identical to a real blob) and resealed with a correct length and digest (the
// structural checks alone must refuse it, or, when it still validates, the wasm core must load it and
// answer every input exactly as the reference does on the decoded tables).
import fc from "fast-check";
import { BLOB_HEADER_SIZE, HDR_TOTAL_LEN, ValueTag } from "../../../src/abi.js";
import { BlobError, decodeBlob, safeDecodeBlob } from "../../../src/blob/index.js";
import { sealBlob } from "../../../src/blob/encode.js";
import { outputBytes } from "../../../src/core/record.js";
import { CoreError, type CoreInstance } from "../../../src/core/wasm.js";
import type { OntologyTables } from "../../../src/ontology/tables.js";
import { createReferenceBackend } from "../../../src/reference/index.js";
import { newCore, run, type CallSpec, type Val } from "../../core/fixtures.js";
import { fail, realBlobs, type FuzzTarget } from "../support.js";

type Damage =
  | { op: "truncate"; where: number }
  | { op: "flip"; bits: number[] }
  | { op: "word"; where: number; value: number }
  | { op: "splice"; other: number; cutA: number; cutB: number };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ op: fc.constant("truncate" as const), where: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant("flip" as const), bits: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }) }),
  fc.record({
    op: fc.constant("word" as const),
    where: fc.nat(),
    value: fc.oneof(fc.constantFrom(0, 1, 2, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff), fc.nat()),
  }),
  fc.record({ op: fc.constant("splice" as const), other: fc.nat(), cutA: fc.double({ min: 0, max: 1, noNaN: true }), cutB: fc.double({ min: 0, max: 1, noNaN: true }) }),
);

function apply(blobs: Uint8Array[], base: number, d: Damage): Uint8Array {
  const a = blobs[base];
  switch (d.op) {
    case "truncate":
      return a.slice(0, Math.floor(d.where * a.length));
    case "flip": {
      const out = a.slice();
      for (const bit of d.bits) out[(bit >>> 3) % out.length] ^= 1 << (bit & 7);
      return out;
    }
    case "word": {
      const out = a.slice();
      const at = (d.where % (out.length >>> 2)) * 4;
      new DataView(out.buffer).setUint32(at, d.value >>> 0, true);
      return out;
    }
    case "splice": {
      const b = blobs[d.other % blobs.length];
      const i = Math.floor(d.cutA * a.length);
      const j = Math.floor(d.cutB * b.length);
      const out = new Uint8Array(i + b.length - j);
      out.set(a.subarray(0, i), 0);
      out.set(b.subarray(j), i);
      return out;
    }
  }
}

/** The header length fixed and the digest recomputed: only the structural checks stand in the way. */
function reseal(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < BLOB_HEADER_SIZE) return null;
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(HDR_TOTAL_LEN, out.length, true);
  return sealBlob(out);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** decodeBlob's answer: tables, or a typed BlobError; anything else is a failure. */
function load(bytes: Uint8Array): OntologyTables | BlobError {
  let out: OntologyTables | BlobError;
  try {
    out = decodeBlob(bytes);
  } catch (e) {
    if (!(e instanceof BlobError)) fail(`decodeBlob threw ${String(e)} instead of a BlobError`);
    if (e.code === "internal-error") fail(`decodeBlob internal error: ${e.message}`);
    out = e;
  }
  const safe = safeDecodeBlob(bytes);
  if (safe.ok !== !(out instanceof BlobError)) fail("safeDecodeBlob disagrees with decodeBlob");
  return out;
}

const value: fc.Arbitrary<Val> = fc.oneof(
  fc.constant({ tag: ValueTag.Missing, value: 0n }),
  fc.constant({ tag: ValueTag.Null, value: 0n }),
  fc.bigInt({ min: -(1n << 62n), max: 1n << 62n }).map((v) => ({ tag: ValueTag.Number, value: v })),
  fc.nat(40).map((v) => ({ tag: ValueTag.String, value: BigInt(v) })),
  fc.nat(1).map((v) => ({ tag: ValueTag.Bool, value: BigInt(v) })),
);

interface Probe {
  calls: { tool: number; grounded: boolean; key: number; operands: Val[] }[];
  tau: number;
  maxNodes: number;
  maxDepth: number;
  flags: number;
}

const probe: fc.Arbitrary<Probe> = fc.record({
  calls: fc.array(
    fc.record({ tool: fc.nat(), grounded: fc.boolean(), key: fc.nat(3), operands: fc.array(value, { maxLength: 6 }) }),
    { minLength: 1, maxLength: 4 },
  ),
  tau: fc.constantFrom(0, 500000, 800000, 1000000),
  maxNodes: fc.constantFrom(1, 50, 100000),
  maxDepth: fc.constantFrom(1, 64),
  flags: fc.nat(0xff),
});

/** Calls of the probe shaped for tables with `n` tools (operand values padded with Missing). */
function callsFor(p: Probe, tools: { operands: unknown[] }[]): CallSpec[] {
  const n = tools.length;
  return p.calls.map((c) => ({
    tool: c.tool % n,
    grounded: c.grounded,
    key: c.key,
    operands: tools[c.tool % n].operands.map((_, i) => c.operands[i] ?? { tag: ValueTag.Missing, value: 0n }),
  }));
}

/** A blob decodeBlob refused, handed to the core anyway (a host that skipped validation): the core's
 * own checks refuse it with a typed CoreError, or it loads and then every verdict returns (a status,
 * never a trap), as docs/core.md promises. */
function unvalidated(core: CoreInstance, bytes: Uint8Array, p: Probe): void {
  let backend;
  try {
    backend = core.load(bytes);
  } catch (e) {
    if (!(e instanceof CoreError) || e.code !== "core-bad-blob") fail(`the core refused an unvalidated blob with ${String(e)}`);
    return;
  }
  // Tool count unknown without decoding: probe tool indices as given (the core checks the range).
  const calls: CallSpec[] = p.calls.map((c) => ({ tool: c.tool % 64, grounded: c.grounded, key: c.key, operands: c.operands }));
  try {
    run(backend, calls, { tau: p.tau, maxNodes: p.maxNodes, maxDepth: p.maxDepth, flags: p.flags });
  } catch (e) {
    fail(`a verdict on an unvalidated blob the core loaded threw: ${String(e)}`);
  }
}

/** Runs the probe on the core and on the reference and compares the output records byte for byte. */
function compare(core: CoreInstance, bytes: Uint8Array, tables: OntologyTables, p: Probe): void {
  let wasm;
  try {
    wasm = core.load(bytes);
  } catch (e) {
    fail(`the core refused a blob decodeBlob accepted: ${String(e)}`);
  }
  const reference = createReferenceBackend(tables);
  if (tables.tools.length === 0) return;
  const calls = callsFor(p, tables.tools);
  const o = { tau: p.tau, maxNodes: p.maxNodes, maxDepth: p.maxDepth, flags: p.flags };
  run(wasm, calls, o);
  const w = outputBytes(wasm.run());
  run(reference, calls, o);
  const r = outputBytes(reference.run());
  if (!same(w, r)) fail("the core and the reference disagree on a blob that validates");
}

export const blobTarget: FuzzTarget = {
  name: "blob",
  claim: "damaged real blobs are refused with a typed BlobError, or validate and then the wasm core agrees with the reference; refused blobs forced into the core are refused or answered without a trap",
  ciRuns: 2000,
  property() {
    const blobs = realBlobs().map((b) => b.bytes);
    if (blobs.length === 0) fail("no blobs in ontologies/");
    let core: CoreInstance = newCore();
    return fc.property(fc.nat(blobs.length - 1), damage, probe, (base, d, p) => {
      const bytes = apply(blobs, base, d);
      const raw = load(bytes);
      if (!(raw instanceof BlobError) && !blobs.some((b) => same(b, bytes))) fail(`a ${d.op} damage passed the digest`);
      const sealed = reseal(bytes);
      if (sealed === null) return;
      const tables = load(sealed);
      try {
        if (tables instanceof BlobError) unvalidated(core, sealed, p);
        else compare(core, sealed, tables, p);
      } catch (e) {
        core = newCore(); // a failed case must not poison the next one
        throw e;
      }
    });
  },
};

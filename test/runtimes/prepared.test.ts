// prepareOntology: a blob is validated and hashed once per distinct bytes, and never trusted after
// its bytes change in place.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { BlobError, LayerB, blobDigestHex, createGuard, decodeBlob, prepareOntology, prepareOntologyAsync } from "../../src/index.js";
import { loadGuard, loadVerifier } from "../../src/runtimes/node.js";
import { REPO } from "./helpers/paths.js";

const AIRLINE = join(REPO, "ontologies/airline/airline.blob");
const fresh = (): Uint8Array => new Uint8Array(readFileSync(AIRLINE));

describe("prepareOntology", () => {
  it("validates and hashes like decodeBlob and blobDigestHex", () => {
    const bytes = fresh();
    const p = prepareOntology(bytes);
    expect(p.tables).toEqual(decodeBlob(bytes));
    expect(p.hash).toBe(blobDigestHex(bytes));
    expect(Object.isFrozen(p)).toBe(true);
  });

  it("returns the same prepared ontology for the same bytes, the copy it hands out, and an ArrayBuffer view of them", () => {
    const bytes = fresh();
    const p = prepareOntology(bytes);
    expect(prepareOntology(bytes)).toBe(p);
    expect(prepareOntology(p.blob)).toBe(p);
    expect(prepareOntology(bytes.buffer as ArrayBuffer)).toBe(p);
    // Equal bytes in another buffer are validated on their own (the cache is by buffer, then bytes).
    expect(prepareOntology(fresh())).not.toBe(p);
  });

  it("keeps a private copy: writing the caller's buffer afterwards cannot reach the validated bytes", () => {
    const bytes = fresh();
    const p = prepareOntology(bytes);
    const before = p.blob.slice();
    bytes.fill(0);
    expect(p.blob).toEqual(before);
  });

  it("validates again when the bytes changed in place, and refuses them when they no longer validate", () => {
    const bytes = fresh();
    prepareOntology(bytes);
    bytes[bytes.length - 1] ^= 0xff;
    expect(() => prepareOntology(bytes)).toThrow(BlobError);
    bytes[bytes.length - 1] ^= 0xff;
    expect(prepareOntology(bytes).hash).toBe(blobDigestHex(fresh()));
  });

  it("refuses what is not bytes", () => {
    expect(() => prepareOntology("airline" as never)).toThrow(TypeError);
  });

  it("is accepted by createGuard as its ontology", () => {
    const p = prepareOntology(fresh());
    const guard = createGuard({ ontology: p, state: new LayerB() });
    expect(guard.ontologyHash).toBe(p.hash);
  });
});

describe("prepareOntologyAsync", () => {
  const native = (calls: Uint8Array[]) => async (d: Uint8Array): Promise<Uint8Array> => {
    calls.push(d.slice());
    return new Uint8Array(createHash("sha256").update(d).digest());
  };

  it("takes both digests from the asynchronous one and gives what prepareOntology gives", async () => {
    const calls: Uint8Array[] = [];
    const p = await prepareOntologyAsync(fresh(), { digest: native(calls) });
    const sync = prepareOntology(fresh());
    expect(p.tables).toEqual(sync.tables);
    expect(p.hash).toBe(sync.hash);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(fresh()); // the ontology hash covers the whole blob
  });

  it("uses WebCrypto by default where the runtime has it", async () => {
    const p = await prepareOntologyAsync(fresh());
    expect(p.hash).toBe(blobDigestHex(fresh()));
  });

  it("is the same cache as prepareOntology", async () => {
    const bytes = fresh();
    const p = prepareOntology(bytes);
    expect(await prepareOntologyAsync(bytes, { digest: native([]) })).toBe(p);
    const q = await prepareOntologyAsync(fresh(), { digest: native([]) });
    expect(prepareOntology(q.blob)).toBe(q);
  });

  it("refuses a blob whose bytes do not match their digest, whatever digest function answers", async () => {
    const bytes = fresh();
    bytes[bytes.length - 1] ^= 0xff;
    await expect(prepareOntologyAsync(bytes, { digest: native([]) })).rejects.toMatchObject({ name: "BlobError", code: "digest-mismatch" });
    // A digest that answers garbage cannot make a good blob pass as anything but refused either.
    await expect(prepareOntologyAsync(fresh(), { digest: async () => new Uint8Array(32) })).rejects.toBeInstanceOf(BlobError);
  });

  it("refuses what is not a blob with decodeBlob's error, before any digest", async () => {
    const calls: Uint8Array[] = [];
    await expect(prepareOntologyAsync(new Uint8Array([1, 2, 3]), { digest: native(calls) })).rejects.toBeInstanceOf(BlobError);
    expect(calls).toHaveLength(0);
  });
});

describe("the Node loaders share the prepared ontology", () => {
  it("loadGuard twice on one blob gives guards with the same tables object", async () => {
    const blob = fresh();
    const a = await loadGuard({ blob, state: new LayerB() });
    const b = await loadGuard({ blob, state: new LayerB() });
    expect(b.tables).toBe(a.tables);
    expect((await loadVerifier({ blob })).tables).toBe(a.tables);
  });

  it("a corrupt blob is still a typed invalid-ontology error from loadGuard", async () => {
    const blob = fresh();
    blob[blob.length - 1] ^= 0xff;
    await expect(loadGuard({ blob, state: new LayerB() })).rejects.toMatchObject({ name: "GuardError", code: "invalid-ontology" });
  });
});

// Approval tokens (src/guard/approval.ts): bound to the call's canonical hash, the Layer B digest and
// the ontology hash; any change of one of them, of the token's fields or of its MAC is refused.
import { describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { callHash, checkApproval, decodeApproval, encodeApproval, hmacSha256Hex, issueApproval } from "../../src/guard/approval.js";

const H = (c: string): string => c.repeat(64);
const judged = { call: { name: "delete_entities", arguments: { entityNames: ["bob"], n: 1 } }, stateDigest: H("a"), ontologyHash: H("b"), seq: 4 };

describe("approval tokens", () => {
  it("checks against the same call and state, whatever the key order of the arguments", () => {
    const t = issueApproval(judged);
    expect(checkApproval(t, { ...judged, call: { name: "delete_entities", arguments: { n: 1, entityNames: ["bob"] } } })).toEqual({ ok: true });
  });

  it("refuses changed arguments, a changed state, another ontology", () => {
    const t = issueApproval(judged);
    expect(checkApproval(t, { ...judged, call: { name: "delete_entities", arguments: { entityNames: ["alice"], n: 1 } } })).toMatchObject({ ok: false, reason: "call-changed" });
    expect(checkApproval(t, { ...judged, call: { name: "create_entities", arguments: judged.call.arguments } })).toMatchObject({ ok: false, reason: "call-changed" });
    expect(checkApproval(t, { ...judged, stateDigest: H("c") })).toMatchObject({ ok: false, reason: "state-changed" });
    expect(checkApproval(t, { ...judged, ontologyHash: H("d") })).toMatchObject({ ok: false, reason: "ontology-changed" });
  });

  it("refuses an edited token (the MAC covers every field) and a malformed one", () => {
    const t = issueApproval(judged);
    expect(checkApproval({ ...t, stateDigest: H("c") }, { ...judged, stateDigest: H("c") })).toMatchObject({ ok: false, reason: "bad-mac" });
    expect(checkApproval({ ...t, by: "operator" }, judged)).toMatchObject({ ok: false, reason: "bad-mac" });
    for (const bad of [null, 1, "x", {}, { ...t, format: "polar-approval/0" }, { ...t, mac: "zz" }, { ...t, seq: 1.5 }]) {
      expect(checkApproval(bad, judged)).toMatchObject({ ok: false, reason: "malformed-token" });
    }
  });

  it("with a key, a token only checks under the same key", () => {
    const key = new TextEncoder().encode("operator secret");
    const t = issueApproval(judged, { key, by: "operator:alice" });
    expect(checkApproval(t, judged, { key })).toEqual({ ok: true });
    expect(checkApproval(t, judged)).toMatchObject({ ok: false, reason: "bad-mac" });
    expect(checkApproval(t, judged, { key: new TextEncoder().encode("other") })).toMatchObject({ ok: false, reason: "bad-mac" });
  });

  it("HMAC-SHA-256 agrees with node:crypto (short, block-sized and long keys)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), fc.string({ maxLength: 300 }), (key, msg) => {
        expect(hmacSha256Hex(key, msg)).toBe(createHmac("sha256", key).update(msg, "utf8").digest("hex"));
      }),
      { seed: 1414, numRuns: 200 },
    );
  });

  it("encodes to one opaque string and back; anything else decodes to null", () => {
    const t = issueApproval(judged);
    const text = encodeApproval(t);
    expect(text).toMatch(/^pa1\.[A-Za-z0-9_-]+$/);
    expect(decodeApproval(text)).toEqual(t);
    for (const bad of [undefined, 3, "", "pa1.", "pa1.!!", `pa1.${btoa("{}")}`, text.slice(0, -4), "pa2." + text.slice(4)]) expect(decodeApproval(bad)).toBeNull();
  });

  it("the call hash is the SHA-256 of the canonical call and refuses what is not JSON", () => {
    expect(callHash({ name: "a", arguments: { x: 1, y: [true] } })).toBe(callHash({ arguments: { y: [true], x: 1 }, name: "a" }));
    expect(() => callHash({ name: "a", arguments: { x: Number.NaN } })).toThrow();
    expect(checkApproval(issueApproval(judged), { ...judged, call: { name: "delete_entities", arguments: { f: () => 1 } } })).toMatchObject({ ok: false, reason: "call-changed" });
  });
});

// Approval tokens (src/guard/approval.ts): bound to the call's canonical hash, the Layer B digest and
// the ontology hash; any change of one of them, of the token's fields or of its MAC is refused.
import { describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { callHash, checkApproval, decodeApproval, encodeApproval, issueApproval } from "../../src/guard/approval.js";
import { hmacSha256Hex } from "../../src/util/hmac.js";
import { canonicalJson } from "../../src/projection/canonical.js";

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

describe("approval tokens: what they hold and what a refusal says", () => {
  it("a token names the format, who approved (default `user`), the decision's seq (0 without one) and the three hashes", () => {
    expect(issueApproval(judged)).toEqual({
      format: "polar-approval/1",
      by: "user",
      seq: 4,
      callHash: callHash(judged.call),
      stateDigest: H("a"),
      ontologyHash: H("b"),
      mac: expect.stringMatching(/^[0-9a-f]{64}$/u),
    });
    const { seq: _s, ...unnumbered } = judged;
    expect(issueApproval(unnumbered, { by: "operator:alice" })).toMatchObject({ by: "operator:alice", seq: 0 });
    expect(issueApproval({ ...unnumbered, seq: "4" as never }).seq).toBe(0);
  });

  it("a call without arguments (or without a name) hashes as one with `null` there; no call at all as neither", () => {
    expect(callHash({ name: "list_all" })).toBe(callHash({ name: "list_all", arguments: null }));
    expect(callHash({ arguments: { x: 1 } })).toBe(callHash({ name: null, arguments: { x: 1 } }));
    expect(callHash(undefined)).toBe(callHash({ name: null, arguments: null }));
    expect(callHash(null)).toBe(callHash({}));
    expect(callHash({ name: "list_all" })).not.toBe(callHash({ name: "list_all", arguments: {} }));
  });

  it("each refusal says what differs, in one line; the first difference in a fixed order (ontology, call, state)", () => {
    const t = issueApproval(judged);
    const messages = [
      [checkApproval(null, judged), "malformed-token", /^the approval is not a `polar-approval\/1` token$/u],
      [checkApproval({ ...t, by: "x" }, judged), "bad-mac", /^the approval's MAC does not match its contents$/u],
      [checkApproval(t, { ...judged, call: { name: "x", arguments: { n: Number.NaN } } }), "call-changed", /^the call is not JSON, so no approval covers it$/u],
      [checkApproval(t, { ...judged, ontologyHash: H("d"), call: { name: "x" }, stateDigest: H("c") }), "ontology-changed", /^the approval was given under ontology `bbbbbbbbbbbb`, the guard now runs `dddddddddddd`$/u],
      [checkApproval(t, { ...judged, call: { name: "x" }, stateDigest: H("c") }), "call-changed", /^the approval was given for a call with other arguments$/u],
      [checkApproval(t, { ...judged, stateDigest: H("c") }), "state-changed", /^the state the call touches changed since the approval was given$/u],
    ] as const;
    for (const [check, reason, message] of messages) {
      expect(check).toEqual({ ok: false, reason, message: expect.stringMatching(message) });
    }
  });

  it("a token with a field of another type is malformed, even one that prints as a hash or a name; so is a function with a token's fields", () => {
    const t = issueApproval(judged);
    for (const bad of [{ ...t, by: 7 }, { ...t, by: ["user"] }, { ...t, mac: [t.mac] }, { ...t, callHash: [t.callHash] }, { ...t, stateDigest: t.stateDigest.toUpperCase() }, { ...t, ontologyHash: `${t.ontologyHash}0` }, { ...t, ontologyHash: `0${t.ontologyHash}` }, Object.assign(() => 0, t)]) {
      expect(checkApproval(bad, judged)).toMatchObject({ ok: false, reason: "malformed-token" });
    }
  });

  it("every token travels in the URL-safe alphabet without padding and decodes to itself; the standard alphabet is not a token text", () => {
    let otherAlphabet = 0;
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.nat(100_000), (by, seq) => {
        const t = issueApproval({ ...judged, seq }, { by });
        const text = encodeApproval(t);
        expect(text).toMatch(/^pa1\.[A-Za-z0-9_-]+$/u);
        expect(decodeApproval(text)).toEqual(t);
        const standard = text.replace(/-/gu, "+").replace(/_/gu, "/");
        if (standard !== text) {
          otherAlphabet++;
          expect(decodeApproval(standard)).toBeNull();
          expect(decodeApproval(`${standard}=`)).toBeNull();
        }
      }),
      { seed: 2812, numRuns: 300 },
    );
    expect(otherAlphabet).toBeGreaterThan(0);
  });

  it("a text whose bytes are not UTF-8 is no token, even when the rest would be one", () => {
    const t = issueApproval(judged, { by: "X" });
    const bytes = new TextEncoder().encode(canonicalJson(t));
    bytes[bytes.indexOf("X".charCodeAt(0))] = 0xff;
    const text = `pa1.${btoa(String.fromCharCode(...bytes)).replace(/\+/gu, "-").replace(/\//gu, "_").replace(/=+$/u, "")}`;
    expect(decodeApproval(text)).toBeNull();
  });

  it("decoding never throws, whatever it is given", () => {
    for (const v of [null, 3, {}, [], Symbol("s"), "pa1.%%%", "pa1.A", "pa1.AAAAA", `pa1.${"_".repeat(9)}`]) {
      expect(() => decodeApproval(v)).not.toThrow();
      expect(decodeApproval(v)).toBeNull();
    }
  });
});

// Issue 21 item 15: a snapshot can be authenticated and bound to its session (polar-guard/snapshot).
// `sealSnapshot` wraps `guard.snapshot()` with its session and an HMAC-SHA-256 under the host's key;
// `openSnapshot` returns it only if the MAC verifies and the session is the expected one. An edited
// sealed snapshot (an unknown mark dropped, a question rewound) or another session's is a typed error,
// never a guard.
import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createMemorySink } from "../../src/audit/index.js";
import { createGuard, GuardError, type GuardOptions, type GuardSnapshot } from "../../src/guard/index.js";
import { openSnapshot, SEALED_SNAPSHOT_FORMAT, sealSnapshot, type SealedSnapshot } from "../../src/guard/seal.js";
import { canonicalJson } from "../../src/projection/canonical.js";
import { CALLS, sha256 } from "../fuzz/targets/lifecycle-session.js";
import { airline, airlineRules, airlineState, NOW, referenceFactory } from "./helpers.js";

const KEY = "the host's secret, 32 bytes long";
const OTHER_KEY = new TextEncoder().encode("another host's secret, not ours!");
const S1 = { key: KEY, session: "s-1" };

function options(): GuardOptions {
  return { ontology: airline.blob, backend: referenceFactory, state: airlineState(), policy: "escalate", scope: "session", config: { now: NOW, projection: airlineRules, log: createMemorySink({ sha256 }), sha256 } };
}

/** A guard that asked about a cabin change, then marked user `mia` unknown (a booking whose result it
 * could not read): both are in its snapshot, and both change later decisions. */
function snapshot(): GuardSnapshot {
  const g = createGuard(options());
  expect(g.check(CALLS[2]).route).toBe("ConsentEscalated");
  const booked = g.check(CALLS[6]);
  g.observe(CALLS[6], "Reservation booked.", { execution: booked.execution! });
  const snap = g.snapshot();
  expect(snap.unknown).toHaveLength(1);
  expect(snap.questions).toHaveLength(1);
  return snap;
}

/** Sealed, through JSON as a store keeps it. */
function stored(session = "s-1", key: Uint8Array | string = KEY): SealedSnapshot {
  return JSON.parse(JSON.stringify(sealSnapshot(snapshot(), { key, session }))) as SealedSnapshot;
}

function refused(sealed: unknown, code: string, opts = S1): GuardError {
  try {
    openSnapshot(sealed, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(GuardError);
    expect((e as GuardError).code).toBe(code);
    expect((e as GuardError).message).not.toMatch(/\n/u);
    return e as GuardError;
  }
  throw new Error("expected a refusal");
}

describe("a sealed snapshot", () => {
  it("opens under the same key and session, and the resumed guard goes on as the original", () => {
    const sealed = stored();
    expect(sealed).toMatchObject({ format: SEALED_SNAPSHOT_FORMAT, session: "s-1" });
    // Any HMAC-SHA-256 checks it: over the canonical JSON of everything but the MAC.
    const { mac, ...rest } = sealed;
    expect(mac).toBe(createHmac("sha256", KEY).update(canonicalJson(rest)).digest("hex"));
    expect(JSON.stringify(sealed)).not.toContain(KEY);
    const snap = openSnapshot(sealed, S1);
    expect(snap).toEqual(snapshot());
    const g = createGuard({ ...options(), resume: snap });
    expect(g.check(CALLS[7])).toMatchObject({ approved: false, reason: "unknown_state" });
    // A Uint8Array key and the host's SHA-256 open it too.
    const native = (d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest());
    expect(openSnapshot(sealed, { key: new TextEncoder().encode(KEY), session: "s-1", sha256: native })).toEqual(snap);
  });

  it.each([
    ["an unknown mark dropped", (s: SealedSnapshot) => ({ ...s, snapshot: { ...s.snapshot, unknown: [] } })],
    ["a question rewound (asked later)", (s: SealedSnapshot) => ({ ...s, snapshot: { ...s.snapshot, questions: s.snapshot.questions.map((q) => ({ ...q, asked: q.asked + 5 })) } })],
    ["a question removed", (s: SealedSnapshot) => ({ ...s, snapshot: { ...s.snapshot, questions: [] } })],
    ["seq moved on", (s: SealedSnapshot) => ({ ...s, snapshot: { ...s.snapshot, seq: s.snapshot.seq + 1 } })],
    ["its session renamed to the expected one", (s: SealedSnapshot) => ({ ...s, session: "s-1" })],
    ["its MAC flipped", (s: SealedSnapshot) => ({ ...s, mac: (s.mac[0] === "0" ? "1" : "0") + s.mac.slice(1) })],
  ])("edited (%s) is refused: snapshot-not-authentic", (what, edit) => {
    const sealed = stored(what.startsWith("its session") ? "s-9" : "s-1");
    const e = refused(edit(sealed), "snapshot-not-authentic");
    expect(e.message).toBe("the sealed snapshot's `mac` does not verify: it was changed after it was sealed, or sealed with another key");
  });

  it("sealed with another key, unsealed, or not a sealed snapshot at all, is refused", () => {
    refused(stored("s-1", OTHER_KEY), "snapshot-not-authentic");
    const plain = snapshot();
    expect(refused(plain, "snapshot-not-authentic").message).toMatch(/^the sealed snapshot has the keys/u);
    const { mac: _m, ...unsigned } = stored();
    refused(unsigned, "snapshot-not-authentic");
    for (const junk of [null, [], "x", 5, { ...stored(), format: "polar-guard-sealed-snapshot/0" }, { ...stored(), mac: "XYZ" }]) refused(junk, "snapshot-not-authentic");
    refused({ ...stored(), snapshot: { n: Number.NaN } }, "snapshot-not-authentic");
  });

  it("another session's snapshot (same key) is refused: snapshot-other-session", () => {
    expect(refused(stored("s-2"), "snapshot-other-session").message).toBe("the snapshot is of session `s-2`: session `s-1` expected");
  });

  it("what it returns is a copy of what the MAC covered: changing the stored object afterwards changes nothing", () => {
    const sealed = stored();
    const snap = openSnapshot(sealed, S1);
    sealed.snapshot.unknown.length = 0;
    expect(snap.unknown).toHaveLength(1);
  });

  it.each([
    ["a short key", { key: "short", session: "s" }],
    ["a key that is not bytes", { key: 12345, session: "s" }],
    ["an empty session", { key: KEY, session: "" }],
    ["a session that is not a string", { key: KEY, session: 7 }],
  ])("%s is invalid-config, sealing or opening", (_what, opts) => {
    expect(() => sealSnapshot(snapshot(), opts as never)).toThrow(expect.objectContaining({ code: "invalid-config" }));
    expect(() => openSnapshot(stored(), opts as never)).toThrow(expect.objectContaining({ code: "invalid-config" }));
  });
});

describe("an unsealed snapshot", () => {
  it("is trusted as its storage is: an edit that keeps the shape resumes and changes decisions (what sealing is for)", () => {
    const snap = snapshot();
    expect(createGuard({ ...options(), resume: { ...snap, unknown: [] } }).check(CALLS[7]).reason).not.toBe("unknown_state");
    expect(createGuard({ ...options(), resume: snap }).check(CALLS[7]).reason).toBe("unknown_state");
  });
});

describe("what a refusal says (one line: what is wrong, and what to do)", () => {
  it.each([
    ["null", null, /^the sealed snapshot is not an object: what `sealSnapshot` returned expected$/u],
    ["an array", [], /^the sealed snapshot is not an object/u],
    ["a string", "x", /^the sealed snapshot is not an object/u],
    ["a number", 5, /^the sealed snapshot is not an object/u],
    ["another format", { ...stored(), format: "polar-guard-sealed-snapshot/0" }, /^unknown sealed snapshot format `polar-guard-sealed-snapshot\/0`: `polar-guard-sealed-snapshot\/1` expected$/u],
    ["a mac of three letters", { ...stored(), mac: "XYZ" }, /^the sealed snapshot's `mac` is not 64 lower-case hex digits$/u],
    ["an upper-case mac", ((s: SealedSnapshot) => ({ ...s, mac: s.mac.toUpperCase() }))(stored()), /is not 64 lower-case hex digits$/u],
    ["a mac one digit too long", ((s: SealedSnapshot) => ({ ...s, mac: `${s.mac}0` }))(stored()), /is not 64 lower-case hex digits$/u],
    ["a mac with a digit before it", ((s: SealedSnapshot) => ({ ...s, mac: `0${s.mac}` }))(stored()), /is not 64 lower-case hex digits$/u],
    ["a mac that is not a string", { ...stored(), mac: 64 }, /is not 64 lower-case hex digits$/u],
    ["a snapshot that is not JSON data", { ...stored(), snapshot: { n: Number.NaN } }, /^the sealed snapshot is not JSON data: /u],
  ])("%s: snapshot-not-authentic, with why", (_what, sealed, message) => {
    const e = refused(sealed, "snapshot-not-authentic");
    expect(e.message).toMatch(message);
    expect(e.help).toBe("open only what `sealSnapshot` wrote, with the same key");
  });

  it("another session's: what to do instead", () => {
    expect(refused(stored("s-2"), "snapshot-other-session").help).toBe("resume each session from its own snapshot");
  });

  it.each([
    ["no options", undefined, /^sealing needs `\{ key, session \}`$/u],
    ["null options", null, /^sealing needs `\{ key, session \}`$/u],
    ["a key of 15 bytes", { key: "fifteen bytes!!", session: "s" }, /^the snapshot `key` is not a secret of at least 16 bytes/u],
    ["a session of 257 characters", { key: KEY, session: "s".repeat(257) }, /^the snapshot `session` is not a string of 1 to 256 characters$/u],
    ["a sha256 that is not a function", { key: KEY, session: "s", sha256: "sha256" }, /^`sha256` is not a function$/u],
  ])("%s is invalid-config, with why", (_what, opts, message) => {
    for (const f of [() => sealSnapshot(snapshot(), opts as never), () => openSnapshot(stored(), opts as never)]) {
      expect(f).toThrow(expect.objectContaining({ name: "GuardError", code: "invalid-config", message: expect.stringMatching(message) }));
    }
  });

  it("the bounds are inclusive: a key of exactly 16 bytes and a session of 256 characters seal and open", () => {
    const opts = { key: "sixteen bytes!!!", session: "s".repeat(256) };
    expect(new TextEncoder().encode(opts.key)).toHaveLength(16);
    const sealed = JSON.parse(JSON.stringify(sealSnapshot(snapshot(), opts))) as SealedSnapshot;
    expect(openSnapshot(sealed, opts)).toEqual(snapshot());
  });
});

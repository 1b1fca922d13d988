// `polar-guard/snapshot`: a guard snapshot sealed for storage the host does not fully trust
// (docs/guard.md, "Snapshot and resume"). `sealSnapshot` wraps `guard.snapshot()` with the session it
// belongs to and an HMAC-SHA-256 under the host's secret; `openSnapshot` gives the snapshot back only if
// the MAC verifies (`snapshot-not-authentic`: edited, unsigned, signed with another key) and the
// session is the one expected (`snapshot-other-session`), and then as a fresh copy of exactly the bytes
// the MAC covers. The MAC runs on a synchronous SHA-256 (the library's, or the host's), so Node,
// browsers and workerd seal and open alike. A subpath of its own: the default bundle does not carry it.
import { canonicalJson } from "../projection/canonical.js";
import { hmacSha256Hex, sameHex } from "../util/hmac.js";
import { GuardError } from "./errors.js";
import type { GuardSnapshot } from "./types.js";

export const SEALED_SNAPSHOT_FORMAT = "polar-guard-sealed-snapshot/1";

/** What a host stores: the snapshot, its session, and the MAC over both (and the format). */
export interface SealedSnapshot {
  format: typeof SEALED_SNAPSHOT_FORMAT;
  session: string;
  snapshot: GuardSnapshot;
  /** HMAC-SHA-256 (64 hex digits) of the canonical JSON of `{ format, session, snapshot }`. */
  mac: string;
}

export interface SealOptions {
  /** The host's secret: at least 16 bytes (a string counts its UTF-8 bytes). Never written out. */
  key: Uint8Array | string;
  /** The session the snapshot belongs to (1–256 characters). */
  session: string;
  /** A synchronous SHA-256 (Node: node:crypto's); default the library's JavaScript one. */
  sha256?: (data: Uint8Array) => Uint8Array;
}

function keyOf(options: SealOptions): Uint8Array {
  if (typeof options !== "object" || options === null) throw new GuardError("invalid-config", "sealing needs `{ key, session }`");
  const k = options.key;
  const key = typeof k === "string" ? new TextEncoder().encode(k) : k instanceof Uint8Array ? k : undefined;
  if (key === undefined || key.length < 16) throw new GuardError("invalid-config", "the snapshot `key` is not a secret of at least 16 bytes (a Uint8Array or a string)");
  const s = options.session;
  if (typeof s !== "string" || s.length === 0 || s.length > 256) throw new GuardError("invalid-config", "the snapshot `session` is not a string of 1 to 256 characters");
  if (options.sha256 !== undefined && typeof options.sha256 !== "function") throw new GuardError("invalid-config", "`sha256` is not a function");
  return key;
}

/** The canonical text the MAC covers. */
function covered(session: unknown, snapshot: unknown): string {
  return canonicalJson({ format: SEALED_SNAPSHOT_FORMAT, session, snapshot });
}

/** Seals `guard.snapshot()` for `session` under the host's key. */
export function sealSnapshot(snapshot: GuardSnapshot, options: SealOptions): SealedSnapshot {
  const key = keyOf(options);
  const text = covered(options.session, snapshot);
  const sealed = JSON.parse(text) as SealedSnapshot;
  sealed.mac = hmacSha256Hex(key, text, options.sha256);
  return sealed;
}

function notAuthentic(message: string): never {
  throw new GuardError("snapshot-not-authentic", message, "open only what `sealSnapshot` wrote, with the same key");
}

/** The snapshot a sealed one holds, for `createGuard({ …, resume })`, if its MAC verifies under the
 * key and it belongs to `session`; else a GuardError (`snapshot-not-authentic`,
 * `snapshot-other-session`). Accepts the sealed value as stored (after JSON). */
export function openSnapshot(sealed: unknown, options: SealOptions): GuardSnapshot {
  const key = keyOf(options);
  const v = sealed as Partial<Record<keyof SealedSnapshot, unknown>> | null;
  if (typeof v !== "object" || v === null || Array.isArray(v)) notAuthentic("the sealed snapshot is not an object: what `sealSnapshot` returned expected");
  const keys = Object.keys(v).sort().join(",");
  if (keys !== "format,mac,session,snapshot") notAuthentic(`the sealed snapshot has the keys \`${keys}\`: format, mac, session and snapshot expected`);
  if (v.format !== SEALED_SNAPSHOT_FORMAT) notAuthentic(`unknown sealed snapshot format \`${String(v.format)}\`: \`${SEALED_SNAPSHOT_FORMAT}\` expected`);
  if (typeof v.mac !== "string" || !/^[0-9a-f]{64}$/u.test(v.mac)) notAuthentic("the sealed snapshot's `mac` is not 64 lower-case hex digits");
  let text: string;
  try {
    text = covered(v.session, v.snapshot);
  } catch (e) {
    notAuthentic(`the sealed snapshot is not JSON data: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!sameHex(v.mac, hmacSha256Hex(key, text, options.sha256))) {
    notAuthentic("the sealed snapshot's `mac` does not verify: it was changed after it was sealed, or sealed with another key");
  }
  if (v.session !== options.session) {
    throw new GuardError("snapshot-other-session", `the snapshot is of session \`${String(v.session)}\`: session \`${options.session}\` expected`, "resume each session from its own snapshot");
  }
  // Exactly what the MAC covered, as a copy of its own (nothing read twice from the caller's object).
  return (JSON.parse(text) as { snapshot: GuardSnapshot }).snapshot;
}

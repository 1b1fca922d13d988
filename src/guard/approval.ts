// Approvals bound to the exact call and state. An approval (a user's consent, an operator's sign-off)
// is a token over three hashes: the call's canonical hash, the Layer B digest the verdict read and the
// ontology hash. Checking it against the call about to run, re-judged on a fresh read of the state,
// refuses it when the arguments, the state or the ontology differ from what was approved. Pure
// functions, runtime-neutral; the format is in docs/mcp.md ("Approvals").
import { canonicalJson } from "../projection/canonical.js";
import { hmacSha256Hex, sameHex } from "../util/hmac.js";
import { sha256Hex } from "../util/sha256.js";

export const APPROVAL_FORMAT = "polar-approval/1";
const TEXT_PREFIX = "pa1.";

/** What an approval is bound to. */
export interface ApprovalBinding {
  /** SHA-256 (hex) of the canonical JSON of `{ name, arguments }`. */
  callHash: string;
  /** The decision's `stateDigest`: SHA-256 of the Layer B values its verdict read. */
  stateDigest: string;
  /** SHA-256 of the ontology blob the verdict used. */
  ontologyHash: string;
}

export interface ApprovalToken extends ApprovalBinding {
  format: typeof APPROVAL_FORMAT;
  /** Who approved (e.g. `user:elicitation`, `operator:alice`); part of the MAC. */
  by: string;
  /** The decision's `seq` the approval answers (for the audit trail); part of the MAC. */
  seq: number;
  /** HMAC-SHA-256 (hex) of the other fields under the issuer's key, or their plain SHA-256 without a
   * key (then it only detects accidental edits: anyone can recompute it). */
  mac: string;
}

export type ApprovalRefusal = "malformed-token" | "bad-mac" | "call-changed" | "state-changed" | "ontology-changed";

export type ApprovalCheck = { ok: true } | { ok: false; reason: ApprovalRefusal; message: string };

/** Anything with a call, its state digest and its ontology hash: a Decision has all three. */
export interface Judged {
  call: unknown;
  stateDigest: string;
  ontologyHash: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** SHA-256 (hex) of the canonical JSON of `{ name, arguments }`; throws ProjectionError `not-json`
 * for a call that is not JSON (such a call is never approved). */
export function callHash(call: unknown): string {
  const c = (call ?? {}) as { name?: unknown; arguments?: unknown };
  return sha256Hex(canonicalJson({ name: c.name ?? null, arguments: c.arguments ?? null }));
}

export function bindingOf(judged: Judged): ApprovalBinding {
  return { callHash: callHash(judged.call), stateDigest: judged.stateDigest, ontologyHash: judged.ontologyHash };
}

function macText(t: Omit<ApprovalToken, "mac">): string {
  return canonicalJson({ format: t.format, by: t.by, seq: t.seq, callHash: t.callHash, stateDigest: t.stateDigest, ontologyHash: t.ontologyHash });
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function macOf(t: Omit<ApprovalToken, "mac">, key: Uint8Array | undefined): string {
  return key === undefined ? sha256Hex(macText(t)) : hmacSha256Hex(key, macText(t));
}

export interface IssueOptions {
  by?: string;
  /** The issuer's secret; the same key must check the token. */
  key?: Uint8Array;
}

/** An approval of exactly this judged call (a Decision: its `call`, `stateDigest`, `ontologyHash`). */
export function issueApproval(judged: Judged & { seq?: number }, options: IssueOptions = {}): ApprovalToken {
  const body = {
    format: APPROVAL_FORMAT,
    by: options.by ?? "user",
    seq: typeof judged.seq === "number" ? judged.seq : 0,
    ...bindingOf(judged),
  } as const;
  return { ...body, mac: macOf(body, options.key) };
}

function wellFormed(t: unknown): t is ApprovalToken {
  if (typeof t !== "object" || t === null) return false;
  const o = t as Record<string, unknown>;
  return o.format === APPROVAL_FORMAT && typeof o.by === "string" && Number.isInteger(o.seq) &&
    [o.callHash, o.stateDigest, o.ontologyHash, o.mac].every((h) => typeof h === "string" && HEX64.test(h));
}

/** Checks an approval against the call about to run, judged on the state as it is now. The order of
 * the checks is fixed, so the reason names the first thing that differs. */
export function checkApproval(token: unknown, current: Judged, options: { key?: Uint8Array } = {}): ApprovalCheck {
  if (!wellFormed(token)) return { ok: false, reason: "malformed-token", message: "the approval is not a `polar-approval/1` token" };
  const { mac, ...body } = token;
  if (!sameHex(macOf(body, options.key), mac)) return { ok: false, reason: "bad-mac", message: "the approval's MAC does not match its contents" };
  let now: ApprovalBinding;
  try {
    now = bindingOf(current);
  } catch {
    return { ok: false, reason: "call-changed", message: "the call is not JSON, so no approval covers it" };
  }
  if (now.ontologyHash !== token.ontologyHash) return { ok: false, reason: "ontology-changed", message: `the approval was given under ontology \`${token.ontologyHash.slice(0, 12)}\`, the guard now runs \`${now.ontologyHash.slice(0, 12)}\`` };
  if (now.callHash !== token.callHash) return { ok: false, reason: "call-changed", message: "the approval was given for a call with other arguments" };
  if (now.stateDigest !== token.stateDigest) return { ok: false, reason: "state-changed", message: "the state the call touches changed since the approval was given" };
  return { ok: true };
}

function b64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  // Base64 has `=` only as padding, at the end.
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, "");
}

/** The bytes of a base64url text (no padding: atob takes it without, in every runtime); throws on any
 * other text. */
function fromB64url(text: string): Uint8Array {
  // Thrown for decodeApproval's catch, which answers null.
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new SyntaxError();
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** `pa1.<base64url of the token's canonical JSON>`: one opaque string to carry in a header or _meta. */
export function encodeApproval(token: ApprovalToken): string {
  return TEXT_PREFIX + b64url(utf8(canonicalJson(token)));
}

/** The token in an `encodeApproval` text, or null when it is not one (never throws). */
export function decodeApproval(text: unknown): ApprovalToken | null {
  if (typeof text !== "string" || !text.startsWith(TEXT_PREFIX)) return null;
  try {
    const bytes = fromB64url(text.slice(TEXT_PREFIX.length));
    const t: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return wellFormed(t) ? t : null;
  } catch {
    return null;
  }
}

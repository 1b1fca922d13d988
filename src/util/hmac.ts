// HMAC-SHA-256 (RFC 2104) over a synchronous SHA-256: the library's own (src/util/sha256.ts) or the
// host's, so it runs alike in Node, browsers and workerd without WebCrypto's promises.
import { sha256 as jsSha256, toHex } from "./sha256.js";

const BLOCK = 64;

/** The MAC of `message` (its UTF-8 bytes) under `key`, as 64 lower-case hex digits. */
export function hmacSha256Hex(key: Uint8Array, message: string, sha256: (data: Uint8Array) => Uint8Array = jsSha256): string {
  const k = new Uint8Array(BLOCK);
  k.set(key.length > BLOCK ? sha256(key) : key);
  const msg = new TextEncoder().encode(message);
  const inner = new Uint8Array(BLOCK + msg.length);
  const outer = new Uint8Array(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = k[i] ^ 0x36;
    outer[i] = k[i] ^ 0x5c;
  }
  inner.set(msg, BLOCK);
  outer.set(sha256(inner), BLOCK);
  return toHex(sha256(outer));
}

/** Equal hex texts, compared in time independent of where they differ. */
export function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

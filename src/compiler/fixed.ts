// Decimal text to fixed point (FIXED_ONE = 10^6) without floating point: the digits are read as an
// integer, so "0.95" is exactly 950000 and "0.1" exactly 100000.
import { FIXED_ONE } from "../abi.js";

export const FIXED_DECIMALS = 6;
const ONE = BigInt(FIXED_ONE);

export type FixedResult = { ok: true; value: bigint } | { ok: false; reason: "too-many-decimals" };

/** `text` is the lexer's number text (`[0-9]+(\.[0-9]+)?`), unsigned. */
export function parseFixed(text: string, negative = false): FixedResult {
  const [int, frac = ""] = text.split(".");
  if (frac.length > FIXED_DECIMALS) return { ok: false, reason: "too-many-decimals" };
  const scaled = BigInt(int) * ONE + BigInt(frac.padEnd(FIXED_DECIMALS, "0"));
  return { ok: true, value: negative ? -scaled : scaled };
}

export const I64_MIN = -(1n << 63n);
export const I64_MAX = (1n << 63n) - 1n;

export function fitsI64(v: bigint): boolean {
  return v >= I64_MIN && v <= I64_MAX;
}

/** Per-step phi of a T3 edge: floor(w * (ONE - wl) / ONE), in integers (docs/semantics.md). */
export function compensatedPhi(w: number, lossWeight: number): number {
  return Number((BigInt(w) * (ONE - BigInt(lossWeight))) / ONE);
}

/** Canonical decimal text of a number literal for JSON: no leading zeros, fraction as written. */
export function jsonNumberText(text: string, negative: boolean): string {
  const [int, frac] = text.split(".");
  const body = (int.replace(/^0+(?=\d)/, "")) + (frac !== undefined ? "." + frac : "");
  return negative && /[1-9]/.test(body) ? "-" + body : body;
}

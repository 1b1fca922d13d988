// Bound programs, interpreted plainly (docs/semantics.md, "Bound programs"). Values are tagged; numbers
// are fixed-point i64 held as BigInt and wrapped to 64 bits after every sum, exactly like the core's
// i64 arithmetic. Logic is Kleene three-valued, with Missing standing for UNKNOWN.
import { FIXED_ONE, MAX_STACK, Op, ValueTag } from "../abi.js";
import type { OntologyTables } from "../ontology/tables.js";
import type { Value } from "./input.js";

const TRUE: Value = { tag: ValueTag.Bool, value: 1n };
const FALSE: Value = { tag: ValueTag.Bool, value: 0n };
const UNKNOWN: Value = { tag: ValueTag.Missing, value: 0n };

function bool(b: boolean): Value {
  return b ? TRUE : FALSE;
}

function isTrue(v: Value): boolean {
  return v.tag === ValueTag.Bool && v.value !== 0n;
}

function isFalse(v: Value): boolean {
  return v.tag === ValueTag.Bool && v.value === 0n;
}

/** `Eq`: either side Missing is UNKNOWN; different tags are unequal; Null equals Null. */
function equal(a: Value, b: Value): Value {
  if (a.tag === ValueTag.Missing || b.tag === ValueTag.Missing) return UNKNOWN;
  if (a.tag !== b.tag) return FALSE;
  if (a.tag === ValueTag.Null) return TRUE;
  return bool(a.value === b.value);
}

function not(v: Value): Value {
  if (isTrue(v)) return FALSE;
  if (isFalse(v)) return TRUE;
  return UNKNOWN;
}

/** `Lt`/`Le`/`Gt`/`Ge`: only two Numbers compare; anything else is UNKNOWN. */
function order(a: Value, b: Value, holds: (x: bigint, y: bigint) => boolean): Value {
  if (a.tag !== ValueTag.Number || b.tag !== ValueTag.Number) return UNKNOWN;
  return bool(holds(a.value, b.value));
}

/** `Add`/`Sub`: wrapping i64 arithmetic on two Numbers, Missing otherwise. */
function arith(a: Value, b: Value, f: (x: bigint, y: bigint) => bigint): Value {
  if (a.tag !== ValueTag.Number || b.tag !== ValueTag.Number) return UNKNOWN;
  return { tag: ValueTag.Number, value: BigInt.asIntN(64, f(a.value, b.value)) };
}

/** `Mul`: floor(a * b / ONE) of the product wrapped to i64, exactly as the core's i64 arithmetic. */
function fixedMul(x: bigint, y: bigint): bigint {
  const p = BigInt.asIntN(64, x * y);
  const one = BigInt(FIXED_ONE);
  let q = p / one;
  if (p % one !== 0n && p < 0n) q -= 1n;
  return q;
}

function and(a: Value, b: Value): Value {
  if (isFalse(a) || isFalse(b)) return FALSE;
  if (!isTrue(a) || !isTrue(b)) return UNKNOWN;
  return TRUE;
}

function or(a: Value, b: Value): Value {
  if (isTrue(a) || isTrue(b)) return TRUE;
  if (!isFalse(a) || !isFalse(b)) return UNKNOWN;
  return FALSE;
}

function binary(op: Op, a: Value, b: Value): Value | null {
  switch (op) {
    case Op.Eq: return equal(a, b);
    case Op.Ne: return not(equal(a, b));
    case Op.Lt: return order(a, b, (x, y) => x < y);
    case Op.Le: return order(a, b, (x, y) => x <= y);
    case Op.Gt: return order(a, b, (x, y) => x > y);
    case Op.Ge: return order(a, b, (x, y) => x >= y);
    case Op.And: return and(a, b);
    case Op.Or: return or(a, b);
    case Op.Add: return arith(a, b, (x, y) => x + y);
    case Op.Sub: return arith(a, b, (x, y) => x - y);
    case Op.Mul: return arith(a, b, fixedMul);
    case Op.Max: return arith(a, b, (x, y) => (x > y ? x : y));
    case Op.Min: return arith(a, b, (x, y) => (x < y ? x : y));
    case Op.Coalesce: return a.tag === ValueTag.Missing || a.tag === ValueTag.Null ? b : a;
    default: return null;
  }
}

export type Truth = "true" | "false" | "unknown";

/**
 * The three-valued result of condition program `p` for this call: "true" or "false" when it leaves
 * exactly that Bool, "unknown" otherwise. `operands` are the call's own operand values (already offset
 * by the call's operand_start). A malformed program (unknown opcode, stack under- or overflow,
 * out-of-range reference) is "unknown": a positive edge's condition then fails closed, and a
 * fail-closed edge still applies.
 */
export function conditionValue(tables: OntologyTables, p: number, operands: Value[], now: bigint): Truth {
  const v = programValue(tables, p, operands, now);
  return isTrue(v) ? "true" : isFalse(v) ? "false" : "unknown";
}

/** The one value program `p` leaves (an amount program's result); Missing when it is malformed. */
export function programValue(tables: OntologyTables, p: number, operands: Value[], now: bigint): Value {
  const program = tables.programs[p];
  if (program === undefined) return UNKNOWN;
  const stack: Value[] = [];
  for (const word of program.code) {
    const op = word & 0xff;
    const arg = word >>> 8;
    if (op === Op.Const) {
      const c = tables.constants[arg];
      if (c === undefined) return UNKNOWN;
      stack.push({ tag: c.tag, value: c.value });
    } else if (op === Op.Operand) {
      const v = operands[arg];
      if (v === undefined) return UNKNOWN;
      stack.push(v);
    } else if (op === Op.Now) {
      stack.push({ tag: ValueTag.Number, value: now });
    } else if (op === Op.Not) {
      const a = stack.pop();
      if (a === undefined) return UNKNOWN;
      stack.push(not(a));
    } else {
      const b = stack.pop();
      const a = stack.pop();
      if (a === undefined || b === undefined) return UNKNOWN;
      const r = binary(op, a, b);
      if (r === null) return UNKNOWN;
      stack.push(r);
    }
    if (stack.length > MAX_STACK) return UNKNOWN;
  }
  if (stack.length !== 1) return UNKNOWN;
  return stack[0];
}

/** True when program `p` leaves exactly Bool TRUE (a positive edge's condition holds). */
export function boundHolds(tables: OntologyTables, p: number, operands: Value[], now: bigint): boolean {
  return conditionValue(tables, p, operands, now) === "true";
}

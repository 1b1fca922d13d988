// Bound programs (docs/semantics.md, "Bound programs"): a straight-line stack machine over tagged
// values with Kleene three-valued logic, Missing standing for UNKNOWN. The value stack is a static
// region of MAX_STACK entries. A malformed program (unknown opcode, stack under- or overflow, a
// constant or operand out of range) never holds: the bound fails closed, exactly like the reference.
import {
  CONST_SIZE,
  FIXED_ONE,
  MAX_STACK,
  OPERAND_VALUE_SIZE,
  Op,
  PROGRAM_SIZE,
  ValueTag,
} from "../src/abi";
import { codeBase, constCount, constsBase, programsBase, STACK_TAG, STACK_VAL } from "./memory";

// The result of one operation, set by the helpers below (two globals instead of a returned object).
let resTag: i32 = 0;
let resVal: i64 = 0;

@inline function setResult(tag: i32, val: i64): void {
  resTag = tag;
  resVal = val;
}

@inline function setBool(b: bool): void {
  setResult(ValueTag.Bool, b ? 1 : 0);
}

@inline function isTrue(tag: i32, val: i64): bool {
  return tag == ValueTag.Bool && val != 0;
}

@inline function isFalse(tag: i32, val: i64): bool {
  return tag == ValueTag.Bool && val == 0;
}

/** Eq: Missing on either side is UNKNOWN; different tags are unequal; Null equals Null. */
@inline function equal(at: i32, av: i64, bt: i32, bv: i64): void {
  if (at == ValueTag.Missing || bt == ValueTag.Missing) setResult(ValueTag.Missing, 0);
  else if (at != bt) setBool(false);
  else if (at == ValueTag.Null) setBool(true);
  else setBool(av == bv);
}

/** Not of the current result: TRUE and FALSE swap, anything else is UNKNOWN. */
@inline function negateResult(): void {
  if (isTrue(resTag, resVal)) setBool(false);
  else if (isFalse(resTag, resVal)) setBool(true);
  else setResult(ValueTag.Missing, 0);
}

/** Fixed-point product floor(a * b / ONE), the product wrapping to i64 (docs/semantics.md). */
@inline function fixedMul(a: i64, b: i64): i64 {
  const p = a * b;
  let q = p / <i64>FIXED_ONE;
  if (p % <i64>FIXED_ONE != 0 && p < 0) q -= 1;
  return q;
}

/** Applies binary opcode `op`; false for an opcode that is not binary. */
function binary(op: u32, at: i32, av: i64, bt: i32, bv: i64): bool {
  const numbers = at == ValueTag.Number && bt == ValueTag.Number;
  switch (op) {
    case Op.Eq: equal(at, av, bt, bv); break;
    case Op.Ne: equal(at, av, bt, bv); negateResult(); break;
    case Op.Lt: if (numbers) setBool(av < bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Le: if (numbers) setBool(av <= bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Gt: if (numbers) setBool(av > bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Ge: if (numbers) setBool(av >= bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Add: if (numbers) setResult(ValueTag.Number, av + bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Sub: if (numbers) setResult(ValueTag.Number, av - bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Mul: if (numbers) setResult(ValueTag.Number, fixedMul(av, bv)); else setResult(ValueTag.Missing, 0); break;
    case Op.Max: if (numbers) setResult(ValueTag.Number, av > bv ? av : bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Min: if (numbers) setResult(ValueTag.Number, av < bv ? av : bv); else setResult(ValueTag.Missing, 0); break;
    case Op.Coalesce: if (at == ValueTag.Missing || at == ValueTag.Null) setResult(bt, bv); else setResult(at, av); break;
    case Op.And: {
      if (isFalse(at, av) || isFalse(bt, bv)) setBool(false);
      else if (!isTrue(at, av) || !isTrue(bt, bv)) setResult(ValueTag.Missing, 0);
      else setBool(true);
      break;
    }
    case Op.Or: {
      if (isTrue(at, av) || isTrue(bt, bv)) setBool(true);
      else if (!isFalse(at, av) || !isFalse(bt, bv)) setResult(ValueTag.Missing, 0);
      else setBool(false);
      break;
    }
    default: return false;
  }
  return true;
}

export const COND_FALSE: i32 = 0;
export const COND_TRUE: i32 = 1;
export const COND_UNKNOWN: i32 = 2;

/**
 * The three-valued result of condition program `program`: COND_TRUE or COND_FALSE when it leaves
 * exactly that Bool, COND_UNKNOWN otherwise (any other value, or a malformed program). `operands` points
 * at the call's first operand value in the input record; `operandCount` is its tool's operand count;
 * `now` is the input's now. The program index and its code range were checked against the blob by load().
 */
export function conditionValue(program: i32, operands: usize, operandCount: u32, now: i64): i32 {
  if (!run(program, operands, operandCount, now)) return COND_UNKNOWN;
  return isTrue(resTag, resVal) ? COND_TRUE : isFalse(resTag, resVal) ? COND_FALSE : COND_UNKNOWN;
}

// The value an amount program left (valueTag, valueVal), set by programValue.
export let valueTag: i32 = 0;
export let valueVal: i64 = 0;

/** Runs program `program` and leaves its one value in (valueTag, valueVal); Missing when malformed. */
export function programValue(program: i32, operands: usize, operandCount: u32, now: i64): void {
  if (run(program, operands, operandCount, now)) {
    valueTag = resTag;
    valueVal = resVal;
  } else {
    valueTag = ValueTag.Missing;
    valueVal = 0;
  }
}

/** Runs a program; true with its single value in (resTag, resVal), false when it is malformed. */
function run(program: i32, operands: usize, operandCount: u32, now: i64): bool {
  const rec = programsBase + <usize>program * PROGRAM_SIZE; // Programs[program]
  let pc = codeBase + (<usize>load<u32>(rec) << 2); //         Code[start]
  const end = pc + (<usize>load<u32>(rec, 4) << 2); //         Code[start + length]
  let sp: i32 = 0; // entries on the stack
  while (pc < end) {
    const word = load<u32>(pc);
    pc += 4;
    const op = word & 0xff;
    const arg = word >>> 8;
    if (op == Op.Const || op == Op.Operand || op == Op.Now) {
      if (sp >= MAX_STACK) return false;
      let tag: i32 = ValueTag.Number;
      let val: i64 = now;
      if (op == Op.Const) {
        if (arg >= constCount) return false;
        const c = constsBase + <usize>arg * CONST_SIZE; // Constants[arg]: i32 tag, i32 0, i64 value
        tag = load<i32>(c);
        val = load<i64>(c, 8);
      } else if (op == Op.Operand) {
        if (arg >= operandCount) return false;
        const v = operands + <usize>arg * OPERAND_VALUE_SIZE; // operands[call.operand_start + arg]
        tag = load<i32>(v);
        val = load<i64>(v, 8);
      }
      store<i32>(STACK_TAG + (<usize>sp << 2), tag); // STACK_TAG[sp]
      store<i64>(STACK_VAL + (<usize>sp << 3), val); // STACK_VAL[sp]
      sp++;
    } else if (op == Op.Not) {
      if (sp < 1) return false;
      const t = STACK_TAG + (<usize>(sp - 1) << 2); // STACK_TAG[sp - 1]
      const v = STACK_VAL + (<usize>(sp - 1) << 3); // STACK_VAL[sp - 1]
      setResult(load<i32>(t), load<i64>(v));
      negateResult();
      store<i32>(t, resTag);
      store<i64>(v, resVal);
    } else {
      if (sp < 2) return false;
      const ta = STACK_TAG + (<usize>(sp - 2) << 2); // STACK_TAG[sp - 2]: left operand, result slot
      const va = STACK_VAL + (<usize>(sp - 2) << 3); // STACK_VAL[sp - 2]
      const tb = ta + 4; //                             STACK_TAG[sp - 1]: right operand
      const vb = va + 8; //                             STACK_VAL[sp - 1]
      if (!binary(op, load<i32>(ta), load<i64>(va), load<i32>(tb), load<i64>(vb))) return false;
      store<i32>(ta, resTag);
      store<i64>(va, resVal);
      sp--;
    }
  }
  if (sp != 1) return false;
  resTag = load<i32>(STACK_TAG);
  resVal = load<i64>(STACK_VAL);
  return true;
}

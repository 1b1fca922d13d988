// Abstract interpretation of a bound program: the instructions are straight-line (no jumps), so one pass
// that tracks only the stack depth proves what the core relies on without checking at run time: the
// stack never underflows, never grows past the declared depth (nor MAX_STACK), every Const names a
// constant, and the program leaves exactly one value.
import { MAX_PROGRAM_LEN, MAX_STACK, Op } from "../abi.js";

export interface ProgramCheck {
  /** Highest Operand argument used, -1 when the program reads no operand. */
  maxOperand: number;
  /** Deepest stack reached. */
  depth: number;
}

/** Returns null and fills `out` when the program is sound, otherwise a one-line reason. */
export function checkProgram(
  code: Uint32Array,
  start: number,
  length: number,
  declaredMaxStack: number,
  constantCount: number,
  out: ProgramCheck,
): string | null {
  if (length === 0) return "program is empty";
  if (length > MAX_PROGRAM_LEN) return `program has ${length} instructions, at most ${MAX_PROGRAM_LEN} allowed`;
  if (declaredMaxStack > MAX_STACK) return `program declares stack depth ${declaredMaxStack}, at most ${MAX_STACK} allowed`;
  let depth = 0;
  let deepest = 0;
  let maxOperand = -1;
  for (let pc = 0; pc < length; pc++) {
    const word = code[start + pc];
    const op = word & 0xff;
    const arg = word >>> 8;
    const need = operandsNeeded(op);
    if (need < 0) return `instruction ${pc}: unknown opcode ${op}`;
    if (op === Op.Const) {
      if (arg >= constantCount) return `instruction ${pc}: constant ${arg} out of range (${constantCount} constants)`;
    } else if (op === Op.Operand) {
      if (arg > maxOperand) maxOperand = arg;
    } else if (arg !== 0) {
      return `instruction ${pc}: opcode ${op} takes no argument, got ${arg}`;
    }
    if (depth < need) return `instruction ${pc}: stack underflow`;
    depth = depth - need + 1;
    if (depth > deepest) deepest = depth;
    if (depth > declaredMaxStack) return `instruction ${pc}: stack depth ${depth} exceeds the declared ${declaredMaxStack}`;
  }
  if (depth !== 1) return `program leaves ${depth} values on the stack, expected 1`;
  out.maxOperand = maxOperand;
  out.depth = deepest;
  return null;
}

/** How many values the instruction pops (it always pushes one); -1 for an unknown opcode. */
function operandsNeeded(op: number): number {
  switch (op) {
    case Op.Const:
    case Op.Operand:
    case Op.Now:
      return 0;
    case Op.Not:
      return 1;
    case Op.Eq:
    case Op.Ne:
    case Op.Lt:
    case Op.Le:
    case Op.Gt:
    case Op.Ge:
    case Op.And:
    case Op.Or:
    case Op.Add:
    case Op.Sub:
    case Op.Mul:
    case Op.Max:
    case Op.Min:
    case Op.Coalesce:
      return 2;
    default:
      return -1;
  }
}

// T2 bounds: type-checked and compiled to the core's stack bytecode (src/abi.ts `Op`). Each slot or
// argument a bound reads becomes an operand of the forward tool: the host reads the value once per
// call and the program refers to it by position. Constants are shared by every program.
import { FIXED_ONE, MAX_STACK, Op, OperandKind, SlotType, ValueTag } from "../abi.js";
import type { ConstantTable, ProgramTable } from "../ontology/tables.js";
import { describe, type BinaryOp, type Expr, type Node } from "./ast.js";
import { didYouMean, type Context } from "./context.js";
import { q } from "./diagnostics.js";
import { fitsI64, parseFixed } from "./fixed.js";
import type { Model, ToolDecl } from "./model.js";
import { parseIsoTime } from "./time.js";

/** Static types of bound values. Numbers, datetimes and dates are all Numbers at run time. */
type Kind = "string" | "number" | "datetime" | "date" | "bool" | "null" | "list" | "object" | "unknown";
/** A value's type; `arg` is the argument operand it comes straight from while that operand is untyped,
 * `path` the argument it comes from once typed (for messages). */
interface Ty { kind: Kind; arg: number; path?: string }

const UNKNOWN: Ty = { kind: "unknown", arg: -1 };
const BOOL: Ty = { kind: "bool", arg: -1 };
const NUMBER: Ty = { kind: "number", arg: -1 };

const KIND_OF_SLOT: Record<SlotType, Kind> = {
  [SlotType.String]: "string", [SlotType.Number]: "number", [SlotType.Bool]: "bool",
  [SlotType.Datetime]: "datetime", [SlotType.Date]: "date", [SlotType.List]: "list", [SlotType.Object]: "object",
};
const SLOT_OF_KIND: Partial<Record<Kind, SlotType>> = {
  string: SlotType.String, number: SlotType.Number, bool: SlotType.Bool, datetime: SlotType.Datetime, date: SlotType.Date,
};

const CMP_OP: Record<string, Op> = { "==": Op.Eq, "!=": Op.Ne, "<": Op.Lt, "<=": Op.Le, ">": Op.Gt, ">=": Op.Ge };
const SECONDS: Record<string, number> = { minutes: 60, hours: 3600, days: 86400 };

/** A declared slot's kind; "unknown" for a slot whose declared type was itself an error. */
function kindOfSlot(type: SlotType): Kind {
  return KIND_OF_SLOT[type] ?? "unknown";
}

function isNumeric(k: Kind): boolean {
  return k === "number" || k === "datetime" || k === "date";
}

/** Constants shared by every program, deduplicated by tag and value. */
export class ConstantPool {
  readonly constants: ConstantTable[] = [];
  private readonly index = new Map<string, number>();

  add(tag: ValueTag, value: bigint): number {
    const key = `${tag}:${value}`;
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.constants.length;
      this.constants.push({ tag, value });
      this.index.set(key, i);
    }
    return i;
  }
}

/** Compiles the bound `e` of a T2 annotation on `tool`; null when it is unconditional (`true`) or wrong
 * (then diagnostics say why). `ok` is false when a diagnostic was reported. */
export function compileBound(
  ctx: Context, model: Model, constants: ConstantPool, tool: ToolDecl, e: Expr,
): { ok: boolean; program: ProgramTable | null } {
  return compileCondition(ctx, model, constants, tool, [e]);
}

/** Compiles the conjunction of `parts` (a T2 bound, a `when` condition, required-argument presence
 * checks) into one condition program of an edge on `tool`; a part that is the literal `true` adds
 * nothing, so all-`true` (or no part) is no program. */
export function compileCondition(
  ctx: Context, model: Model, constants: ConstantPool, tool: ToolDecl, parts: readonly Expr[],
): { ok: boolean; program: ProgramTable | null } {
  const live = parts.filter((e) => !(e.kind === "bool" && e.value));
  if (live.length === 0) return { ok: true, program: null };
  const c = new BoundCompiler(ctx, model, constants, tool);
  const before = ctx.diags.count;
  const operandsBefore = tool.operands.length;
  for (const e of live) {
    if (depthOf(e) > ctx.limits.expressionDepth) {
      ctx.report("limit-exceeded", `condition nests deeper than ${ctx.limits.expressionDepth} levels`, e);
      continue;
    }
    const partStart = ctx.diags.count;
    const ty = c.expr(e);
    if (ctx.diags.count === partStart) c.condition(ty, e, "a condition must be true or false, found", "bad-bound-expression");
    if (e !== live[0]) c.and();
  }
  const whole: Node = { start: Math.min(...live.map((e) => e.start)), end: Math.max(...live.map((e) => e.end)) };
  const e = live[0].start === whole.start ? live[0] : whole;
  if (ctx.diags.count === before && c.code.length > ctx.limits.programInstructions) {
    ctx.report("limit-exceeded", `bound compiles to ${c.code.length} instructions, more than ${ctx.limits.programInstructions}`, e);
  }
  if (ctx.diags.count === before && c.maxStack > MAX_STACK) {
    ctx.report("limit-exceeded", `bound needs a stack of ${c.maxStack} values, more than ${MAX_STACK}`, e);
  }
  const maxOperands = ctx.limits.operandsPerTool;
  if (operandsBefore <= maxOperands && tool.operands.length > maxOperands) {
    ctx.report("limit-exceeded", `\`${tool.name}\`'s bounds read more than ${maxOperands} slots and arguments`, e);
  }
  if (ctx.diags.count !== before) return { ok: false, program: null };
  return { ok: true, program: { code: c.code, maxStack: c.maxStack } };
}

/** Compiles an edge's `amount = <expr>` (docs/semantics.md, "Amounts"): a number over the call's
 * arguments and its acts_on entity's slots, with `+ - *`, max, min, coalesce and lookup. */
export function compileAmount(
  ctx: Context, model: Model, constants: ConstantPool, tool: ToolDecl, e: Expr,
): { ok: boolean; program: ProgramTable | null } {
  const c = new BoundCompiler(ctx, model, constants, tool);
  const before = ctx.diags.count;
  if (depthOf(e) > ctx.limits.expressionDepth) {
    ctx.report("limit-exceeded", `amount nests deeper than ${ctx.limits.expressionDepth} levels`, e);
    return { ok: false, program: null };
  }
  const ty = c.expr(e);
  if (ctx.diags.count === before) c.amount(ty, e);
  if (ctx.diags.count === before && c.code.length > ctx.limits.programInstructions) {
    ctx.report("limit-exceeded", `amount compiles to ${c.code.length} instructions, more than ${ctx.limits.programInstructions}`, e);
  }
  if (ctx.diags.count === before && c.maxStack > MAX_STACK) {
    ctx.report("limit-exceeded", `amount needs a stack of ${c.maxStack} values, more than ${MAX_STACK}`, e);
  }
  if (ctx.diags.count !== before) return { ok: false, program: null };
  return { ok: true, program: { code: c.code, maxStack: c.maxStack } };
}

/** Nesting depth, measured without recursion. A chain `a and b and c` (or `a + b - c`) is compiled by a
 * loop, not by recursion, so it counts as one level however long it is. */
function depthOf(root: Expr): number {
  let max = 0;
  const stack: [Expr, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [e, d] = stack.pop()!;
    if (d > max) max = d;
    for (const child of childrenOf(e)) {
      const sameChain = e.kind === "binary" && child === e.left && child.kind === "binary" && chainFamily(child.op) === chainFamily(e.op);
      stack.push([child, sameChain ? d : d + 1]);
    }
  }
  return max;
}

/** Operators whose left-leaning chains are compiled iteratively; null for the others. */
function chainFamily(op: BinaryOp): string | null {
  if (op === "and" || op === "or") return op;
  if (op === "+" || op === "-") return "sum";
  return null;
}

/** The left spine of a chain: `((a op b) op c)` is a, then [(op, b), (op, c)]. */
function spine(e: Expr & { kind: "binary" }): { first: Expr; rest: { op: BinaryOp; right: Expr }[] } {
  const family = chainFamily(e.op);
  const rest: { op: BinaryOp; right: Expr }[] = [];
  let cur: Expr = e;
  while (cur.kind === "binary" && chainFamily(cur.op) === family) {
    rest.push({ op: cur.op, right: cur.right });
    cur = cur.left;
  }
  return { first: cur, rest: rest.reverse() };
}

function childrenOf(e: Expr): Expr[] {
  switch (e.kind) {
    case "binary": return [e.left, e.right];
    case "not": return [e.operand];
    case "in": return [e.subject, ...e.items];
    case "apply": return e.args;
    case "list": return e.items;
    case "object": return e.entries.map((x) => x.value);
    default: return [];
  }
}

class BoundCompiler {
  readonly code: number[] = [];
  maxStack = 0;
  private depth = 0;

  constructor(
    private readonly ctx: Context,
    private readonly model: Model,
    private readonly constants: ConstantPool,
    private readonly tool: ToolDecl,
  ) {}

  expr(e: Expr): Ty {
    switch (e.kind) {
      case "number": return this.number(e);
      case "string": return this.constant(ValueTag.String, BigInt(this.ctx.pool.intern(e.value)), "string");
      case "bool": return this.constant(ValueTag.Bool, e.value ? 1n : 0n, "bool");
      case "null": return this.constant(ValueTag.Null, 0n, "null");
      case "now": this.emit(Op.Now, 0, 1); return { kind: "datetime", arg: -1 };
      case "path": return this.path(e);
      case "apply": return this.apply(e);
      case "binary": return this.binary(e);
      case "not": return this.not(e);
      case "in": return this.membership(e);
      case "ident":
        return this.bad(e, `bare name ${q(e.name)} in a bound`,
          `strings are quoted (\`"${e.name}"\`); slots are \`entity.slot\`; arguments are \`call.${e.name}\``);
      case "list": case "object":
        return this.bad(e, `${describe(e)} cannot be a value in a bound`, "lists appear only after `in`: `x in [\"a\", \"b\"]`");
    }
  }

  /** Checks that a finished expression is a condition (an untyped argument becomes a bool). */
  condition(t: Ty, e: Node, message: string, code: "bad-bound-expression" | "bound-type-mismatch" = "bound-type-mismatch"): void {
    if (t.arg >= 0) this.settle(t.arg, "bool", e);
    else if (t.kind !== "bool" && t.kind !== "unknown") {
      this.ctx.report(code, `${message} a ${t.kind} value`, e, "a bound is true or false: compare values with `==`, `<`, `in`, ...");
    }
  }

  /** Checks that a finished expression is a number (an amount); an untyped argument becomes one. */
  amount(t: Ty, e: Node): void {
    if (t.arg >= 0) this.settle(t.arg, "number", e);
    else if (t.kind !== "number" && t.kind !== "unknown") {
      this.ctx.report("bound-type-mismatch", `an amount is a number, found a ${t.kind} value`, e, "write the money the step leaves different, e.g. `amount = 50 * call.nonfree_baggages`");
    }
  }

  /** Conjoins the two conditions on top of the stack (the parts of one edge's condition). */
  and(): void {
    this.emit(Op.And, 0, -1);
  }

  // ---- leaves -------------------------------------------------------------------------------------

  private number(e: Expr & { kind: "number" }): Ty {
    const r = parseFixed(e.text, e.negative);
    if (!r.ok) return this.report("too-many-decimals", e, `\`${e.text}\` has more than 6 decimals`);
    if (!fitsI64(r.value)) return this.report("number-out-of-range", e, `\`${e.text}\` is too large for a bound`);
    return this.constant(ValueTag.Number, r.value, "number");
  }

  private constant(tag: ValueTag, value: bigint, kind: Kind): Ty {
    this.emit(Op.Const, this.constants.add(tag, value), 1);
    return { kind, arg: -1 };
  }

  private path(e: Expr & { kind: "path" }): Ty {
    const [root, ...rest] = e.parts;
    if (root === "call") return this.argument(e, rest.join("."), OperandKind.ArgValue);
    if (root === "new" || root === "result") {
      return this.bad(e, `\`${e.parts.join(".")}\` is not known before the call runs`, "a bound is decided before the call: use its arguments (`call.x`) and the entity's slots");
    }
    const slot = this.slotRef(e);
    if (slot === null) return UNKNOWN;
    const kind = kindOfSlot(slot.type);
    if (kind === "list" || kind === "object") {
      return this.report("bound-type-mismatch", e, `${kind} slot \`${e.parts.join(".")}\` has no single value`, "use `size(...)` for its length");
    }
    this.emit(Op.Operand, this.operand(OperandKind.SlotValue, slot.index, null, slot.type), 1);
    return { kind, arg: -1 };
  }

  /** `entity.slot` on the tool's acts_on entity, or null after a diagnostic. */
  private slotRef(e: Expr & { kind: "path" }): { index: number; type: SlotType } | null {
    const name = e.parts.join(".");
    const entity = this.model.entities.get(e.parts[0]);
    if (entity === undefined) {
      this.ctx.report("unknown-entity", `unknown entity ${q(e.parts[0])}`, e,
        didYouMean(e.parts[0], [...this.model.entities.keys(), "call"], "slots are `entity.slot`; call arguments are `call.x`"));
      return null;
    }
    if (e.parts.length !== 2) {
      this.ctx.report("bad-bound-expression", `\`${name}\` is not a slot`, e, "a slot reference is `entity.slot`");
      return null;
    }
    const slot = this.model.slots.get(name);
    if (slot === undefined) {
      const known = this.model.slotList().filter((s) => s.entity === entity.index).map((s) => `${e.parts[0]}.${s.name}`);
      this.ctx.report("unknown-slot", `unknown slot \`${name}\``, e, didYouMean(name, known, "declare it with `slot_definition(entity, slot, type).`"));
      return null;
    }
    if (this.tool.actsOn !== entity.index) {
      const actsOn = this.model.entityList().find((x) => x.index === this.tool.actsOn)?.name;
      this.ctx.report("bound-entity-mismatch", `\`${name}\` is not a slot of \`${this.tool.name}\`'s acts_on entity`, e,
        actsOn === undefined ? `declare the entity the tool acts on: \`tool(${this.tool.name}, acts_on = ${e.parts[0]}, key = ...)\`` :
          `\`${this.tool.name}\` acts on \`${actsOn}\`; a bound reads only that entity's slots`);
      return null;
    }
    return { index: slot.index, type: slot.type };
  }

  private argument(e: Node, path: string, kind: OperandKind): Ty {
    if (path === "") return this.bad(e, "`call` needs an argument name", "write `call.argument`");
    const isSize = kind === OperandKind.ArgSize;
    const index = this.operand(kind, -1, path, isSize ? SlotType.List : SlotType.String);
    if (isSize) {
      this.emit(Op.Operand, index, 1);
      return NUMBER;
    }
    this.emit(Op.Operand, index, 1);
    if (this.tool.untypedArgs.has(index)) return { kind: "unknown", arg: index };
    return { kind: KIND_OF_SLOT[this.tool.operands[index].type], arg: -1, path };
  }

  private operand(kind: OperandKind, slot: number, path: string | null, type: SlotType, lookupKey: string | null = null): number {
    const key = `${kind}:${slot}:${path ?? ""}:${lookupKey ?? ""}`;
    const known = this.tool.operandIndex.get(key);
    if (known !== undefined) return known;
    const index = this.tool.operands.length;
    this.tool.operands.push(lookupKey === null ? { kind, slot, path, type } : { kind, slot, path, type, key: lookupKey });
    this.tool.operandIndex.set(key, index);
    if (kind === OperandKind.ArgValue) this.tool.untypedArgs.add(index);
    if (path !== null) this.ctx.pool.intern(path);
    if (lookupKey !== null) this.ctx.pool.intern(lookupKey);
    return index;
  }

  // ---- functions ----------------------------------------------------------------------------------

  private apply(e: Expr & { kind: "apply" }): Ty {
    if (e.name === "size") return this.size(e);
    if (e.name === "present") return this.present(e);
    if (e.name in SECONDS) return this.duration(e);
    if (e.name === "date" || e.name === "datetime") return this.time(e);
    if (e.name === "max" || e.name === "min") return this.extremum(e);
    if (e.name === "coalesce") return this.coalesce(e);
    if (e.name === "lookup") return this.lookup(e);
    return this.bad(e, `unknown function \`${e.name}\``, "the functions are size(ref), present(ref), lookup(entity.slot, call.key), max(a, b), min(a, b), coalesce(a, b), minutes(n), hours(n), days(n), date(\"YYYY-MM-DD\") and datetime(\"YYYY-MM-DDTHH:MM:SS\")");
  }

  private size(e: Expr & { kind: "apply" }): Ty {
    const ref = e.args.length === 1 ? e.args[0] : null;
    if (ref === null || ref.kind !== "path") return this.bad(e, "`size` takes one slot or argument", "write `size(entity.slot)` or `size(call.items)`");
    if (ref.parts[0] === "call") return this.argument(ref, ref.parts.slice(1).join("."), OperandKind.ArgSize);
    const slot = this.slotRef(ref);
    if (slot === null) return UNKNOWN;
    const kind = kindOfSlot(slot.type);
    if (kind !== "list" && kind !== "object" && kind !== "unknown") {
      return this.report("bound-type-mismatch", ref, `\`size\` needs a list or an object, \`${ref.parts.join(".")}\` is a ${kind}`);
    }
    this.emit(Op.Operand, this.operand(OperandKind.SlotSize, slot.index, null, slot.type), 1);
    return NUMBER;
  }

  /** `present(ref)`: TRUE when the slot (of the acts_on entity) or the call argument has a value that is
   * not null, FALSE otherwise — never UNKNOWN. Any slot type, lists and objects included. */
  private present(e: Expr & { kind: "apply" }): Ty {
    const ref = e.args.length === 1 ? e.args[0] : null;
    if (ref === null || ref.kind !== "path") return this.bad(e, "`present` takes one slot or argument", "write `present(entity.slot)` or `present(call.x)`");
    if (ref.parts[0] === "call") {
      const path = ref.parts.slice(1).join(".");
      if (path === "") return this.bad(ref, "`call` needs an argument name", "write `call.argument`");
      this.emit(Op.Operand, this.operand(OperandKind.ArgPresent, -1, path, SlotType.Bool), 1);
      return BOOL;
    }
    if (ref.parts[0] === "new" || ref.parts[0] === "result") {
      return this.bad(ref, `\`${ref.parts.join(".")}\` is not known before the call runs`, "a condition is decided before the call");
    }
    const slot = this.slotRef(ref);
    if (slot === null) return UNKNOWN;
    this.emit(Op.Operand, this.operand(OperandKind.SlotPresent, slot.index, null, SlotType.Bool), 1);
    return BOOL;
  }

  /** `max(a, b)` / `min(a, b)` of two numbers; UNKNOWN (Missing) unless both are Numbers. */
  private extremum(e: Expr & { kind: "apply" }): Ty {
    if (e.args.length !== 2) return this.bad(e, `\`${e.name}\` takes two numbers`, `write \`${e.name}(0, call.x - entity.y)\``);
    for (const a of e.args) {
      const t = this.expr(a);
      this.amount(t, a);
    }
    this.emit(e.name === "max" ? Op.Max : Op.Min, 0, -1);
    return NUMBER;
  }

  /** `coalesce(a, b)`: a unless it is missing or null, else b (both numbers). */
  private coalesce(e: Expr & { kind: "apply" }): Ty {
    if (e.args.length !== 2) return this.bad(e, "`coalesce` takes two values", "write `coalesce(lookup(entity.slot, call.key), 0)`");
    for (const a of e.args) {
      const t = this.expr(a);
      if (t.kind !== "null") this.amount(t, a);
    }
    this.emit(Op.Coalesce, 0, -1);
    return NUMBER;
  }

  /** `lookup(entity.slot, call.key)`: the number an object slot holds at the key the argument names
   * (Missing when the slot, the argument or the entry is absent; Null when the entry is null). */
  private lookup(e: Expr & { kind: "apply" }): Ty {
    const [ref, key] = e.args;
    if (e.args.length !== 2 || ref.kind !== "path" || key.kind !== "path" || key.parts[0] !== "call" || key.parts.length < 2) {
      return this.bad(e, "`lookup` takes an object slot and a call argument", "write `lookup(reservation.payment_balances, call.payment_id)`");
    }
    if (ref.parts[0] === "call") return this.bad(ref, "`lookup` reads a slot of the acts_on entity", "write `lookup(entity.slot, call.key)`");
    const slot = this.slotRef(ref);
    if (slot === null) return UNKNOWN;
    if (kindOfSlot(slot.type) !== "object") {
      return this.report("bound-type-mismatch", ref, `\`lookup\` needs an object slot, \`${ref.parts.join(".")}\` is a ${kindOfSlot(slot.type)}`);
    }
    const path = key.parts.slice(1).join(".");
    this.emit(Op.Operand, this.operand(OperandKind.SlotLookup, slot.index, null, SlotType.Number, path), 1);
    return NUMBER;
  }

  /** `hours(24)`: a duration in seconds, fixed point. */
  private duration(e: Expr & { kind: "apply" }): Ty {
    const n = e.args.length === 1 ? e.args[0] : null;
    if (n === null || n.kind !== "number") return this.bad(e, `\`${e.name}\` takes one number`, `write \`${e.name}(24)\``);
    const r = parseFixed(n.text, n.negative);
    if (!r.ok) return this.report("too-many-decimals", n, `\`${n.text}\` has more than 6 decimals`);
    const value = r.value * BigInt(SECONDS[e.name]);
    if (!fitsI64(value)) return this.report("number-out-of-range", n, `\`${e.name}(${n.text})\` is too large for a bound`);
    return this.constant(ValueTag.Number, value, "number");
  }

  private time(e: Expr & { kind: "apply" }): Ty {
    const s = e.args.length === 1 ? e.args[0] : null;
    const dateOnly = e.name === "date";
    if (s === null || s.kind !== "string") return this.bad(e, `\`${e.name}\` takes one string`, dateOnly ? "write `date(\"2024-05-15\")`" : "write `datetime(\"2024-05-15T15:00:00\")`");
    const seconds = parseIsoTime(s.value, dateOnly);
    if (seconds === null) {
      return this.bad(s, `${q(s.value)} is not ${dateOnly ? "a date" : "a datetime"}`,
        dateOnly ? "dates are `YYYY-MM-DD`" : "datetimes are `YYYY-MM-DDTHH:MM:SS`, optionally with `Z` or `+HH:MM` (UTC when omitted)");
    }
    return this.constant(ValueTag.Number, seconds * BigInt(FIXED_ONE), dateOnly ? "date" : "datetime");
  }

  // ---- operators ----------------------------------------------------------------------------------

  private binary(e: Expr & { kind: "binary" }): Ty {
    if (e.op === "and" || e.op === "or") return this.logicChain(e, e.op);
    if (e.op === "+" || e.op === "-") return this.sumChain(e);
    if (e.op === "*") return this.product(e);
    const l = this.expr(e.left);
    const r = this.expr(e.right);
    this.compare(e, e.op, l, r);
    this.emit(CMP_OP[e.op], 0, -1);
    return BOOL;
  }

  /** `a and b and c`: a, b, And, c, And (a loop over the chain, so its length costs no stack). */
  private logicChain(e: Expr & { kind: "binary" }, op: "and" | "or"): Ty {
    const { first, rest } = spine(e);
    const message = `\`${op}\` needs conditions, found`;
    this.condition(this.expr(first), first, message);
    for (const link of rest) {
      this.condition(this.expr(link.right), link.right, message);
      this.emit(op === "and" ? Op.And : Op.Or, 0, -1);
    }
    return BOOL;
  }

  private sumChain(e: Expr & { kind: "binary" }): Ty {
    const { first, rest } = spine(e);
    let acc = this.expr(first);
    for (const link of rest) {
      const r = this.expr(link.right);
      acc = this.arithmetic({ start: first.start, end: link.right.end }, link.op as "+" | "-", acc, r);
    }
    return acc;
  }

  /** `a * b`: the fixed-point product of two numbers, floored (docs/semantics.md). */
  private product(e: Expr & { kind: "binary" }): Ty {
    for (const side of [e.left, e.right]) this.amount(this.expr(side), side);
    this.emit(Op.Mul, 0, -1);
    return NUMBER;
  }

  private not(e: Expr & { kind: "not" }): Ty {
    this.condition(this.expr(e.operand), e.operand, "`not` needs a condition, found");
    this.emit(Op.Not, 0, 0);
    return BOOL;
  }

  /** `x in [a, b]` is `x == a or x == b`; `not in` is its negation. */
  private membership(e: Expr & { kind: "in" }): Ty {
    // The subject is compiled (and checked) once; its code is repeated before each item.
    const from = this.code.length;
    const subject = this.expr(e.subject);
    const subjectCode = this.code.slice(from);
    e.items.forEach((item, i) => {
      if (i > 0) this.replay(subjectCode);
      if (!isLiteral(item)) {
        this.bad(item, `${describe(item)} in an \`in\` list`, "an `in` list holds literals: strings, numbers, `true`, `false`, `null`");
        return;
      }
      this.compare(item, "==", subject, this.expr(item));
      this.emit(Op.Eq, 0, -1);
      if (i > 0) this.emit(Op.Or, 0, -1);
    });
    if (e.negated) this.emit(Op.Not, 0, 0);
    return BOOL;
  }

  private arithmetic(e: Node, op: "+" | "-", l: Ty, r: Ty): Ty {
    for (const [t, side] of [[l, "left"], [r, "right"]] as const) {
      if (t.arg >= 0) this.settle(t.arg, "number", e);
      else if (t.kind !== "unknown" && !isNumeric(t.kind)) {
        this.report("bound-type-mismatch", e, `\`${op}\` needs numbers or times, the ${side} side is a ${t.kind}`);
      }
    }
    this.emit(op === "+" ? Op.Add : Op.Sub, 0, -1);
    const isTime = (k: Kind) => k === "datetime" || k === "date";
    if (isTime(l.kind) && isTime(r.kind)) return op === "-" ? NUMBER : UNKNOWN; // a difference is a duration
    if (isTime(l.kind)) return { kind: l.kind, arg: -1 };
    if (isTime(r.kind) && op === "+") return { kind: r.kind, arg: -1 };
    return l.kind === "unknown" || r.kind === "unknown" ? UNKNOWN : NUMBER;
  }

  /** Types a comparison, giving an untyped argument the type of the other side. */
  private compare(e: Node, op: BinaryOp, l: Ty, r: Ty): void {
    const ordering = op !== "==" && op !== "!=";
    if (ordering && l.arg >= 0 && r.arg >= 0) {
      this.settle(l.arg, "number", e);
      this.settle(r.arg, "number", e);
      return;
    }
    if (l.arg >= 0 && r.arg < 0) this.settle(l.arg, settledKind(r.kind, ordering), e);
    if (r.arg >= 0 && l.arg < 0) this.settle(r.arg, settledKind(l.kind, ordering), e);
    if (l.arg >= 0 || r.arg >= 0 || l.kind === "unknown" || r.kind === "unknown") return;
    const typedArg = l.path ?? r.path;
    const kindsDiffer = family(l.kind) !== family(r.kind) && l.kind !== "null" && r.kind !== "null";
    if (typedArg !== undefined && kindsDiffer) {
      const [mine, other] = l.path !== undefined ? [l.kind, r.kind] : [r.kind, l.kind];
      this.report("bound-type-mismatch", e, `\`call.${typedArg}\` is used as a ${mine} and as a ${other}`,
        "a call argument has one type in all of its tool's bounds, fixed by its first use");
      return;
    }
    if (ordering) {
      if (!isNumeric(l.kind) || !isNumeric(r.kind)) {
        const what = l.kind === r.kind ? `two ${l.kind} values` : `a ${l.kind} and a ${r.kind}`;
        this.report("bound-type-mismatch", e, `\`${op}\` cannot order ${what}`, "only numbers and times are ordered; compare strings with `==`, `!=` or `in`");
      }
      return;
    }
    if (l.kind === "null" || r.kind === "null") return;
    if (family(l.kind) !== family(r.kind)) {
      this.report("bound-type-mismatch", e, `\`${op}\` compares a ${l.kind} with a ${r.kind}`, "values of different kinds are never equal: compare like with like");
    }
  }

  /** Fixes the type of an argument operand the first time a bound constrains it. */
  private settle(arg: number, kind: Kind, e: Node): void {
    const type = SLOT_OF_KIND[kind];
    if (type === undefined) return;
    const operand = this.tool.operands[arg];
    if (this.tool.untypedArgs.has(arg)) {
      this.tool.untypedArgs.delete(arg);
      operand.type = type;
    } else if (family(KIND_OF_SLOT[operand.type]) !== family(kind)) {
      this.report("bound-type-mismatch", e, `\`call.${operand.path}\` is used as a ${KIND_OF_SLOT[operand.type]} and as a ${kind}`);
    }
  }

  // ---- emission -----------------------------------------------------------------------------------

  /** Emits already compiled instructions again, keeping the stack accounting right. */
  private replay(words: number[]): void {
    for (const w of words) {
      const op = (w & 0xff) as Op;
      const delta = op === Op.Const || op === Op.Operand || op === Op.Now ? 1 : op === Op.Not ? 0 : -1;
      this.emit(op, w >>> 8, delta);
    }
  }

  private emit(op: Op, arg: number, stackDelta: number): void {
    this.code.push((op | (arg << 8)) >>> 0);
    this.depth += stackDelta;
    if (this.depth > this.maxStack) this.maxStack = this.depth;
  }

  private bad(e: Node, message: string, help?: string): Ty {
    return this.report("bad-bound-expression", e, message, help);
  }

  private report(code: "bad-bound-expression" | "bound-type-mismatch" | "too-many-decimals" | "number-out-of-range",
    e: Node, message: string, help?: string): Ty {
    // The program is dropped after any diagnostic, so nothing is emitted for the bad part.
    this.ctx.report(code, message, e, help);
    return UNKNOWN;
  }
}

function isLiteral(e: Expr): boolean {
  return e.kind === "number" || e.kind === "string" || e.kind === "bool" || e.kind === "null" ||
    (e.kind === "apply" && (e.name === "date" || e.name === "datetime" || e.name in SECONDS));
}

/** Kinds that can be equal to each other. */
function family(k: Kind): string {
  return isNumeric(k) ? "number" : k;
}

/** The type an untyped argument takes when compared with a value of kind `k`. */
function settledKind(k: Kind, ordering: boolean): Kind {
  if (k === "unknown" || k === "null") return ordering ? "number" : "unknown";
  return k;
}

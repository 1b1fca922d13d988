// An allow/deny Cedar policy set derived from a compiled ontology, and the Cedar requests for tool
// calls, so Cedar decides the same calls as the reverse search would (per call, stateless):
//   - a read-only tool is permitted;
//   - a tool with a live unconditional fail-closed edge (T4/T5) is forbidden; a conditional one is
//     conjoined to each of the tool's permits as `(condition) == false`;
//   - otherwise one `permit` per live, enabled positive edge whose φ ≥ τ, `when` the acts_on entity
//     exists (context.grounded) and, for a T2 edge, its bound holds: the bound program is decompiled
//     into a Cedar expression over context attributes o0, o1, … (the tool's operand values: Layer B
//     slots and call arguments, as the verifier resolves them) and context.now;
//   - everything else (unknown tools, edges below τ) is denied by default.
// Value mapping: strings stay strings, numbers and times are fixed-point Longs, booleans stay, null is
// the record {"null": true} (equal only to itself), and a missing value is an absent attribute (any use
// is an evaluation error, which leaves the policy unsatisfied: the search's UNKNOWN fails closed too).
import { Op, OperandKind, SlotType, Tier, ValueTag } from "../../src/abi.js";
import { Interner } from "../../src/core/interner.js";
import type { StateView, ToolCall } from "../../src/core/types.js";
import { getPath, splitPath, timeToFixed, toSize, toTagged, type TaggedValue } from "../../src/core/values.js";
import type { OntologyTables } from "../../src/ontology/tables.js";

export type CedarValue = string | number | boolean | { null: true } | CedarValue[];

export interface CedarRequest {
  principal: { type: string; id: string };
  action: { type: string; id: string };
  resource: { type: string; id: string };
  context: Record<string, CedarValue>;
}

const NULL: { null: true } = { null: true };

/** Operand kinds read from Layer B, and from the call's arguments (every OperandKind is one of them). */
const SLOT_KINDS: ReadonlySet<OperandKind> = new Set([OperandKind.SlotValue, OperandKind.SlotSize, OperandKind.SlotPresent, OperandKind.SlotLookup]);
const ARG_KINDS: ReadonlySet<OperandKind> = new Set([OperandKind.ArgValue, OperandKind.ArgSize, OperandKind.ArgPresent]);

function literal(tables: OntologyTables, index: number): string {
  const c = tables.constants[index];
  switch (c.tag) {
    case ValueTag.String:
      return JSON.stringify(tables.strings[Number(c.value)]);
    case ValueTag.Number:
      return c.value.toString();
    case ValueTag.Bool:
      return c.value !== 0n ? "true" : "false";
    case ValueTag.Null:
      return '{"null": true}';
    default:
      return "context.__missing"; // an absent attribute: evaluating it is an error
  }
}

const BINARY: Partial<Record<Op, string>> = {
  [Op.Eq]: "==", [Op.Ne]: "!=", [Op.Lt]: "<", [Op.Le]: "<=", [Op.Gt]: ">", [Op.Ge]: ">=",
  [Op.And]: "&&", [Op.Or]: "||", [Op.Add]: "+", [Op.Sub]: "-",
};

/** A bound program (stack code) as one Cedar expression. Numbers are fixed-point Longs (scale 1: the
 * value times FIXED_ONE); the core's product is floor(a * b / ONE), and Cedar has no division, so a
 * product is kept unscaled-down (scale 2) and whatever meets it in a sum, a comparison, max or min is
 * lifted to its scale (times ONE). That is exact wherever the product needs no flooring (money times a
 * count, a fee times bags: the programs of the ontologies here); `coalesce` has no Cedar counterpart
 * for a computed value and is refused. */
export function programToCedar(tables: OntologyTables, program: number): string {
  const stack: { e: string; scale: number }[] = [];
  const lift = (x: { e: string; scale: number }, to: number): string => (x.scale >= to ? x.e : `(${x.e} * ${"1000000 * ".repeat(to - x.scale - 1)}1000000)`);
  for (const word of tables.programs[program].code) {
    const op = word & 0xff;
    const arg = word >>> 8;
    if (op === Op.Const) stack.push({ e: literal(tables, arg), scale: 1 });
    else if (op === Op.Operand) stack.push({ e: `context.o${arg}`, scale: 1 });
    else if (op === Op.Now) stack.push({ e: "context.now", scale: 1 });
    else if (op === Op.Not) stack.push({ e: `(!${stack.pop()?.e})`, scale: 1 });
    else {
      const b = stack.pop();
      const a = stack.pop();
      if (a === undefined || b === undefined) throw new Error(`cannot translate opcode ${op}: stack underflow`);
      const scale = Math.max(a.scale, b.scale);
      const [x, y] = [lift(a, scale), lift(b, scale)];
      const sym = BINARY[op as Op];
      if (op === Op.Mul) stack.push({ e: `(${a.e} * ${b.e})`, scale: a.scale + b.scale });
      else if (op === Op.Max) stack.push({ e: `(if ${x} > ${y} then ${x} else ${y})`, scale });
      else if (op === Op.Min) stack.push({ e: `(if ${x} < ${y} then ${x} else ${y})`, scale });
      else if (sym === undefined) throw new Error(`cannot translate opcode ${op}`);
      else stack.push({ e: `(${x} ${sym} ${y})`, scale: op === Op.Add || op === Op.Sub ? scale : 1 });
    }
  }
  if (stack.length !== 1) throw new Error("malformed bound program");
  return stack[0].e;
}

function tierEnabled(tier: Tier, tiers: readonly Tier[]): boolean {
  return tier === Tier.T4 || tier === Tier.T5 || tiers.includes(tier);
}

/** The policy set text; `tau` fixed point. */
export function cedarPolicies(tables: OntologyTables, tau: number, tiers: readonly Tier[] = [Tier.T1, Tier.T2, Tier.T3]): string {
  const out: string[] = [];
  tables.tools.forEach((tool, t) => {
    const action = `action == Action::${JSON.stringify(tool.name)}`;
    if (tool.readOnly) {
      out.push(`// ${tool.name}: read-only\npermit (principal, ${action}, resource);`);
      return;
    }
    const edges = tables.edges.slice(tables.edgeOffsets[t], tables.edgeOffsets[t + 1]).filter((e) => e.lifecycle === 0 && tierEnabled(e.tier, tiers));
    const grounded = tool.actsOn >= 0 ? "context.grounded" : "true";
    const failClosed = edges.filter((e) => e.tier === Tier.T4 || e.tier === Tier.T5);
    if (failClosed.some((e) => e.program < 0)) {
      out.push(`// ${tool.name}: fail-closed (${failClosed.map((e) => e.id).join(", ")})\nforbid (principal, ${action}, resource);`);
      return;
    }
    // A fail-closed edge with a condition applies unless its condition is exactly false (a missing
    // value keeps it: docs/semantics.md, "Admissibility"): every permit of the tool requires each such
    // condition to be false (an evaluation error leaves the permit unsatisfied, so the call is denied).
    const notConsumed = failClosed.map((e) => ` && (${programToCedar(tables, e.program)}) == false`).join("");
    for (const e of edges) {
      if (e.phi < tau || e.tier === Tier.T4 || e.tier === Tier.T5) continue;
      const bound = `${e.program >= 0 ? ` && ${programToCedar(tables, e.program)}` : ""}${notConsumed}`;
      out.push(`// ${e.id}: T${e.tier}, phi ${e.phi / 1e6}\npermit (principal, ${action}, resource) when { ${grounded}${bound} };`);
    }
  });
  return `${out.join("\n\n")}\n`;
}

/** Builds the Cedar request of one call: the context holds grounding, the operand values and now. */
export function createRequestBuilder(tables: OntologyTables, now: string): (call: ToolCall, state: StateView) => CedarRequest {
  const interner = new Interner(tables.strings);
  const scratch: TaggedValue = { tag: ValueTag.Missing, value: 0n };
  const byName = new Map(tables.tools.map((t, i) => [t.name, i]));
  const nowFixed = Number(timeToFixed(now));
  const paths = tables.tools.map((t) => t.operands.map((o) => (o.path === null ? null : splitPath(o.path))));
  const keys = tables.tools.map((t) => t.operands.map((o) => (o.kind === OperandKind.SlotLookup && o.key != null ? splitPath(o.key) : null)));

  function convert(v: unknown, kind: OperandKind, type: SlotType): CedarValue | undefined {
    const t = kind === OperandKind.SlotSize || kind === OperandKind.ArgSize ? toSize(v, scratch) : toTagged(v, type, interner, scratch);
    switch (t.tag) {
      case ValueTag.Missing:
        return undefined;
      case ValueTag.Null:
        return NULL;
      case ValueTag.Bool:
        return t.value !== 0n;
      case ValueTag.Number:
        return Number(t.value);
      default:
        return String(v);
    }
  }

  return (call, state) => {
    interner.reset();
    const t = byName.get(call.name);
    const context: Record<string, CedarValue> = { now: nowFixed };
    const principal = { type: "Agent", id: "agent" };
    const action = { type: "Action", id: call.name };
    if (t === undefined) return { principal, action, resource: { type: "Tool", id: call.name }, context };
    const tool = tables.tools[t];
    const keyValue = tool.keyArg === null ? undefined : call.arguments[tool.keyArg];
    const key = typeof keyValue === "string" ? keyValue : typeof keyValue === "number" ? String(keyValue) : null;
    const entity = tool.actsOn >= 0 ? tables.entities[tool.actsOn].name : null;
    context.grounded = entity === null || (key !== null && state.hasEntity(entity, key));
    tool.operands.forEach((o, k) => {
      // Every operand kind the verifier writes (src/core/verifier.ts, writeOperandValue): a slot kind
      // reads Layer B, an argument kind the call; a presence kind is a boolean.
      let v: unknown;
      if (SLOT_KINDS.has(o.kind)) {
        const slot = tables.slots[o.slot];
        if (slot.entity === tool.actsOn && key !== null && entity !== null) v = state.slot(entity, key, slot.name);
        if (o.kind === OperandKind.SlotLookup) {
          // `lookup(entity.slot, call.key)`: the object slot's entry at the argument's value, as the
          // verifier reads it (absent unless the slot is an object and the key a string or a number).
          const at = keys[t][k] === null ? undefined : getPath(call.arguments, keys[t][k]!);
          const isObject = typeof v === "object" && v !== null && !Array.isArray(v);
          v = isObject && (typeof at === "string" || typeof at === "number") && Object.hasOwn(v as object, String(at)) ? (v as Record<string, unknown>)[String(at)] : undefined;
        }
      } else if (ARG_KINDS.has(o.kind)) {
        v = getPath(call.arguments, paths[t][k]!);
      } else {
        throw new Error(`tool \`${tool.name}\`: operand kind ${o.kind} has no Cedar mapping`);
      }
      if (o.kind === OperandKind.SlotPresent || o.kind === OperandKind.ArgPresent) {
        context[`o${k}`] = v !== undefined && v !== null;
        return;
      }
      const c = convert(v, o.kind, o.type);
      if (c !== undefined) context[`o${k}`] = c;
    });
    const resource = entity !== null && key !== null ? { type: entity, id: key } : { type: "Tool", id: call.name };
    return { principal, action, resource, context };
  };
}

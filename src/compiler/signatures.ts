// The constructs of the language and the arguments each takes. Parameters can be given by position (in
// the order below) or by name; options are named only. Binding turns a statement's arguments into a
// name -> argument map and reports arity and naming problems.
import { Tier } from "../abi.js";
import type { Arg, Expr, Node, Statement } from "./ast.js";
import type { Context } from "./context.js";

export interface Signature {
  name: string;
  params: string[]; // positional, all required
  optionalParams?: string[]; // positional after params, optional
  options: string[]; // named only, optional
  variadic?: boolean; // any number (>= 1) of positional arguments, no names
  tier?: Tier;
}

const ANNOTATION_OPTIONS = ["id", "status", "identity", "args", "when", "amount"];

export const SIGNATURES: ReadonlyMap<string, Signature> = new Map<string, Signature>([
  ["slot_definition", { name: "slot_definition", params: ["entity", "slot", "type"], options: [] }],
  ["loss_class_definition", { name: "loss_class_definition", params: ["name", "weight"], options: ["residue"] }],
  ["sink_definition", { name: "sink_definition", params: ["name"], optionalParams: ["external"], options: [] }],
  ["tool", { name: "tool", params: ["name"], options: ["acts_on", "key", "creates", "new_key", "params", "optional_params"] }],
  ["read_only", { name: "read_only", params: [], options: [], variadic: true }],
  ["inverse_of", { name: "inverse_of", params: ["a", "b", "slot", "w"], options: ANNOTATION_OPTIONS, tier: Tier.T1 }],
  ["bounded_reversibility", {
    name: "bounded_reversibility", params: ["a", "bound", "loss_class", "w"], options: ANNOTATION_OPTIONS, tier: Tier.T2,
  }],
  ["compensates", {
    name: "compensates", params: ["a", "b", "slot", "loss_class", "w"], options: ANNOTATION_OPTIONS, tier: Tier.T3,
  }],
  ["irreversibly_consumes", {
    name: "irreversibly_consumes", params: ["a", "slot", "loss_class", "w"], options: ANNOTATION_OPTIONS, tier: Tier.T4,
  }],
  ["external_side_effect", { name: "external_side_effect", params: ["a", "sink", "w"], options: ANNOTATION_OPTIONS, tier: Tier.T5 }],
]);

export const CONSTRUCT_NAMES: ReadonlySet<string> = new Set(SIGNATURES.keys());

export interface BoundArgs {
  args: Map<string, Arg>;
  positional: Arg[]; // variadic constructs
  ok: boolean; // false: an arity or naming error was reported
}

/** Binds a statement's arguments (and `@id(...)` attributes) to the construct's parameters. */
export function bindArgs(ctx: Context, stmt: Statement, sig: Signature): BoundArgs {
  const out: BoundArgs = { args: new Map(), positional: [], ok: true };
  const fail = (...r: Parameters<Context["report"]>) => { ctx.report(...r); out.ok = false; };
  const positionalNames = [...sig.params, ...(sig.optionalParams ?? [])];
  const named = new Set([...positionalNames, ...sig.options]);
  let position = 0;
  for (const arg of stmt.args) {
    if (arg.name === null) {
      if (sig.variadic) { out.positional.push(arg); continue; }
      const name = positionalNames[position++];
      if (name === undefined) {
        fail("wrong-arity", `${arityText(sig)}, found ${countPositional(stmt)}`, arg);
        break;
      }
      out.args.set(name, arg);
      continue;
    }
    const nameNode: Node = { start: arg.nameStart, end: arg.nameEnd };
    if (!named.has(arg.name) || sig.variadic) {
      fail("unknown-option", `unknown option ${"`" + arg.name + "`"} for \`${sig.name}\``, nameNode, optionsHelp(sig));
    } else if (out.args.has(arg.name)) {
      fail("duplicate-option", `\`${arg.name}\` is given twice`, nameNode);
    } else out.args.set(arg.name, arg);
  }
  bindAttributes(stmt, sig, out, fail);
  if (sig.variadic && out.positional.length === 0) {
    fail("wrong-arity", `\`${sig.name}\` needs at least one tool name`, nameOf(stmt));
  }
  const missing = sig.params.filter((p) => !out.args.has(p));
  if (out.ok && missing.length > 0) {
    fail("wrong-arity", `${arityText(sig)}, found ${countPositional(stmt)}: missing \`${missing.join("`, `")}\``, nameOf(stmt));
  }
  return out;
}

function bindAttributes(
  stmt: Statement, sig: Signature, out: BoundArgs,
  fail: (...r: Parameters<Context["report"]>) => void,
): void {
  for (const attr of stmt.attributes) {
    if (attr.name !== "id") {
      fail("unknown-option", `unknown attribute \`@${attr.name}\``, attr, "the only attribute is `@id(\"stable.id\")`");
    } else if (!sig.options.includes("id")) {
      fail("invalid-option", `\`@id\` applies to annotations, not to \`${sig.name}\``, attr);
    } else if (out.args.has("id")) {
      fail("duplicate-option", "the annotation id is given twice", attr);
    } else if (attr.value === null) {
      fail("invalid-argument", "`@id` needs a string: `@id(\"stable.id\")`", attr);
    } else {
      out.args.set("id", { name: "id", nameStart: attr.start, nameEnd: attr.end, value: attr.value, start: attr.start, end: attr.end });
    }
  }
}

function nameOf(stmt: Statement): Node {
  return { start: stmt.nameStart, end: stmt.nameEnd };
}

function countPositional(stmt: Statement): number {
  return stmt.args.filter((a) => a.name === null).length;
}

function arityText(sig: Signature): string {
  const all = [...sig.params, ...(sig.optionalParams ?? []).map((p) => `${p}?`)];
  return `\`${sig.name}\` takes ${sig.params.length === all.length ? "" : "up to "}${all.length} argument${all.length === 1 ? "" : "s"} (${all.join(", ")})`;
}

function optionsHelp(sig: Signature): string {
  const names = [...sig.params, ...(sig.optionalParams ?? []), ...sig.options];
  return names.length === 0 ? `\`${sig.name}\` takes tool names only` : `\`${sig.name}\` accepts ${names.map((n) => `\`${n}\``).join(", ")}`;
}

/** The argument's expression, if given. */
export function argValue(b: BoundArgs, name: string): Expr | undefined {
  return b.args.get(name)?.value;
}

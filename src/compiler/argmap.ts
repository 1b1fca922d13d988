// `args = { param: source, ... }`: how the inverse call's arguments are built from the forward call,
// the forward call's acts_on entity as it was before the call, the created id, the call's result, or
// literals. This is what makes an inverse sequence executable rather than a list of tool names.
import { ArgSource } from "../abi.js";
import type { ArgMapEntry } from "../ontology/tables.js";
import { describe, type Expr } from "./ast.js";
import type { Context } from "./context.js";
import { q } from "./diagnostics.js";
import { jsonNumberText } from "./fixed.js";
import type { Model, ToolDecl } from "./model.js";

const SOURCES_HELP = "a source is `call.x` (forward argument), `entity.slot` (its value before the call), `new.id`, `result.x` or a literal";

/** The entries of an `args` object for an annotation whose forward tool is `forward`; null after a
 * diagnostic. */
export function compileArgMap(ctx: Context, model: Model, forward: ToolDecl, e: Expr): ArgMapEntry[] | null {
  if (e.kind !== "object") {
    ctx.report("bad-arg-source", `\`args\` must be an object, found ${describe(e)}`, e, "write `args = { param: call.x, ... }`");
    return null;
  }
  const before = ctx.diags.count;
  const seen = new Set<string>();
  const entries: ArgMapEntry[] = [];
  for (const entry of e.entries) {
    if (seen.has(entry.key)) {
      ctx.report("bad-arg-source", `parameter ${q(entry.key)} is given twice`, entry);
      continue;
    }
    seen.add(entry.key);
    const source = argSource(ctx, model, forward, entry.value);
    if (source !== null) entries.push({ param: entry.key, ...source });
  }
  return ctx.diags.count === before ? entries : null;
}

function argSource(ctx: Context, model: Model, forward: ToolDecl, e: Expr): Omit<ArgMapEntry, "param"> | null {
  if (e.kind === "path") return pathSource(ctx, model, forward, e);
  const literal = literalJson(e);
  if (literal !== null) return { source: ArgSource.Literal, ref: literal };
  const help = e.kind === "ident" ? `strings are quoted (\`"${e.name}"\`); forward arguments are \`call.${e.name}\`` : SOURCES_HELP;
  ctx.report("bad-arg-source", `${describe(e)} is not an argument source`, e, help);
  return null;
}

function pathSource(ctx: Context, model: Model, forward: ToolDecl, e: Expr & { kind: "path" }): Omit<ArgMapEntry, "param"> | null {
  const [root, ...rest] = e.parts;
  const text = e.parts.join(".");
  if (root === "call") return { source: ArgSource.CallArg, ref: rest.join(".") };
  if (root === "result") return { source: ArgSource.Result, ref: rest.join(".") };
  if (root === "new") {
    if (text !== "new.id") {
      ctx.report("bad-arg-source", `unknown source ${q(text)}`, e, "the created entity's id is `new.id`");
      return null;
    }
    if (forward.creates < 0) {
      ctx.report("bad-arg-source", `\`new.id\` but \`${forward.name}\` creates nothing`, e, `declare it: \`tool(${forward.name}, creates = entity, ...)\``);
      return null;
    }
    return { source: ArgSource.NewId, ref: "" };
  }
  return slotSource(ctx, model, forward, e);
}

/** `entity.slot`: the slot of the forward call's acts_on entity, read before the call. */
function slotSource(ctx: Context, model: Model, forward: ToolDecl, e: Expr & { kind: "path" }): Omit<ArgMapEntry, "param"> | null {
  const text = e.parts.join(".");
  const entity = model.entities.get(e.parts[0]);
  if (entity === undefined) {
    ctx.report("bad-arg-source", `unknown source ${q(text)}`, e, SOURCES_HELP);
    return null;
  }
  const slot = e.parts.length === 2 ? model.slots.get(text) : undefined;
  if (slot === undefined) {
    ctx.report("unknown-slot", `unknown slot ${q(text)}`, e);
    return null;
  }
  if (forward.actsOn !== entity.index) {
    ctx.report("bound-entity-mismatch", `\`${text}\` is not a slot of \`${forward.name}\`'s acts_on entity`, e,
      "an inverse argument may read only the slots of the entity the forward call acts on");
    return null;
  }
  return { source: ArgSource.PreSlot, ref: slot.name };
}

/** JSON text of a literal (string, number, bool, null, or a list/object of those); null otherwise. */
export function literalJson(e: Expr): string | null {
  switch (e.kind) {
    case "string": return JSON.stringify(e.value);
    case "number": return jsonNumberText(e.text, e.negative);
    case "bool": return e.value ? "true" : "false";
    case "null": return "null";
    case "list": {
      const items = e.items.map(literalJson);
      return items.every((x) => x !== null) ? `[${items.join(",")}]` : null;
    }
    case "object": {
      const keys = new Set(e.entries.map((x) => x.key));
      if (keys.size !== e.entries.length) return null;
      const parts = e.entries.map((x) => {
        const v = literalJson(x.value);
        return v === null ? null : `${JSON.stringify(x.key)}:${v}`;
      });
      return parts.every((x) => x !== null) ? `{${parts.join(",")}}` : null;
    }
    default: return null;
  }
}

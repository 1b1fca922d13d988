// Pass 1: the declarations (slots and their entities, loss classes, sinks, tools), in source order.
// Annotations may refer to declarations anywhere in the file, so they are checked in pass 2.
import { SlotType } from "../abi.js";
import type { Expr, Node, Statement } from "./ast.js";
import { didYouMean, type Context } from "./context.js";
import { q } from "./diagnostics.js";
import { Model, type LossDecl, type ResidueItem, type ToolDecl, type ToolParam } from "./model.js";
import { describe } from "./ast.js";
import { readBool, readDotted, readIdent, readLossWeight } from "./read.js";
import { argValue, type BoundArgs } from "./signatures.js";

export const SLOT_TYPES: ReadonlyMap<string, SlotType> = new Map([
  ["string", SlotType.String], ["number", SlotType.Number], ["bool", SlotType.Bool],
  ["datetime", SlotType.Datetime], ["date", SlotType.Date], ["list", SlotType.List], ["object", SlotType.Object],
]);

/** The type of a slot whose declared type was wrong (compilation fails; checking goes on). */
export const UNTYPED_SLOT = -1 as SlotType;

/** Words that mean something else inside bounds and argument sources. */
const RESERVED = new Set(["call", "new", "result", "now", "true", "false", "null", "and", "or", "not", "in"]);

export const NONE_LOSS = "none";

const PARAMS_HELP = "parameters are names: `tool(book, params = [user_id, cabin], optional_params = [insurance])`";
const RESIDUE_HELP = "a residue lists what a compensation paying this class may leave changed: `residue = [order.status, order.*, new(order)]`";

export class Declarations {
  private readonly pendingTools: { decl: ToolDecl; bound: BoundArgs }[] = [];
  private readonly pendingResidues: { decl: LossDecl; expr: Expr }[] = [];

  constructor(private readonly ctx: Context, readonly model: Model) {
    model.lossClasses.set(NONE_LOSS, { name: NONE_LOSS, weight: 0, index: 0, node: null, residue: [] });
  }

  declare(stmt: Statement, bound: BoundArgs): void {
    switch (stmt.name) {
      case "slot_definition": return this.slot(bound);
      case "loss_class_definition": return this.lossClass(bound);
      case "sink_definition": return this.sink(bound);
      case "tool": return this.tool(bound);
      case "read_only": return this.readOnly(bound);
      default: return;
    }
  }

  /** Resolves what declarations may name in any order: the entities of `tool(...)` options. */
  finish(): void {
    for (const { decl, bound } of this.pendingTools) this.resolveTool(decl, bound);
    for (const { decl, expr } of this.pendingResidues) decl.residue = this.residue(expr);
  }

  private slot(b: BoundArgs): void {
    const entityExpr = argValue(b, "entity");
    const slotExpr = argValue(b, "slot");
    const typeExpr = argValue(b, "type");
    if (this.keyword(entityExpr) || this.keyword(slotExpr)) return;
    const entity = readIdent(this.ctx, entityExpr, "an entity name");
    const slot = readIdent(this.ctx, slotExpr, "a slot name");
    const typeName = readIdent(this.ctx, typeExpr, "a slot type");
    if (entity !== null && this.reserved(entity, entityExpr!)) return;
    if (slot !== null && this.reserved(slot, slotExpr!)) return;
    const type = typeName === null ? undefined : SLOT_TYPES.get(typeName);
    if (typeName !== null && type === undefined) {
      this.ctx.report("unknown-slot-type", `unknown slot type ${q(typeName)}`, typeExpr!,
        didYouMean(typeName, SLOT_TYPES.keys(), "slot types are string, number, bool, datetime, date, list and object"));
    }
    if (entity === null || slot === null || typeName === null) return;
    const key = `${entity}.${slot}`;
    if (this.model.slots.has(key)) {
      this.duplicate(`slot \`${key}\``, slotExpr!);
      return;
    }
    const m = this.model;
    let ent = m.entities.get(entity);
    if (ent === undefined) {
      ent = { name: entity, index: m.entities.size, node: entityExpr! };
      m.entities.set(entity, ent);
    }
    // A slot with an unknown type is still declared, so its uses are not reported unknown as well.
    m.slots.set(key, { name: slot, entity: ent.index, type: type ?? UNTYPED_SLOT, index: m.slots.size, node: slotExpr! });
  }

  private lossClass(b: BoundArgs): void {
    const nameExpr = argValue(b, "name");
    const name = readIdent(this.ctx, nameExpr, "a loss class name");
    const weight = readLossWeight(this.ctx, argValue(b, "weight"));
    if (name === null) return;
    if (this.model.lossClasses.has(name)) {
      this.duplicate(`loss class ${q(name)}`, nameExpr!, name === NONE_LOSS ? "`none` (weight 0) is predeclared" : undefined);
      return;
    }
    // Declared even when its weight is wrong, so its uses do not report it unknown as well.
    const m = this.model;
    const decl: LossDecl = { name, weight: weight ?? 0, index: m.lossClasses.size, node: nameExpr!, residue: [] };
    m.lossClasses.set(name, decl);
    const residueExpr = argValue(b, "residue");
    if (residueExpr !== undefined) this.pendingResidues.push({ decl, expr: residueExpr });
  }

  /** `residue = [entity.slot, entity.*, new(entity), ...]`, checked against the declared slots. */
  private residue(e: Expr): ResidueItem[] {
    if (e.kind !== "list") {
      this.ctx.report("invalid-argument", `\`residue\` must be a list, found ${describe(e)}`, e, RESIDUE_HELP);
      return [];
    }
    const out: ResidueItem[] = [];
    const seen = new Set<string>();
    for (const item of e.items) {
      const r = this.residueItem(item);
      if (r === null) continue;
      const key = `${r.created ? "new:" : ""}${r.entity}.${r.slot ?? "*"}`;
      if (seen.has(key)) {
        this.ctx.report("invalid-argument", `residue item ${q(r.created ? `new(${r.entity})` : `${r.entity}.${r.slot ?? "*"}`)} is listed twice`, item, RESIDUE_HELP);
        continue;
      }
      seen.add(key);
      out.push(r);
    }
    return out;
  }

  private residueItem(e: Expr): ResidueItem | null {
    if (e.kind === "apply" && e.name === "new") {
      const arg = e.args.length === 1 ? e.args[0] : undefined;
      if (arg === undefined || arg.kind !== "ident") {
        this.ctx.report("invalid-argument", "`new(...)` takes one entity name", e, RESIDUE_HELP);
        return null;
      }
      return this.entityKnown(arg.name, arg) ? { entity: arg.name, slot: null, created: true } : null;
    }
    if (e.kind !== "path" || e.parts.length !== 2) {
      this.ctx.report("invalid-argument", `a residue item is \`entity.slot\`, \`entity.*\` or \`new(entity)\`, found ${describe(e)}`, e, RESIDUE_HELP);
      return null;
    }
    const [entity, slot] = e.parts;
    if (!this.entityKnown(entity, e)) return null;
    if (slot === "*") return { entity, slot: null, created: false };
    if (!this.model.slots.has(`${entity}.${slot}`)) {
      const known = this.model.slotList().filter((s) => s.entity === this.model.entities.get(entity)!.index).map((s) => `${entity}.${s.name}`);
      this.ctx.report("unknown-slot", `unknown slot ${q(`${entity}.${slot}`)}`, e, didYouMean(`${entity}.${slot}`, known, "declare it with `slot_definition(entity, slot, type).`"));
      return null;
    }
    return { entity, slot, created: false };
  }

  private entityKnown(name: string, node: Node): boolean {
    if (this.model.entities.has(name)) return true;
    this.ctx.report("unknown-entity", `unknown entity ${q(name)}`, node,
      didYouMean(name, this.model.entities.keys(), "an entity is declared by its slots: `slot_definition(entity, slot, type).`"));
    return false;
  }

  private sink(b: BoundArgs): void {
    const nameExpr = argValue(b, "name");
    const name = readIdent(this.ctx, nameExpr, "a sink name");
    const externalExpr = argValue(b, "external");
    const external = externalExpr === undefined ? true : readBool(this.ctx, externalExpr, "`external`");
    if (name === null) return;
    if (this.model.sinks.has(name)) {
      this.duplicate(`sink ${q(name)}`, nameExpr!);
      return;
    }
    const m = this.model;
    m.sinks.set(name, { name, external: external ?? true, index: m.sinks.size, node: nameExpr! });
  }

  private tool(b: BoundArgs): void {
    const nameExpr = argValue(b, "name");
    const name = readIdent(this.ctx, nameExpr, "a tool name");
    if (name === null) return;
    const decl = this.addTool(name, nameExpr!, false);
    if (decl !== null) this.pendingTools.push({ decl, bound: b });
  }

  private readOnly(b: BoundArgs): void {
    for (const arg of b.positional) {
      const name = readIdent(this.ctx, arg.value, "a tool name");
      if (name !== null) this.addTool(name, arg.value, true);
    }
  }

  private addTool(name: string, node: Node, readOnly: boolean): ToolDecl | null {
    const m = this.model;
    if (m.tools.has(name)) {
      this.duplicate(`tool ${q(name)}`, node, "a tool is declared once, either with `tool(...)` or in `read_only(...)`");
      return null;
    }
    if (m.tools.size >= this.ctx.limits.tools) {
      if (m.tools.size === this.ctx.limits.tools) {
        this.ctx.report("limit-exceeded", `more than ${this.ctx.limits.tools} tools`, node);
      }
      m.tools.set(name, this.newTool(name, -1, node, readOnly)); // counted, so the report is made once
      return null;
    }
    const decl = this.newTool(name, m.tools.size, node, readOnly);
    m.tools.set(name, decl);
    return decl;
  }

  private newTool(name: string, index: number, node: Node, readOnly: boolean): ToolDecl {
    return {
      name, index, params: null, readOnly, actsOn: -1, keyArg: null, keyConst: null, creates: -1, newKey: null, node,
      operands: [], operandIndex: new Map(), untypedArgs: new Set(),
    };
  }

  private resolveTool(decl: ToolDecl, b: BoundArgs): void {
    const actsOnExpr = argValue(b, "acts_on");
    const createsExpr = argValue(b, "creates");
    const keyExpr = argValue(b, "key");
    const newKeyExpr = argValue(b, "new_key");
    decl.actsOn = this.entityRef(actsOnExpr);
    decl.creates = this.entityRef(createsExpr);
    // `key = "phone"`: a string literal is the constant id of the one entity the tool acts on.
    const keyConst = keyExpr !== undefined && keyExpr.kind === "string" ? keyExpr.value : null;
    if (keyConst !== null && keyConst === "") this.ctx.report("invalid-argument", "a constant key cannot be empty", keyExpr!);
    const key = keyConst !== null ? null : readDotted(this.ctx, keyExpr, "the argument naming the entity (or a string: a constant entity id)");
    const newKey = readDotted(this.ctx, newKeyExpr, "the result field holding the new id");
    if (keyExpr !== undefined && actsOnExpr === undefined) {
      this.ctx.report("invalid-option", "`key` needs `acts_on`: it names the argument identifying that entity", keyExpr);
    }
    if (newKeyExpr !== undefined && createsExpr === undefined) {
      this.ctx.report("invalid-option", "`new_key` needs `creates`: it names the result field holding the new id", newKeyExpr);
    }
    // Conventions: a tool acting on `order` names it by `order_id`; a created entity's id is `id`.
    if (decl.actsOn >= 0 && keyConst !== null) decl.keyConst = keyConst;
    else if (decl.actsOn >= 0) decl.keyArg = key ?? `${readIdentQuiet(actsOnExpr)}_id`;
    if (decl.creates >= 0) decl.newKey = newKey ?? "id";
    decl.params = this.params(argValue(b, "params"), argValue(b, "optional_params"));
  }

  /** `params = [a, b], optional_params = [c]`: the tool's parameters; null when neither is given. */
  private params(required: Expr | undefined, optional: Expr | undefined): ToolParam[] | null {
    if (required === undefined && optional === undefined) return null;
    const out: ToolParam[] = [];
    const seen = new Set<string>();
    for (const [e, isRequired] of [[required, true], [optional, false]] as const) {
      if (e === undefined) continue;
      if (e.kind !== "list") {
        this.ctx.report("invalid-argument", `expected a list of parameter names, found ${describe(e)}`, e, PARAMS_HELP);
        continue;
      }
      for (const item of e.items) {
        if (item.kind !== "ident") {
          this.ctx.report("invalid-argument", `expected a parameter name, found ${describe(item)}`, item, PARAMS_HELP);
          continue;
        }
        if (seen.has(item.name)) {
          this.ctx.report("invalid-argument", `parameter ${q(item.name)} is declared twice`, item, PARAMS_HELP);
          continue;
        }
        seen.add(item.name);
        out.push({ name: item.name, required: isRequired });
      }
    }
    return out;
  }

  private entityRef(e: Expr | undefined): number {
    const name = readIdent(this.ctx, e, "an entity name");
    if (name === null) return -1;
    const ent = this.model.entities.get(name);
    if (ent === undefined) {
      this.ctx.report("unknown-entity", `unknown entity ${q(name)}`, e!,
        didYouMean(name, this.model.entities.keys(), "an entity is declared by its slots: `slot_definition(entity, slot, type).`"));
      return -1;
    }
    return ent.index;
  }

  /** `now`, `true`, `false` and `null` parse as values, not names: reserved as well. */
  private keyword(e: Expr | undefined): boolean {
    if (e === undefined || (e.kind !== "now" && e.kind !== "bool" && e.kind !== "null")) return false;
    const word = e.kind === "now" ? "now" : e.kind === "null" ? "null" : String(e.value);
    return this.reserved(word, e);
  }

  private reserved(name: string, node: Node): boolean {
    if (!RESERVED.has(name)) return false;
    this.ctx.report("reserved-name", `${q(name)} is reserved`, node);
    return true;
  }

  private duplicate(what: string, node: Node, help?: string): void {
    this.ctx.report("duplicate-declaration", `${what} is declared twice`, node, help);
  }
}

function readIdentQuiet(e: Expr | undefined): string {
  return e !== undefined && e.kind === "ident" ? e.name : "";
}

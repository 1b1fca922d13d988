// Pass 2: the annotations (tiers T1-T5). Each becomes an edge of its forward tool: the tool whose call
// it answers (T1/T3: `b`, the tool being undone; T2/T4/T5: `a`) with its fixed-point weight, the
// per-step phi computed once here (docs/semantics.md), its options and, for T2, its compiled bound.
import { Identity, Lifecycle, Tier } from "../abi.js";
import type { ArgMapEntry, ProgramTable } from "../ontology/tables.js";
import { describe, type Expr, type Statement } from "./ast.js";
import { compileArgMap } from "./argmap.js";
import { compileAmount, compileCondition, type ConstantPool } from "./bounds.js";
import { didYouMean, type Context } from "./context.js";
import { DIAGNOSTIC_CODES, q } from "./diagnostics.js";
import { compensatedPhi } from "./fixed.js";
import type { EdgeDecl, Model, ToolDecl } from "./model.js";
import { readIdent, readString, readWeight } from "./read.js";
import { argValue, type BoundArgs } from "./signatures.js";

const LIFECYCLES: ReadonlyMap<string, Lifecycle> = new Map([
  ["live", Lifecycle.Live], ["provisional", Lifecycle.Provisional],
  ["revoked", Lifecycle.Revoked], ["disputed", Lifecycle.Disputed],
]);
const IDENTITIES: ReadonlyMap<string, Identity> = new Map([["same", Identity.Same], ["new", Identity.New]]);
const TIER_NAMES: Record<Tier, string> = { [Tier.T1]: "T1", [Tier.T2]: "T2", [Tier.T3]: "T3", [Tier.T4]: "T4", [Tier.T5]: "T5" };

export function isPositive(tier: Tier): boolean {
  return tier === Tier.T1 || tier === Tier.T2 || tier === Tier.T3;
}

export class Annotations {
  private overLimit = false;

  constructor(
    private readonly ctx: Context,
    private readonly model: Model,
    private readonly constants: ConstantPool,
  ) {}

  /** Checks one annotation; adds its edge when it has no error. */
  annotate(stmt: Statement, b: BoundArgs, tier: Tier): void {
    const before = this.ctx.diags.count;
    const { forward, inverse } = this.tools(b, tier);
    const slot = tier === Tier.T1 || tier === Tier.T3 || tier === Tier.T4 ? this.slot(argValue(b, "slot")) : -1;
    const loss = tier === Tier.T2 || tier === Tier.T3 || tier === Tier.T4 ? this.lossClass(argValue(b, "loss_class")) : null;
    const sink = tier === Tier.T5 ? this.sink(argValue(b, "sink")) : -1;
    const weight = readWeight(this.ctx, argValue(b, "w"));
    const options = this.options(b, tier, forward);
    const required = options !== null && inverse !== null && isPositive(tier) ? this.requiredArguments(stmt, b, inverse, options.argMap) : [];
    const program = forward !== null ? this.condition(forward, tier, b, required) : null;
    const amountExpr = argValue(b, "amount");
    const amount = forward !== null && amountExpr !== undefined ? compileAmount(this.ctx, this.model, this.constants, forward, amountExpr).program : null;
    if (!b.ok || this.ctx.diags.count !== before || forward === null || weight === null || options === null) return;
    if (this.model.edges.length >= this.ctx.limits.edges) {
      if (!this.overLimit) this.ctx.report("limit-exceeded", `more than ${this.ctx.limits.edges} annotations`, stmt);
      this.overLimit = true;
      return;
    }
    const lossWeight = loss === null ? 0 : loss.weight;
    this.model.edges.push({
      tier,
      lifecycle: options.lifecycle,
      identity: options.identity,
      forward: forward.index,
      inverse: inverse === null ? -1 : inverse.index,
      slot,
      lossClass: loss === null ? -1 : loss.index,
      sink,
      weight,
      phi: phiOf(tier, weight, lossWeight),
      lossWeight: tier === Tier.T2 || tier === Tier.T3 || tier === Tier.T4 ? lossWeight : 0,
      program: program ?? null,
      amount,
      conditional: argValue(b, "when") !== undefined,
      id: options.id ?? this.derivedId(tier, forward, inverse, slot, sink),
      explicitId: options.id !== null,
      span: this.ctx.span(stmt),
      node: stmt,
      argMap: options.argMap,
    });
  }

  // ---- parts --------------------------------------------------------------------------------------

  /** T1/T3 `(a, b)`: a undoes b, so b is the forward tool. T2/T4/T5 `(a)`: a is the forward tool and,
   * for T2, also its own inverse. */
  private tools(b: BoundArgs, tier: Tier): { forward: ToolDecl | null; inverse: ToolDecl | null } {
    const a = this.tool(argValue(b, "a"), "a");
    if (tier === Tier.T1 || tier === Tier.T3) return { forward: this.tool(argValue(b, "b"), "b"), inverse: a };
    if (tier === Tier.T2) return { forward: a, inverse: a };
    return { forward: a, inverse: null };
  }

  private tool(e: Expr | undefined, role: string): ToolDecl | null {
    const name = readIdent(this.ctx, e, "a tool name");
    if (name === null) return null;
    const tool = this.model.tools.get(name);
    if (tool === undefined) {
      this.ctx.report("unknown-tool", `unknown tool ${q(name)}`, e!,
        didYouMean(name, this.model.tools.keys(), `declare it with \`tool(${name}, ...).\``));
      return null;
    }
    if (tool.readOnly) {
      const help = role === "a" ? "read-only tools change nothing: they need no undo and cannot undo a call" : undefined;
      this.ctx.report("annotated-read-only-tool", `\`${name}\` is declared read-only`, e!, help);
      return null;
    }
    return tool;
  }

  private slot(e: Expr | undefined): number {
    if (e === undefined) return -1;
    if (e.kind !== "path" || e.parts.length !== 2) {
      this.ctx.report("invalid-argument", `expected a slot \`entity.slot\`, found ${e.kind === "ident" ? q(e.name) : "something else"}`, e);
      return -1;
    }
    const entity = this.model.entities.get(e.parts[0]);
    if (entity === undefined) {
      this.ctx.report("unknown-entity", `unknown entity ${q(e.parts[0])}`, e,
        didYouMean(e.parts[0], this.model.entities.keys(), "an entity is declared by its slots: `slot_definition(entity, slot, type).`"));
      return -1;
    }
    const name = e.parts.join(".");
    const slot = this.model.slots.get(name);
    if (slot === undefined) {
      const known = this.model.slotList().filter((s) => s.entity === entity.index).map((s) => `${e.parts[0]}.${s.name}`);
      this.ctx.report("unknown-slot", `unknown slot ${q(name)}`, e, didYouMean(name, known, "declare it with `slot_definition(entity, slot, type).`"));
      return -1;
    }
    return slot.index;
  }

  private lossClass(e: Expr | undefined): { index: number; weight: number } | null {
    const name = readIdent(this.ctx, e, "a loss class name");
    if (name === null) return null;
    const loss = this.model.lossClasses.get(name);
    if (loss === undefined) {
      this.ctx.report("unknown-loss-class", `unknown loss class ${q(name)}`, e!,
        didYouMean(name, this.model.lossClasses.keys(), "declare it with `loss_class_definition(name, weight = w).` or use `none`"));
      return null;
    }
    return loss;
  }

  private sink(e: Expr | undefined): number {
    const name = readIdent(this.ctx, e, "a sink name");
    if (name === null) return -1;
    const sink = this.model.sinks.get(name);
    if (sink === undefined) {
      this.ctx.report("unknown-sink", `unknown sink ${q(name)}`, e!,
        didYouMean(name, this.model.sinks.keys(), "declare it with `sink_definition(name, external = true).`"));
      return -1;
    }
    return sink.index;
  }

  /** The edge's condition program: a T2 bound, any tier's `when` and the presence of every required
   * inverse argument read from the call or the entity, conjoined (docs/semantics.md). */
  private condition(forward: ToolDecl, tier: Tier, b: BoundArgs, required: Expr[]): ProgramTable | null {
    const parts: Expr[] = [];
    const bound = tier === Tier.T2 ? argValue(b, "bound") : undefined;
    if (bound !== undefined) parts.push(bound);
    const when = argValue(b, "when");
    if (when !== undefined) parts.push(when);
    parts.push(...required);
    return compileCondition(this.ctx, this.model, this.constants, forward, parts).program;
  }

  /** With the inverse tool's parameters declared: reports required ones `args` leaves out and names it
   * does not declare, and returns a `present(source)` check for each required argument whose value is
   * read at verdict time (a call argument or a slot; literals are always there, and `new.id`/`result.*`
   * exist only once the call has run). */
  private requiredArguments(stmt: Statement, b: BoundArgs, inverse: ToolDecl, argMap: ArgMapEntry[] | null): Expr[] {
    if (inverse.params === null) return [];
    const argsExpr = argValue(b, "args");
    const given = new Set((argMap ?? []).map((a) => a.param));
    const missing = inverse.params.filter((p) => p.required && !given.has(p.name)).map((p) => p.name);
    if (missing.length > 0) {
      const list = missing.map((m) => q(m)).join(", ");
      this.ctx.report("missing-inverse-argument",
        argsExpr === undefined ? `inverse \`${inverse.name}\` requires ${list} but the annotation has no \`args\`` :
          `\`args\` gives no source for \`${inverse.name}\`'s required ${missing.length === 1 ? "parameter" : "parameters"} ${list}`,
        argsExpr ?? { start: stmt.nameStart, end: stmt.nameEnd });
    }
    if (argsExpr === undefined || argsExpr.kind !== "object") return [];
    const declared = new Map(inverse.params.map((p) => [p.name, p]));
    const checks: Expr[] = [];
    for (const entry of argsExpr.entries) {
      const param = declared.get(entry.key);
      if (param === undefined) {
        this.ctx.report("unknown-inverse-parameter", `\`${inverse.name}\` declares no parameter ${q(entry.key)}`, entry,
          didYouMean(entry.key, declared.keys(), `declare it: \`tool(${inverse.name}, params = [...], optional_params = [${entry.key}])\``));
        continue;
      }
      const v = entry.value;
      if (!param.required || v.kind !== "path" || v.parts[0] === "new" || v.parts[0] === "result") continue;
      checks.push({ kind: "apply", name: "present", args: [v], start: v.start, end: v.end });
    }
    return checks;
  }

  private options(b: BoundArgs, tier: Tier, forward: ToolDecl | null):
    { id: string | null; lifecycle: Lifecycle; identity: Identity; argMap: ArgMapEntry[] | null } | null {
    const before = this.ctx.diags.count;
    const id = this.id(argValue(b, "id"));
    const lifecycle = this.choice(argValue(b, "status"), LIFECYCLES, Lifecycle.Live, "invalid-lifecycle", "a lifecycle state");
    let identity = this.choice(argValue(b, "identity"), IDENTITIES, Identity.Same, "invalid-identity", "an identity");
    const identityExpr = argValue(b, "identity");
    if (identity === Identity.New && identityExpr !== undefined) identity = this.checkNewIdentity(identityExpr, tier, forward);
    const argsExpr = argValue(b, "args");
    let argMap: ArgMapEntry[] | null = null;
    if (argsExpr !== undefined && !isPositive(tier)) {
      this.ctx.report("invalid-option", `\`args\` on a ${TIER_NAMES[tier]} annotation`, argsExpr, "fail-closed annotations have no inverse call to build arguments for");
    } else if (argsExpr !== undefined && forward !== null) {
      argMap = compileArgMap(this.ctx, this.model, forward, argsExpr);
    }
    if (this.ctx.diags.count !== before) return null;
    return { id, lifecycle, identity, argMap };
  }

  private id(e: Expr | undefined): string | null {
    const id = readString(this.ctx, e, "the annotation id");
    if (id !== null && id.trim() === "") {
      this.ctx.report("invalid-argument", "an annotation id cannot be empty", e!);
      return null;
    }
    return id;
  }

  private choice<T>(e: Expr | undefined, values: ReadonlyMap<string, T>, fallback: T,
    code: "invalid-lifecycle" | "invalid-identity", what: string): T {
    if (e === undefined) return fallback;
    if (e.kind !== "ident") {
      this.ctx.report(code, `expected ${what}, found ${describe(e)}`, e, `${DIAGNOSTIC_CODES[code]}, written as names, not strings`);
      return fallback;
    }
    const v = values.get(e.name);
    if (v === undefined) this.ctx.report(code, `${q(e.name)} is not ${what}`, e);
    return v ?? fallback;
  }

  /** `identity = new` says the inverse leaves a replacement under a new id: only meaningful for a
   * positive annotation on a tool whose calls have a target entity. */
  private checkNewIdentity(e: Expr, tier: Tier, forward: ToolDecl | null): Identity {
    if (!isPositive(tier)) {
      this.ctx.report("invalid-identity", `\`identity = new\` on a ${TIER_NAMES[tier]} annotation`, e, "fail-closed annotations have no inverse, so no identity");
    } else if (forward !== null && forward.actsOn < 0 && forward.creates < 0) {
      this.ctx.report("invalid-identity", `\`identity = new\` but \`${forward.name}\` has no target entity`, e,
        `declare what it acts on or creates: \`tool(${forward.name}, acts_on = entity, key = arg)\``);
    }
    return Identity.New;
  }

  /** `T1.book_order.cancel_order.order.status`, `T2.tool.tool`, `T4.tool.entity.slot`, `T5.tool.sink`. */
  private derivedId(tier: Tier, forward: ToolDecl, inverse: ToolDecl | null, slot: number, sink: number): string {
    const parts = [TIER_NAMES[tier], forward.name];
    if (inverse !== null) parts.push(inverse.name);
    if (slot >= 0) {
      const s = this.model.slotAt(slot);
      parts.push(this.model.entityAt(s.entity).name, s.name);
    }
    if (sink >= 0) parts.push(this.model.sinkAt(sink).name);
    return parts.join(".");
  }
}

/** Per-step phi (docs/semantics.md, "Fixed point"): T1/T2 w, T3 floor(w * (ONE - wl) / ONE), T4/T5 0. */
export function phiOf(tier: Tier, w: number, lossWeight: number): number {
  if (tier === Tier.T1 || tier === Tier.T2) return w;
  if (tier === Tier.T3) return compensatedPhi(w, lossWeight);
  return 0;
}

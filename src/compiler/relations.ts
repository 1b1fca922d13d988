// Checks across annotations, once all are known: duplicates, contradictions between a tool's positive
// and fail-closed edges on one slot, and mutating tools nobody annotated.
import { Lifecycle, Tier } from "../abi.js";
import type { Context } from "./context.js";
import { q } from "./diagnostics.js";
import type { EdgeDecl, Model } from "./model.js";

export function checkRelations(ctx: Context, model: Model): void {
  duplicateShapes(ctx, model.edges);
  duplicateIds(ctx, model.edges);
  contradictions(ctx, model);
  // Only on an otherwise clean ontology: after errors, a tool whose annotation failed is not news.
  if (ctx.diags.items.every((d) => d.severity !== "error") && ctx.diags.dropped === 0) unannotatedTools(ctx, model);
}

/** Two annotations of one construct on the same tools and slot (or sink) are a duplicate, unless both
 * carry explicit, distinct ids: then they are deliberate alternatives (e.g. two bounds). */
function duplicateShapes(ctx: Context, edges: EdgeDecl[]): void {
  const first = new Map<string, EdgeDecl>();
  for (const e of edges) {
    const key = `${e.tier}|${e.forward}|${e.inverse}|${e.slot}|${e.sink}`;
    const prior = first.get(key);
    if (prior === undefined) { first.set(key, e); continue; }
    if (prior.explicitId && e.explicitId) continue;
    ctx.report("duplicate-annotation", `this annotation repeats the one at line ${prior.span.line}`, e.node,
      "annotate each (construct, tools, slot) once; for deliberate alternatives give both an explicit distinct `id`");
  }
}

function duplicateIds(ctx: Context, edges: EdgeDecl[]): void {
  const first = new Map<string, EdgeDecl>();
  for (const e of edges) {
    const prior = first.get(e.id);
    if (prior === undefined) { first.set(e.id, e); continue; }
    // A repeated shape is already reported, and a derived id repeats with it.
    if (!e.explicitId && !prior.explicitId) continue;
    ctx.report("duplicate-annotation", `annotation id ${q(e.id)} is already used at line ${prior.span.line}`, e.node,
      "annotation ids are unique: verdicts name the annotation behind each step by its id");
  }
}

/** A live positive edge (T1/T3) and a live T4 edge of one forward tool on the same slot. Edges with a
 * `when` condition are left out: they may apply in different states (T3 unless a voucher paid, T4 when
 * one did), and the search takes whichever applies. */
function contradictions(ctx: Context, model: Model): void {
  const positive = new Map<string, EdgeDecl>();
  const consuming = new Map<string, EdgeDecl>();
  for (const e of model.edges) {
    if (e.lifecycle !== Lifecycle.Live || e.slot < 0 || e.conditional) continue;
    const key = `${e.forward}|${e.slot}`;
    const isPositive = e.tier === Tier.T1 || e.tier === Tier.T3;
    const other = (isPositive ? consuming : positive).get(key);
    if (other !== undefined) {
      const tool = model.toolList()[e.forward]?.name ?? "?";
      const slot = model.slotAt(e.slot);
      ctx.report("contradictory-edges",
        `\`${tool}\` is both undoable and irreversibly consumed on \`${model.entityAt(slot.entity).name}.${slot.name}\` (line ${other.span.line})`, e.node);
    }
    const own = isPositive ? positive : e.tier === Tier.T4 ? consuming : null;
    if (own !== null && !own.has(key)) own.set(key, e);
  }
}

function unannotatedTools(ctx: Context, model: Model): void {
  const annotated = new Set(model.edges.map((e) => e.forward));
  for (const t of model.toolList()) {
    if (t.readOnly || annotated.has(t.index)) continue;
    ctx.report("tool-without-annotation", `mutating tool \`${t.name}\` has no annotation`, t.node);
  }
}

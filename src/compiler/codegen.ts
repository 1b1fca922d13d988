// Layout: the checked model as OntologyTables (src/ontology/tables.ts), exactly as docs/semantics.md and
// src/abi.ts describe. Edges are grouped by forward tool, in source order within a tool, with CSR row
// pointers in edgeOffsets. Every string the tables name is interned into the pool, in a fixed order.
import type { EdgeTable, OntologyTables, ProgramTable, ToolTable } from "../ontology/tables.js";
import type { ConstantPool } from "./bounds.js";
import type { Context } from "./context.js";
import type { EdgeDecl, Model, ToolDecl } from "./model.js";

export interface LayoutInput {
  sourceName: string;
  sourceSha256: Uint8Array;
  compilerVersion: string;
}

export function layout(ctx: Context, model: Model, constants: ConstantPool, info: LayoutInput): OntologyTables {
  const pool = ctx.pool;
  const tools = model.toolList();
  const { edges, edgeOffsets, programs } = groupEdges(model.edges, tools.length);
  const tables: OntologyTables = {
    sourceName: info.sourceName,
    sourceSha256: info.sourceSha256,
    compilerVersion: info.compilerVersion,
    strings: pool.strings,
    entities: model.entityList().map((e) => ({ name: e.name })),
    slots: model.slotList().map((s) => ({ name: s.name, entity: s.entity, type: s.type })),
    lossClasses: model.lossList().map((l) => ({ name: l.name, weight: l.weight })),
    sinks: model.sinkList().map((s) => ({ name: s.name, external: s.external })),
    tools: tools.map(toolTable),
    edgeOffsets,
    edges,
    programs,
    constants: constants.constants,
    meta: {},
  };
  internAll(ctx, tables);
  return tables;
}

function toolTable(t: ToolDecl): ToolTable {
  return {
    name: t.name,
    readOnly: t.readOnly,
    actsOn: t.actsOn,
    keyArg: t.keyArg,
    keyConst: t.keyConst,
    creates: t.creates,
    target: t.creates >= 0 ? t.creates : t.actsOn,
    newKey: t.newKey,
    operands: t.operands.map((o) => ({ ...o })),
  };
}

/** Stable bucket sort by forward tool; programs are numbered in the resulting edge order. */
function groupEdges(decls: EdgeDecl[], toolCount: number): { edges: EdgeTable[]; edgeOffsets: number[]; programs: ProgramTable[] } {
  const edgeOffsets = new Array<number>(toolCount + 1).fill(0);
  for (const e of decls) edgeOffsets[e.forward + 1]++;
  for (let t = 0; t < toolCount; t++) edgeOffsets[t + 1] += edgeOffsets[t];
  const next = edgeOffsets.slice(0, toolCount);
  const ordered = new Array<EdgeDecl>(decls.length);
  for (const e of decls) ordered[next[e.forward]++] = e;
  const programs: ProgramTable[] = [];
  const edges = ordered.map((e) => {
    let program = -1;
    if (e.program !== null) {
      program = programs.length;
      programs.push(e.program);
    }
    let amount = -1;
    if (e.amount !== null) {
      amount = programs.length;
      programs.push(e.amount);
    }
    return edgeTable(e, program, amount);
  });
  return { edges, edgeOffsets, programs };
}

function edgeTable(e: EdgeDecl, program: number, amount: number): EdgeTable {
  return {
    tier: e.tier,
    lifecycle: e.lifecycle,
    identity: e.identity,
    forward: e.forward,
    inverse: e.inverse,
    slot: e.slot,
    lossClass: e.lossClass,
    sink: e.sink,
    weight: e.weight,
    phi: e.phi,
    lossWeight: e.lossWeight,
    program,
    amount,
    id: e.id,
    span: e.span,
    argMap: e.argMap,
  };
}

/** Interns every string the tables name. Bound string literals and operand paths are already in,
 * in source order; the rest follows table order, so the pool is a pure function of the source. */
function internAll(ctx: Context, t: OntologyTables): void {
  const add = (s: string | null) => { if (s !== null) ctx.pool.intern(s); };
  add(t.compilerVersion);
  add(t.sourceName);
  t.entities.forEach((e) => add(e.name));
  t.slots.forEach((s) => add(s.name));
  t.lossClasses.forEach((l) => add(l.name));
  t.sinks.forEach((s) => add(s.name));
  for (const tool of t.tools) {
    add(tool.name);
    add(tool.keyArg);
    add(tool.keyConst);
    add(tool.newKey);
    tool.operands.forEach((o) => { add(o.path); add(o.key ?? null); });
  }
  for (const e of t.edges) {
    add(e.id);
    e.argMap?.forEach((a) => { add(a.param); add(a.ref); });
  }
  for (const [k, v] of Object.entries(t.meta)) { add(k); add(v); }
}

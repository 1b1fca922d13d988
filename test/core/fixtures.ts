// Test fixtures for the core: a small builder of OntologyTables, a minimal blob encoder that writes
// just the header and the sections the WebAssembly core reads, the core builds (compiled on demand
// when a source is newer than build/), and a runner that writes one input record and reads the output.
import { execSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ABI_VERSION,
  BLOB_FORMAT_VERSION,
  BLOB_HEADER_SIZE,
  BLOB_MAGIC,
  CONST_SIZE,
  EDGE_AMOUNT,
  EDGE_ARGMAP,
  EDGE_FORWARD,
  EDGE_IDENTITY,
  EDGE_INVERSE,
  EDGE_LIFECYCLE,
  EDGE_LOSS,
  EDGE_LOSS_W,
  EDGE_PHI,
  EDGE_PROGRAM,
  EDGE_SINK,
  EDGE_SIZE,
  EDGE_SLOT,
  EDGE_TIER,
  EDGE_WEIGHT,
  FIXED_ONE,
  HDR_ABI_VERSION,
  HDR_FORMAT_VERSION,
  HDR_MAGIC,
  HDR_SECTION_COUNT,
  HDR_TOTAL_LEN,
  Identity,
  Lifecycle,
  Op,
  PROGRAM_SIZE,
  SECTION_ENTRY_SIZE,
  Section,
  Tier,
  TOOL_ACTS_ON,
  TOOL_CREATES,
  TOOL_FLAGS,
  TOOL_KEY_ARG,
  TOOL_NEW_KEY,
  TOOL_OPERAND_COUNT,
  TOOL_OPERAND_START,
  TOOL_SIZE,
  TOOL_TARGET,
  ToolFlag,
  ValueTag,
  OperandKind,
  SlotType,
} from "../../src/abi.js";
import type { SearchBackend } from "../../src/core/backend.js";
import { readOutput, tierFlags, writeCall, writeHeader, writeOperand, type RawOutput } from "../../src/core/record.js";
import { instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import type { EdgeTable, OntologyTables, ToolTable } from "../../src/ontology/tables.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ONE = FIXED_ONE;

// ---------------------------------------------------------------------------------------------------
// Core builds.

export type Build = "release" | "debug" | "fault";
const FILES: Record<Build, string> = {
  release: "build/polar-core.wasm",
  debug: "build/polar-core.debug.wasm",
  fault: "build/polar-core.fault.wasm",
};

function newestSource(): number {
  const files = readdirSync(join(ROOT, "assembly")).filter((f) => f.endsWith(".ts")).map((f) => join(ROOT, "assembly", f));
  files.push(join(ROOT, "src/abi.ts"), join(ROOT, "asconfig.json"));
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

function isFresh(): boolean {
  const newest = newestSource();
  return Object.values(FILES).every((f) => {
    try {
      return statSync(join(ROOT, f)).mtimeMs >= newest;
    } catch {
      return false;
    }
  });
}

const LOCK = join(ROOT, "build/.core-build-lock");

/** Rebuilds the cores when a source is newer. Test files run in parallel workers, so one builds
 * under a lock directory while the others wait for it. */
function ensureBuilt(): void {
  const deadline = Date.now() + 300_000;
  while (!isFresh()) {
    mkdirSync(join(ROOT, "build"), { recursive: true });
    let mine = false;
    try {
      mkdirSync(LOCK);
      mine = true;
    } catch {
      if (Date.now() > deadline) throw new Error(`core build lock held too long: remove ${LOCK}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      continue;
    }
    try {
      if (!isFresh()) execSync("npm run build:wasm", { cwd: ROOT, stdio: "pipe" });
    } finally {
      if (mine) rmdirSync(LOCK);
    }
  }
}

/** The bytes of a core build, rebuilding all three first when a source is newer. */
export function wasmBytes(build: Build): Uint8Array<ArrayBuffer> {
  ensureBuilt();
  return new Uint8Array(readFileSync(join(ROOT, FILES[build])));
}

const modules = new Map<Build, WebAssembly.Module>();
export function coreModule(build: Build): WebAssembly.Module {
  let m = modules.get(build);
  if (m === undefined) {
    m = new WebAssembly.Module(wasmBytes(build));
    modules.set(build, m);
  }
  return m;
}

export function newCore(build: Build = "release"): CoreInstance {
  return instantiateCoreSync(coreModule(build));
}

// ---------------------------------------------------------------------------------------------------
// Tables.

export interface ToolSpec {
  readOnly?: boolean;
  actsOn?: number; // entity, -1 none
  creates?: number; // entity, -1 none
  operands?: number; // how many operand values its bound programs read
}

export interface EdgeSpec {
  tier: Tier;
  inverse?: number;
  weight?: number;
  lossWeight?: number;
  phi?: number; // default: computed from tier, weight, lossWeight as the compiler does
  identity?: Identity;
  lifecycle?: Lifecycle;
  program?: number;
  amount?: number; // amount program index
  id?: string;
}

/** A value as bound programs see it. */
export interface Val {
  tag: ValueTag;
  value: bigint;
}
export const num = (x: number | bigint): Val => ({ tag: ValueTag.Number, value: BigInt(x) });
export const str = (id: number): Val => ({ tag: ValueTag.String, value: BigInt(id) });
export const bool = (b: boolean): Val => ({ tag: ValueTag.Bool, value: b ? 1n : 0n });
export const missing: Val = { tag: ValueTag.Missing, value: 0n };
export const nul: Val = { tag: ValueTag.Null, value: 0n };

/** Builds OntologyTables the way the compiler lays them out (edges grouped by forward tool). */
export class TablesBuilder {
  private tools: ToolTable[] = [];
  private edgeSpecs: { tool: number; spec: EdgeSpec }[] = [];
  private programs: { code: number[]; maxStack: number }[] = [];
  private constants: Val[] = [];
  entities = ["order", "reservation", "user"];

  tool(name: string, spec: ToolSpec = {}): number {
    const actsOn = spec.actsOn ?? -1;
    const creates = spec.creates ?? -1;
    this.tools.push({
      name,
      readOnly: spec.readOnly ?? false,
      actsOn,
      keyArg: actsOn >= 0 ? "id" : null,
      creates,
      target: creates >= 0 ? creates : actsOn,
      newKey: creates >= 0 ? "id" : null,
      keyConst: null,
      operands: Array.from({ length: spec.operands ?? 0 }, (_, k) => ({
        kind: OperandKind.ArgValue,
        slot: -1,
        path: `arg${k}`,
        type: SlotType.Number,
      })),
    });
    return this.tools.length - 1;
  }

  edge(tool: number, spec: EdgeSpec): this {
    this.edgeSpecs.push({ tool, spec });
    return this;
  }

  constant(v: Val): number {
    this.constants.push(v);
    return this.constants.length - 1;
  }

  /** A program from [op, arg] pairs; returns its index. */
  program(code: [Op, number?][]): number {
    this.programs.push({ code: code.map(([op, arg]) => op | ((arg ?? 0) << 8)), maxStack: 8 });
    return this.programs.length - 1;
  }

  build(): OntologyTables {
    const edges: EdgeTable[] = [];
    const edgeOffsets: number[] = [0];
    for (let t = 0; t < this.tools.length; t++) {
      for (const { tool, spec } of this.edgeSpecs) if (tool === t) edges.push(edgeTable(t, spec, edges.length));
      edgeOffsets.push(edges.length);
    }
    return {
      sourceName: "test.polar",
      sourceSha256: new Uint8Array(32),
      compilerVersion: "test",
      strings: ["test"],
      entities: this.entities.map((name) => ({ name })),
      slots: [],
      lossClasses: [],
      sinks: [],
      tools: this.tools,
      edgeOffsets,
      edges,
      programs: this.programs,
      constants: this.constants.map((c) => ({ tag: c.tag, value: c.value })),
      meta: {},
    };
  }
}

function defaultPhi(tier: Tier, w: number, wl: number): number {
  if (tier === Tier.T1 || tier === Tier.T2) return w;
  if (tier === Tier.T3) return Math.floor((w * (ONE - wl)) / ONE);
  return 0;
}

function edgeTable(tool: number, s: EdgeSpec, index: number): EdgeTable {
  const weight = s.weight ?? ONE;
  const lossWeight = s.lossWeight ?? 0;
  const positive = s.tier <= Tier.T3;
  return {
    tier: s.tier,
    lifecycle: s.lifecycle ?? Lifecycle.Live,
    identity: s.identity ?? Identity.Same,
    forward: tool,
    inverse: positive ? (s.inverse ?? (s.tier === Tier.T2 ? tool : tool)) : -1,
    slot: -1,
    lossClass: -1,
    sink: -1,
    weight,
    phi: s.phi ?? defaultPhi(s.tier, weight, lossWeight),
    lossWeight,
    program: s.program ?? -1,
    amount: s.amount ?? -1,
    id: s.id ?? `e${index}`,
    span: { line: index + 1, col: 1, endLine: index + 1, endCol: 2 },
    argMap: null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Minimal blob: the header fields load() checks and the six sections the core reads.

export function encodeCoreBlob(t: OntologyTables): Uint8Array {
  const tools = new DataView(new ArrayBuffer(t.tools.length * TOOL_SIZE));
  let operandStart = 0;
  t.tools.forEach((tool, i) => {
    const at = i * TOOL_SIZE;
    tools.setUint32(at + TOOL_FLAGS, (tool.readOnly ? ToolFlag.ReadOnly : 0) | ToolFlag.Declared, true);
    tools.setInt32(at + TOOL_ACTS_ON, tool.actsOn, true);
    tools.setInt32(at + TOOL_KEY_ARG, -1, true);
    tools.setInt32(at + TOOL_CREATES, tool.creates, true);
    tools.setInt32(at + TOOL_TARGET, tool.target, true);
    tools.setUint32(at + TOOL_OPERAND_START, operandStart, true);
    tools.setUint32(at + TOOL_OPERAND_COUNT, tool.operands.length, true);
    tools.setInt32(at + TOOL_NEW_KEY, -1, true);
    operandStart += tool.operands.length;
  });
  const rows = new DataView(new ArrayBuffer(t.edgeOffsets.length * 4));
  t.edgeOffsets.forEach((o, i) => rows.setUint32(i * 4, o, true));
  const edges = new DataView(new ArrayBuffer(t.edges.length * EDGE_SIZE));
  t.edges.forEach((e, i) => {
    const at = i * EDGE_SIZE;
    edges.setUint8(at + EDGE_TIER, e.tier);
    edges.setUint8(at + EDGE_LIFECYCLE, e.lifecycle);
    edges.setUint8(at + EDGE_IDENTITY, e.identity);
    edges.setUint32(at + EDGE_FORWARD, e.forward, true);
    edges.setInt32(at + EDGE_INVERSE, e.inverse, true);
    edges.setInt32(at + EDGE_SLOT, e.slot, true);
    edges.setInt32(at + EDGE_LOSS, e.lossClass, true);
    edges.setInt32(at + EDGE_SINK, e.sink, true);
    edges.setInt32(at + EDGE_WEIGHT, e.weight, true);
    edges.setInt32(at + EDGE_PHI, e.phi, true);
    edges.setInt32(at + EDGE_LOSS_W, e.lossWeight, true);
    edges.setInt32(at + EDGE_PROGRAM, e.program, true);
    edges.setInt32(at + EDGE_ARGMAP, -1, true);
    edges.setInt32(at + EDGE_AMOUNT, e.amount, true);
  });
  const programs = new DataView(new ArrayBuffer(t.programs.length * PROGRAM_SIZE));
  const code: number[] = [];
  t.programs.forEach((p, i) => {
    programs.setUint32(i * PROGRAM_SIZE, code.length, true);
    programs.setUint32(i * PROGRAM_SIZE + 4, p.code.length, true);
    programs.setUint32(i * PROGRAM_SIZE + 8, p.maxStack, true);
    code.push(...p.code);
  });
  const codeView = new DataView(new ArrayBuffer(code.length * 4));
  code.forEach((w, i) => codeView.setUint32(i * 4, w >>> 0, true));
  const consts = new DataView(new ArrayBuffer(t.constants.length * CONST_SIZE));
  t.constants.forEach((c, i) => {
    consts.setInt32(i * CONST_SIZE, c.tag, true);
    consts.setBigInt64(i * CONST_SIZE + 8, c.value, true);
  });
  return assemble([
    [Section.Tools, tools],
    [Section.EdgeOffsets, rows],
    [Section.Edges, edges],
    [Section.Programs, programs],
    [Section.Code, codeView],
    [Section.Constants, consts],
  ]);
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

export function assemble(sections: [number, DataView][]): Uint8Array {
  let at = align8(BLOB_HEADER_SIZE + sections.length * SECTION_ENTRY_SIZE);
  const placed = sections.map(([id, data]) => {
    const off = at;
    at = align8(at + data.byteLength);
    return { id, off, data };
  });
  const bytes = new Uint8Array(at);
  const v = new DataView(bytes.buffer);
  v.setUint32(HDR_MAGIC, BLOB_MAGIC, true);
  v.setUint16(HDR_ABI_VERSION, ABI_VERSION, true);
  v.setUint16(HDR_FORMAT_VERSION, BLOB_FORMAT_VERSION, true);
  v.setUint32(HDR_TOTAL_LEN, at, true);
  v.setUint32(HDR_SECTION_COUNT, sections.length, true);
  placed.forEach(({ id, off, data }, i) => {
    const e = BLOB_HEADER_SIZE + i * SECTION_ENTRY_SIZE;
    v.setUint32(e, id, true);
    v.setUint32(e + 4, off, true);
    v.setUint32(e + 8, data.byteLength, true);
    bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), off);
  });
  return bytes;
}

// ---------------------------------------------------------------------------------------------------
// One verdict.

export interface CallSpec {
  tool: number;
  grounded?: boolean;
  key?: number;
  operands?: Val[];
}

export interface RunOptions {
  tau?: number;
  flags?: number;
  maxNodes?: number;
  maxDepth?: number;
  now?: bigint;
}

/** Writes the input record for `calls` and runs one verdict. */
export function run(backend: SearchBackend, calls: CallSpec[], o: RunOptions = {}): RawOutput {
  const view = backend.inputView();
  let nOperands = 0;
  calls.forEach((c, i) => {
    writeCall(view, i, c.tool, c.grounded ?? true, c.key ?? i, nOperands);
    for (const v of c.operands ?? []) writeOperand(view, nOperands++, v.tag, v.value);
  });
  writeHeader(view, {
    nCalls: calls.length,
    tau: o.tau ?? 800000,
    flags: o.flags ?? tierFlags(["T1", "T2", "T3"], true),
    maxNodes: o.maxNodes ?? 100000,
    now: o.now ?? 0n,
    maxDepth: o.maxDepth ?? 64,
    nOperands,
  });
  return readOutput(backend.run());
}

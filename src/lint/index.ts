// `polar lint`: does an ontology cover a domain's tools, and does it classify them as the tool manifest
// does? Pure: compiled tables and a parsed manifest in, findings out. The CLI (src/cli/commands/lint.ts)
// reads the files and prints.
import { Lifecycle, Tier } from "../abi.js";
import type { OntologyTables } from "../ontology/tables.js";
import type { Manifest, ManifestParam, ManifestTool, ToolSide } from "./manifest.js";

export { parseManifest, ManifestError, type Manifest, type ManifestParam, type ManifestTool, type ManifestFormat, type ToolKind, type ToolSide } from "./manifest.js";

export type LintCode =
  | "missing-tool" //              the manifest has it, the ontology does not: it would fail closed as unknown_tool
  | "extra-tool" //                the ontology has it, the manifest does not (renamed or removed tool)
  | "write-declared-read-only" //  a state-changing tool skipped by the search: its calls would never be checked
  | "read-tool-annotated" //       a read tool with annotations
  | "read-tool-not-read-only" //   a read tool declared as mutating: every call refused with no_candidate
  | "write-tool-unannotated" //    a write tool with no live annotation: every call refused with no_candidate
  | "inverse-missing-arguments" // an inverse's `args` leave a required parameter of its tool without a source
  | "inverse-unknown-arguments" // an inverse's `args` set a parameter its tool does not take
  | "params-mismatch"; //          a tool's declared params / optional_params differ from the manifest's

export type LintSeverity = "error" | "warning";

export interface LintFinding {
  code: LintCode;
  severity: LintSeverity;
  tool: string;
  message: string;
  /** The annotation an inverse-arguments finding is about. */
  annotation?: string;
}

export interface LintOptions {
  /** Only manifest tools of this side (τ²-bench telecom lists agent and user tools in one manifest). */
  side?: ToolSide;
  /** The tools' declared parameters (`compile(...).model.tools`), to compare with the manifest; a blob
   * carries none, so without it that comparison is skipped. */
  declaredParams?: ReadonlyArray<{ name: string; params: ReadonlyArray<ManifestParam> | null }>;
}

export interface LintReport {
  findings: LintFinding[];
  errors: number;
  warnings: number;
  /** Manifest tools compared (after the side filter). */
  checked: number;
}

const SEVERITY: Record<LintCode, LintSeverity> = {
  "missing-tool": "error",
  "extra-tool": "error",
  "write-declared-read-only": "error",
  "read-tool-annotated": "error",
  "read-tool-not-read-only": "error",
  "write-tool-unannotated": "warning",
  "inverse-missing-arguments": "error",
  "inverse-unknown-arguments": "error",
  "params-mismatch": "error",
};

interface OntologyTool {
  readOnly: boolean;
  edges: number; // all annotations
  liveEdges: number;
}

function ontologyTools(tables: OntologyTables): Map<string, OntologyTool> {
  const out = new Map<string, OntologyTool>();
  tables.tools.forEach((t, i) => {
    let edges = 0;
    let liveEdges = 0;
    for (let e = tables.edgeOffsets[i]; e < tables.edgeOffsets[i + 1]; e++) {
      edges++;
      if (tables.edges[e].lifecycle === Lifecycle.Live) liveEdges++;
    }
    out.set(t.name, { readOnly: t.readOnly, edges, liveEdges });
  });
  return out;
}

function finding(code: LintCode, tool: string, message: string): LintFinding {
  return { code, severity: SEVERITY[code], tool, message };
}

/** Compares one manifest entry with the ontology's view of the same tool. */
function checkTool(m: ManifestTool, o: OntologyTool | undefined, out: LintFinding[]): void {
  if (o === undefined) {
    out.push(finding("missing-tool", m.name, `tool \`${m.name}\` (${m.kind}) is in the manifest but not in the ontology`));
    return;
  }
  const reads = m.kind === "read" || m.kind === "pure";
  if (m.kind === "write" && o.readOnly) {
    out.push(finding("write-declared-read-only", m.name, `write tool \`${m.name}\` is declared read_only`));
  } else if (reads && o.edges > 0) {
    out.push(finding("read-tool-annotated", m.name, `read tool \`${m.name}\` carries ${o.edges} annotation${o.edges === 1 ? "" : "s"}`));
  } else if (reads && !o.readOnly) {
    out.push(finding("read-tool-not-read-only", m.name, `read tool \`${m.name}\` is declared with tool(...) instead of read_only(...)`));
  } else if (m.kind === "write" && o.liveEdges === 0) {
    out.push(finding("write-tool-unannotated", m.name, `write tool \`${m.name}\` has no live annotation: every call is refused with no_candidate`));
  }
}

/** Lints an ontology against a manifest. Findings come in manifest order, then the ontology's extras. */
export function lintOntology(tables: OntologyTables, manifest: Manifest, options: LintOptions = {}): LintReport {
  const onto = ontologyTools(tables);
  const wanted = manifest.tools.filter((t) => options.side === undefined || t.side === options.side);
  const findings: LintFinding[] = [];
  const seen = new Set<string>();
  for (const m of wanted) {
    if (seen.has(m.name)) continue; // a tool listed twice (e.g. agent and user side) is checked once
    seen.add(m.name);
    checkTool(m, onto.get(m.name), findings);
  }
  // With a side filter, the other side's tools are not extras: they are simply out of scope.
  const everywhere = new Set(manifest.tools.map((t) => t.name));
  for (const name of onto.keys()) {
    if (!everywhere.has(name)) findings.push(finding("extra-tool", name, `tool \`${name}\` is in the ontology but not in the manifest`));
  }
  const byName = new Map<string, ManifestTool>();
  for (const m of manifest.tools) if (m.params !== null && !byName.has(m.name)) byName.set(m.name, m);
  inverseArguments(tables, byName, seen, findings);
  if (options.declaredParams !== undefined) declaredParams(options.declaredParams, byName, seen, findings);
  const errors = findings.filter((f) => f.severity === "error").length;
  return { findings, errors, warnings: findings.length - errors, checked: seen.size };
}

const quoteList = (names: string[]) => names.map((n) => `\`${n}\``).join(", ");

/** Every positive annotation (whatever its lifecycle state) whose inverse call (the tool and its `args`) would not be
 * accepted by the tool as the manifest describes it: a required parameter without a source, or a
 * parameter the tool does not take. Annotations come in edge order. */
function inverseArguments(tables: OntologyTables, manifest: ReadonlyMap<string, ManifestTool>, checked: ReadonlySet<string>,
  out: LintFinding[]): void {
  for (const e of tables.edges) {
    // Only annotations of the tools in scope (the side filter), like every other finding.
    if (e.inverse < 0 || e.tier > Tier.T3 || !checked.has(tables.tools[e.forward].name)) continue;
    const tool = tables.tools[e.inverse].name;
    const m = manifest.get(tool);
    if (m === undefined || m.params === null) continue;
    const given = new Set((e.argMap ?? []).map((a) => a.param));
    const forward = tables.tools[e.forward].name;
    const missing = m.params.filter((p) => p.required && !given.has(p.name)).map((p) => p.name);
    if (missing.length > 0) {
      const what = e.argMap === null ? "has no `args`" : `gives no source for ${quoteList(missing)}`;
      out.push({ ...finding("inverse-missing-arguments", forward,
        `annotation \`${e.id}\` undoes \`${forward}\` with \`${tool}\`, which requires ${quoteList(missing)}; its argument map ${what}`), annotation: e.id });
    }
    const known = new Set(m.params.map((p) => p.name));
    const unknown = [...given].filter((p) => !known.has(p));
    if (unknown.length > 0) {
      out.push({ ...finding("inverse-unknown-arguments", forward,
        `annotation \`${e.id}\` calls \`${tool}\` with ${quoteList(unknown)}, which the manifest does not list`), annotation: e.id });
    }
  }
}

/** Tools whose declared `params` / `optional_params` are not the manifest's (names and requiredness). */
function declaredParams(declared: NonNullable<LintOptions["declaredParams"]>, manifest: ReadonlyMap<string, ManifestTool>,
  checked: ReadonlySet<string>, out: LintFinding[]): void {
  for (const t of declared) {
    const m = manifest.get(t.name);
    if (t.params === null || m === undefined || m.params === null || !checked.has(t.name)) continue;
    const mine = new Map(t.params.map((p) => [p.name, p.required]));
    const theirs = new Map(m.params.map((p) => [p.name, p.required]));
    const problems: string[] = [];
    for (const [name, required] of theirs) {
      if (!mine.has(name)) problems.push(`\`${name}\` (${required ? "required" : "optional"}) is not declared`);
      else if (mine.get(name) !== required) problems.push(`\`${name}\` is declared ${mine.get(name) ? "required" : "optional"} but is ${required ? "required" : "optional"}`);
    }
    for (const name of mine.keys()) if (!theirs.has(name)) problems.push(`\`${name}\` is not a parameter of the tool`);
    if (problems.length > 0) out.push(finding("params-mismatch", t.name, `tool \`${t.name}\` parameters differ from the manifest: ${problems.join("; ")}`));
  }
}

// The `--execute` part of `polar eval tau2`: reads the same results files the eval read, builds each
// domain's setup, runs ./execute.ts and renders its section of the Markdown and HTML reports.
import { existsSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { loadDomainOntology, loadDomainRules } from "../tau2/domains.js";
import { createReferenceBackend } from "../reference/index.js";
import type { Trajectory } from "../tau2/adapter.js";
import { readTau2Data } from "../tau2/data.js";
import { projectAll, type ReplayScope } from "../tau2/replay.js";
import type { DomainSetup } from "./collect.js";
import type { Block } from "./document.js";
import { EvalError } from "./errors.js";
import { compile } from "../compiler/index.js";
import { executeVerdicts, type ExecFigures, type ExecutionReport, type Residue } from "./execute.js";
import { DEFAULT_TAU } from "./variants.js";
import { matchTasks } from "./task-match.js";

export interface ExecuteRunOptions {
  data: string;
  results?: readonly string[];
  root: string;
  scopes?: readonly ReplayScope[];
  tau?: number;
  tau2Src?: string;
  python?: string;
  onProgress?: (done: number, label: string) => void;
  /** Keep only some runs: (file, simulation index, simulations in the file) → run it. */
  only?: (file: string, simulation: number, count: number) => boolean;
  keepVerdicts?: boolean;
}

export async function runExecution(options: ExecuteRunOptions): Promise<ExecutionReport> {
  const data = readTau2Data(options.data);
  const files =
    options.results && options.results.length > 0
      ? options.results.map((f) => {
          if (existsSync(f)) return resolve(f);
          const inResults = join(data.root, "results", f);
          if (existsSync(inResults)) return inResults;
          throw new EvalError("no-such-file", `results file \`${f}\` not found`);
        })
      : data.resultsFiles();
  const byDomain = new Map<string, Trajectory[]>();
  for (const f of files) {
    const all = data.readResultsFile(f);
    const trajs = options.only ? all.filter((t) => options.only!(f, t.source.index, all.length)) : all;
    const domain = trajs[0]?.domain ?? null;
    if (domain === null || !data.domainNames.includes(domain) || !existsSync(join(options.root, "ontologies", domain))) continue;
    // A run whose reward_info names another task's actions runs from that task's initial state, or not at all.
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), ...matchTasks(trajs, data.domain(domain).tasks).kept]);
  }
  const domains = [...byDomain.keys()].sort().map((name) => {
    const { ontology, source } = loadDomainOntology(options.root, name);
    const rules = loadDomainRules(options.root, name);
    const dom = data.domain(name);
    const setup: DomainSetup = { name, ontology: ontology as DomainSetup["ontology"], rules, documents: dom.documents, base: projectAll(rules, dom.documents) };
    return { setup, trajectories: byDomain.get(name)!, residues: residuesOf(source) };
  });
  return executeVerdicts(domains, {
    data: data.root,
    tau2Src: options.tau2Src,
    python: options.python,
    scopes: options.scopes ?? ["turn", "session"],
    tau: options.tau ?? DEFAULT_TAU,
    backend: (tables) => createReferenceBackend(tables),
    onProgress: options.onProgress,
    keepVerdicts: options.keepVerdicts,
  });
}

/** Each loss class's declared residue, from the ontology source compiled (the blob does not carry it). */
function residuesOf(source: string | null): Map<string, Residue[]> {
  const out = new Map<string, Residue[]>();
  if (source === null) return out;
  const r = compile(source);
  const model = (r.ok ? r.model : null) as { lossClasses?: { name: string; residue?: Residue[] }[] } | null;
  for (const lc of model?.lossClasses ?? []) out.set(lc.name, lc.residue ?? []);
  return out;
}

function figureRow(label: string, f: ExecFigures): string[] {
  return [
    label,
    String(f.admitted),
    String(f.restored),
    String(f.withinResidue),
    `${f.residue.bookkeeping} · ${f.residue.moneyOrInventory}`,
    `${f.amounts.matched} · ${f.amounts.mismatched} · ${f.amounts.undeclared}`,
    String(f.wrong),
    String(f.missingArguments),
    String(f.refusals.confirmed),
    String(f.refusals.conservative),
    `${f.fidelity.mismatches}/${f.fidelity.reads}`,
    `${f.replay.outputMismatches}/${f.replay.calls}`,
  ];
}

const HEAD = ["", "admitted", "restored", "within residue", "bookkeeping · money/inventory", "amount matched · mismatched · undeclared", "wrong", "missing args", "refusals confirmed", "refusals conservative", "fidelity mismatches/reads", "output mismatches/calls"];
const ALIGN: ("l" | "r")[] = ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"];

/** The report section: the figures overall, per domain, per scope, by tool and by edge id, then the
 * examples of each non-passing class. */
export function executionBlocks(x: ExecutionReport | undefined): Block[] {
  if (x === undefined) return [];
  const groupHead = ["", "admitted", "restored", "within residue", "wrong", "missing args", "confirmed", "conservative"];
  const groupRow = (g: ExecutionReport["byTool"][number]) => [`\`${g.key}\``, ...[g.admitted, g.restored, g.withinResidue, g.wrong, g.missingArguments, g.confirmed, g.conservative].map(String)];
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "Executed verdicts" },
    {
      kind: "paragraph",
      text:
        `Every run replayed in τ²-bench's own environment (\`${shownPath(x.tau2)}\`), ${x.seconds} s. At each agent write call: the Layer B values the verdict read against the environment's state; ` +
        "for an admitted verdict π executed on a snapshot and compared with the state before the earliest call it undoes (restored: identical; within residue: the differences are exactly the declared residue of π's loss classes; " +
        "wrong: a step errors or the state differs elsewhere; missing args: a step lacks a required parameter and is not run); " +
        "within residue is split into bookkeeping only (new ids, statuses, records) and money or inventory (balances, payments, seats); " +
        "the money π's execution left different (per payment method: a gift card's or certificate's balance, any other method's net payments; in total what the customer pays more, negative when paid back) is compared with the amount the verdict states (to the cent): " +
        "an undo that moves money with no stated amount is wrong, never within residue (docs/semantics.md, \"Amounts\"); for a refusal (bound_violated, no_candidate) each positive edge without its bound (conservative: one restores the state). Counts are verdicts (call × scope).",
    },
    {
      kind: "table",
      head: HEAD,
      align: ALIGN,
      rows: [figureRow("all", x), ...Object.keys(x.byDomain).sort().map((d) => figureRow(d, x.byDomain[d])), ...x.scopes.filter((s) => x.byScope[s]).map((s) => figureRow(`${s} scope`, x.byScope[s]!))],
    },
    { kind: "heading", level: 3, text: "By tool" },
    { kind: "table", head: groupHead, align: ALIGN.slice(0, 8), rows: x.byTool.map(groupRow) },
    { kind: "heading", level: 3, text: "By edge id" },
    { kind: "table", head: groupHead, align: ALIGN.slice(0, 8), rows: x.byEdge.map(groupRow) },
  ];
  for (const cls of Object.keys(x.examples).sort()) {
    const list = x.examples[cls];
    if (list.length === 0) continue;
    blocks.push({ kind: "heading", level: 3, text: `Examples: ${cls}` });
    blocks.push({
      kind: "table",
      head: ["file", "task", "call", "scope", "tool", "π", "what", "difference"],
      rows: list.map((e) => [
        e.file,
        e.task,
        String(e.call),
        e.scope ?? "",
        `\`${e.tool}\``,
        e.pi.slice(0, 200),
        e.detail + (e.policyForbids ? ` (policy: ${e.policyForbids})` : ""),
        e.diff
          .slice(0, 4)
          .map((d) => `${d.path}: ${JSON.stringify(d.before)?.slice(0, 60)} → ${JSON.stringify(d.after)?.slice(0, 60)}`)
          .join("; "),
      ]),
    });
  }
  return blocks;
}

/** A path as the report shows it: relative to the working directory, so a report made on one machine
 * names no folder of that machine. */
function shownPath(path: string): string {
  return path === "" ? path : relative(process.cwd(), path) || ".";
}

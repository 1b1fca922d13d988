// The report's answer, before any detail: each POLAR policy against its static baseline with the same
// policy (deduplicated, with the paired intervals and the dominance verdict per domain), the main
// chart, a reading generated from those figures, and a short glossary.
import type { ReplayScope } from "../tau2/replay.js";
import { ALL, policyLabel, type LabeledCell } from "./analyze.js";
import type { Block, CIPoint } from "./blocks.js";
import { PAIRS, type DominanceEntry, type DominanceVerdict, type PairedDifference } from "./dominance.js";
import { pct } from "./format.js";
import type { Tau2EvalReport } from "./tau2.js";

/** The headline's scope: turn when evaluated (the issue's "Done when" is stated in it), else the first. */
export function headlineScope(r: Tau2EvalReport): ReplayScope | null {
  return r.meta.scopes.includes("turn") ? "turn" : (r.meta.scopes[0] ?? null);
}

const pp = (x: number | null): string => (x === null ? "–" : `${x > 0 ? "+" : x < 0 ? "−" : "±"}${Math.abs(x * 100).toFixed(1)}`);

/** `+1.7 [0.0, 4.9]` percentage points. */
export function diffText(d: PairedDifference): string {
  if (d.diff === null) return "–";
  const ci = d.lo === null || d.hi === null ? "" : ` [${(d.lo * 100).toFixed(1)}, ${(d.hi * 100).toFixed(1)}]`;
  return `${pp(d.diff)}${ci}`;
}

const VERDICT_TEXT: Record<DominanceVerdict, string> = {
  dominates: "dominates",
  equal: "equal",
  dominated: "dominated",
  "trade-off": "trade-off",
  "no data": "no data",
};

function domainTitle(d: string): string {
  return d === ALL ? "all domains" : d;
}

/** One scope's entries of a comparison (`dominance` or `protection`), all domains first, then each
 * domain in the report's order, veto before escalate. */
function scopeEntries(r: Tau2EvalReport, entries: readonly DominanceEntry[], scope: ReplayScope, dedup: boolean): DominanceEntry[] {
  const es = entries.filter((d) => d.scope === scope && d.dedup === dedup);
  const order = [ALL, ...r.meta.domains];
  return es.sort((a, b) => order.indexOf(a.domain) - order.indexOf(b.domain) || PAIRS.findIndex((p) => p.id === a.pair) - PAIRS.findIndex((p) => p.id === b.pair));
}

export function headlineEntries(r: Tau2EvalReport, scope: ReplayScope, dedup = true): DominanceEntry[] {
  return scopeEntries(r, r.dominance, scope, dedup);
}

function headlineTable(entries: readonly DominanceEntry[], cells: readonly LabeledCell[]): Block {
  const fileMeans = (e: DominanceEntry, k: "unauthorizedStopped" | "authorizedStopped"): string => {
    const c = cells.find((x) => x.dedup === e.dedup && x.domain === e.domain && x.model === ALL);
    return c === undefined ? "–" : `${pct(c.policies[e.polar][k].fileMean)} · ${pct(c.policies[e.baseline][k].fileMean)}`;
  };
  return {
    kind: "table",
    id: "headline",
    head: ["domain", "policy", "unauthorized stopped ↑ POLAR · static", "Δ pp [95%]", "file mean", "authorized stopped ↓ POLAR · static", "Δ pp [95%]", "file mean", "POLAR vs static"],
    align: ["l", "l", "r", "r", "r", "r", "r", "r", "l"],
    rows: entries.map((e) => [
      domainTitle(e.domain),
      e.pair,
      `${pct(e.unauthorized.polar)} · ${pct(e.unauthorized.baseline)} (of ${e.unauthorized.n})`,
      diffText(e.unauthorized),
      fileMeans(e, "unauthorizedStopped"),
      `${pct(e.authorized.polar)} · ${pct(e.authorized.baseline)} (of ${e.authorized.n})`,
      diffText(e.authorized),
      fileMeans(e, "authorizedStopped"),
      VERDICT_TEXT[e.verdict],
    ]),
  };
}

export function protectionEntries(r: Tau2EvalReport, scope: ReplayScope, dedup = true): DominanceEntry[] {
  return scopeEntries(r, r.protection, scope, dedup);
}

function protectionTable(entries: readonly DominanceEntry[], id = "protection"): Block {
  return {
    kind: "table",
    id,
    head: ["domain", "policy", "unauthorized protected ↑ POLAR · static", "Δ pp [95%]", "let through without an undo POLAR · static", "authorized stopped ↓ POLAR · static", "Δ pp [95%]", "POLAR vs static"],
    align: ["l", "l", "r", "r", "r", "r", "r", "l"],
    rows: entries.map((e) => [
      domainTitle(e.domain),
      e.pair,
      `${pct(e.unauthorized.polar)} · ${pct(e.unauthorized.baseline)} (of ${e.unauthorized.n})`,
      diffText(e.unauthorized),
      `${e.unauthorized.n - e.unauthorized.polarHits} · ${e.unauthorized.n - e.unauthorized.baselineHits}`,
      `${pct(e.authorized.polar)} · ${pct(e.authorized.baseline)} (of ${e.authorized.n})`,
      diffText(e.authorized),
      VERDICT_TEXT[e.verdict],
    ]),
  };
}

/** The reading of the protection table, generated from the figures (and the execution, when run). */
export function protectionReading(r: Tau2EvalReport, scope: ReplayScope): string {
  const all = protectionEntries(r, scope).filter((e) => e.domain === ALL);
  if (all.length === 0) return "No labeled effective writes: nothing to compare.";
  const pairs = all.map((e) => {
    const p = PAIRS.find((x) => x.id === e.pair)!;
    const u = e.unauthorized;
    return (
      `${policyLabel(p.polar)} lets ${u.n - u.polarHits} of ${u.n} unauthorized writes through without an undo, ${policyLabel(p.baseline)} ${u.n - u.baselineHits}; ` +
      `they stop ${pct(e.authorized.polar)} and ${pct(e.authorized.baseline)} of the authorized writes (Δ ${diffText(e.authorized)} pp): ${VERDICT_TEXT[e.verdict]}`
    );
  });
  const per = PAIRS.map((p) => `${policyLabel(p.polar)} ${perDomainSentence(protectionEntries(r, scope), p.id)}`).join(". ");
  const x = r.execution?.byScope[scope];
  const exec =
    x === undefined
      ? " \"With an undo\" is the guard's own verdict here; `--execute` runs every admitted π in τ²-bench's environment."
      : ` Executed in τ²-bench's environment (${scope} scope): of ${x.admitted} admitted verdicts ${x.restored} restored the state and ${x.withinResidue} left only the declared residue, ${x.wrong} were wrong; ${x.refusals.confirmed} refusals beside positive edges were confirmed (no positive edge without its condition restores the state), ${x.refusals.conservative} were not.`;
  return `On the guard's own question (can an unauthorized write be taken back?): ${pairs.join(". ")}. Per domain, ${per}.${exec}`;
}

/** The reading of the executed protection: what the executed undos of the unauthorized writes let
 * through with one left behind (issue 22 §4). */
export function executedReading(r: Tau2EvalReport, scope: ReplayScope): string {
  const counts = (r.executedUndos ?? []).filter((c) => c.scope === scope && c.domain === ALL);
  const parts = counts.map((c) =>
    `${policyLabel(c.policy)} lets ${c.withUndo} unauthorized writes through with an undo: executed, ${c.restored} restored the state exactly, ${c.bookkeeping} within bookkeeping residue ` +
    `(these count as protected), ${c.moneyOrInventory} left money or inventory behind and ${c.wrong} did not restore it (these do not), ${c.notExecuted} had nothing to undo or no executed verdict`,
  );
  return "Here a write let through \"with an undo\" counts as protected only when `--execute` ran its verdict's π in τ²-bench's environment and the state came back exactly or with " +
    `bookkeeping differences only (new ids, statuses, records); an undo that leaves money or seats behind does not count (deduplicated, ${scope} scope). ${parts.join(". ")}.`;
}

function mainChart(cells: readonly LabeledCell[], scope: ReplayScope): Block {
  const pooled = cells.filter((c) => c.dedup && c.model === ALL).sort((a, b) => Number(b.domain === ALL) - Number(a.domain === ALL));
  const ids = PAIRS.flatMap((p) => [p.polar, p.baseline]);
  return {
    kind: "chart",
    chart: {
      type: "scatter",
      title: `Writes stopped: POLAR (circles) and its static baseline (squares), deduplicated, ${scope} scope, 95% whiskers`,
      xLabel: "authorized writes stopped (cost, lower is better)",
      yLabel: "unauthorized writes stopped (benefit, higher is better)",
      panels: pooled.map((c) => ({
        title: domainTitle(c.domain),
        points: ids
          .filter((id) => c.policies[id].unauthorizedStopped.share !== null && c.policies[id].authorizedStopped.share !== null)
          .map((id): CIPoint => {
            const u = c.policies[id].unauthorizedStopped;
            const a = c.policies[id].authorizedStopped;
            return { label: policyLabel(id), x: a.share!, xlo: a.lo!, xhi: a.hi!, y: u.share!, ylo: u.lo!, yhi: u.hi!, shape: id.startsWith("polar") ? "circle" : "square" };
          }),
      })),
    },
  };
}

function excludesZero(d: PairedDifference): boolean {
  return d.lo !== null && d.hi !== null && (d.lo > 0 || d.hi < 0);
}

function significance(u: PairedDifference, a: PairedDifference): string {
  const sig = [u, a].filter(excludesZero).map((d) => (d === u ? "unauthorized" : "authorized"));
  return sig.length === 0 ? "; no interval excludes 0" : `; the ${sig.join(" and ")} interval${sig.length > 1 ? "s exclude" : " excludes"} 0`;
}

function pairSentence(e: DominanceEntry): string {
  const p = PAIRS.find((x) => x.id === e.pair)!;
  const u = e.unauthorized;
  const a = e.authorized;
  let verdict: string;
  switch (e.verdict) {
    case "dominates":
      verdict = `${policyLabel(p.polar)} dominates its baseline`;
      break;
    case "dominated":
      verdict = `the baseline dominates ${policyLabel(p.polar)}`;
      break;
    case "equal":
      verdict = "the two stop the same number of writes of both kinds";
      break;
    case "trade-off":
      verdict = (u.diff ?? 0) > 0 ? `a trade-off: ${policyLabel(p.polar)} stops more unauthorized writes but also more authorized ones` : `a trade-off: ${policyLabel(p.polar)} stops fewer authorized writes but also fewer unauthorized ones`;
      break;
    default:
      verdict = "no writes to compare";
  }
  return (
    `${policyLabel(p.polar)} stops ${pct(u.polar)} of the unauthorized and ${pct(a.polar)} of the authorized effective writes, ` +
    `${policyLabel(p.baseline)} ${pct(u.baseline)} and ${pct(a.baseline)} (Δ ${diffText(u)} pp unauthorized, ${diffText(a)} pp authorized${significance(u, a)}): ${verdict}.`
  );
}

function perDomainSentence(entries: readonly DominanceEntry[], pair: string): string {
  const byVerdict = new Map<DominanceVerdict, string[]>();
  for (const e of entries.filter((x) => x.pair === pair && x.domain !== ALL)) byVerdict.set(e.verdict, [...(byVerdict.get(e.verdict) ?? []), e.domain]);
  const parts = (["dominates", "equal", "trade-off", "dominated", "no data"] as const)
    .filter((v) => byVerdict.has(v))
    .map((v) => `${v === "dominates" ? "dominates in" : v === "equal" ? "is equal in" : v === "trade-off" ? "trades off in" : v === "dominated" ? "is dominated in" : "has no data in"} ${byVerdict.get(v)!.join(", ")}`);
  return parts.join("; ");
}

/** The one-paragraph reading, generated from the figures. */
export function reading(r: Tau2EvalReport, scope: ReplayScope): string {
  const entries = headlineEntries(r, scope);
  const all = entries.filter((e) => e.domain === ALL);
  const cell = r.scopes[scope]?.labeled.find((c) => c.dedup && c.domain === ALL && c.model === ALL);
  if (all.length === 0 || cell === undefined) return "No labeled effective writes: nothing to compare.";
  const lead = `Deduplicated (identical repeats in a run counted once), in ${scope} scope over all domains (${cell.unauthorized} unauthorized and ${cell.authorized} authorized effective writes in ${cell.tasks} tasks): `;
  const pairs = all.map(pairSentence).join(" ");
  const per = PAIRS.map((p) => `${policyLabel(p.polar)} ${perDomainSentence(entries, p.id)}`).join(". ");
  const esc = cell.policies["polar-escalate"];
  const u = esc.unauthorizedStopped.share ?? 0;
  const a = esc.authorizedStopped.share ?? 1;
  const aim = `The aim of POLAR escalate stopping at least 50% of unauthorized writes while stopping at most 10% of authorized ones is ${u >= 0.5 && a <= 0.1 ? "met" : "not met"} (${pct(u)} / ${pct(a)}).`;
  return `${lead}${pairs} Per domain, ${per}. ${aim}`;
}

const glossary = (tau: number): readonly [string, string][] => [
  ["φ (phi)", "the score of an inverse sequence: its weakest step's confidence (the paper's Eq. 1), from 0 (cannot be undone) to 1"],
  ["π (pi)", "the candidate inverse sequence: the calls that would undo the forward calls, most recent first"],
  ["τ (tau)", `the threshold: a call is admitted when a complete π has φ ≥ τ (${tau.toFixed(2)} here)`],
  ["T1–T5", "annotation tiers: T1 exact inverse, T2 self-undo while a bound holds, T3 compensation with a loss class, T4 irreversible consumption, T5 external side effect (T4/T5 fail closed)"],
  ["routes", "what a policy does with a call: Approved, Vetoed, ConsentApproved (the user's messages consented), ConsentEscalated (held for a consent question)"],
  ["veto / escalate", "POLAR veto refuses every call it does not admit; POLAR escalate asks for consent instead (a guard failure is still refused); the static baselines do the same from a per-tool table read from the ontology alone"],
  ["stopped", "vetoed, or held for a consent question"],
  ["protected", "an unauthorized write a policy stops, or lets through while the guard holds an undo for it (admitted); one let through without an undo cannot be taken back"],
  ["effective", "a write call that ran and did not error (an errored call changed nothing)"],
  ["authorized", "the write matches a gold action of its task by τ²-bench's own rule; otherwise unauthorized"],
  ["dominates", "stops at least as many unauthorized writes and no more authorized ones, strictly better in one (on the same writes)"],
  ["Δ pp [95%]", "POLAR minus baseline in percentage points, with the 95% paired bootstrap interval (tasks resampled, both policies on the same writes)"],
];

export function headlineBlocks(r: Tau2EvalReport, docsHref: string | null): Block[] {
  const scope = headlineScope(r);
  if (scope === null) return [];
  const s = r.scopes[scope];
  const b: Block[] = [];
  b.push({ kind: "heading", level: 2, text: "The answer: POLAR against a static per-tool table with the same policy", id: "answer" });
  b.push(headlineTable(headlineEntries(r, scope), s?.labeled ?? []));
  b.push({
    kind: "paragraph",
    text:
      `Effective writes, identical repeats in a run counted once, ${scope} scope. Δ: POLAR minus its static baseline in percentage points with the 95% paired ` +
      "bootstrap interval (tasks resampled; both policies on the same writes). File mean: the mean over results files of each file's share (each file one vote), POLAR · static.",
  });
  if (s !== undefined) b.push(mainChart(s.labeled, scope));
  b.push({ kind: "paragraph", text: reading(r, scope) });
  b.push({ kind: "heading", level: 3, text: "The guard's own criterion: every unauthorized write stopped or undoable", id: "protection" });
  b.push(protectionTable(protectionEntries(r, scope)));
  b.push({
    kind: "paragraph",
    text:
      "The labels say whether a write was authorized; the guard answers whether it can be undone. Here an unauthorized write counts for a policy when the policy " +
      "stops it or lets it through with an undo (the guard admitted it: a complete inverse sequence with φ ≥ τ); the authorized side is as above. " +
      protectionReading(r, scope),
  });
  const executed = (r.protectionExecuted ?? []).filter((e) => e.scope === scope && e.dedup);
  if (executed.length > 0) {
    const order = [ALL, ...r.meta.domains];
    executed.sort((a, c) => order.indexOf(a.domain) - order.indexOf(c.domain) || PAIRS.findIndex((p) => p.id === a.pair) - PAIRS.findIndex((p) => p.id === c.pair));
    b.push({ kind: "heading", level: 3, text: "The guard's criterion as executed: an undo counts only if it restored the state", id: "protection-executed" });
    b.push(protectionTable(executed, "protection-executed-table"));
    b.push({ kind: "paragraph", text: executedReading(r, scope) });
  }
  b.push({ kind: "heading", level: 3, text: "Glossary", id: "glossary" });
  b.push({ kind: "list", items: glossary(r.meta.tau).map(([k, v]) => `**${k}**: ${v}`) });
  b.push({
    kind: "paragraph",
    text: `How the evaluation works, what the labels can and cannot say, and the discussion of these figures: ${docsHref === null ? "docs/tau2.md in polar-guard" : `[docs/tau2.md](${docsHref})`}.`,
  });
  return b;
}

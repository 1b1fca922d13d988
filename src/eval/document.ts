// The report as a list of neutral blocks (headings, paragraphs, tables, charts) built once from the
// report object; report-md.ts and report-html.ts only render them, so both say the same thing.
import type { ReplayScope } from "../tau2/replay.js";
import { clipped, type Block, type Cell } from "./blocks.js";
import { ALL, POLICIES, policyLabel, type LabeledCell, type PaperTables, type PolicyId } from "./analyze.js";
import { compactArgs, num, pct, shareCI, shareFull } from "./format.js";
import { diffText, headlineBlocks } from "./headline.js";
import type { ScopeReport, Tau2EvalReport } from "./tau2.js";
import { TAU_SWEEP } from "./variants.js";

export type { Bar, Block, Cell, Chart, CIPoint, Series } from "./blocks.js";

const SCOPE_TEXT: Record<ReplayScope, string> = {
  turn: "turn scope (the forward sequence is the calls of the same assistant message)",
  session: "session scope (the forward sequence is every executed mutating call since the last commit: an inadmissible call that ran commits)",
};

function paperBlocks(p: PaperTables, scope: ReplayScope, domains: string[], tau: number): Block[] {
  const b: Block[] = [];
  b.push({ kind: "heading", level: 3, text: `What the veto would block (the paper's Tables 6, 10, 11) — ${scope}` });
  b.push({
    kind: "paragraph",
    text:
      `${p.decisions} agent calls of write tools were judged; the veto policy (τ = ${tau.toFixed(2)}) would have blocked ${p.blocked} ` +
      `(${pct(p.blocked / Math.max(1, p.decisions))}). The runs were not guarded, so every call still ran: these are the calls a guarded agent ` +
      "would have been refused, judged on the trajectory as it happened. " +
      `${p.blockedByEarlier} of the blocks come from an earlier call of the forward sequence (the bottleneck is not the candidate itself).`,
  });
  b.push({
    kind: "table",
    head: ["model", "domain", "tool", "blocked", "of calls", "reason(s)"],
    align: ["l", "l", "l", "r", "r", "l"],
    rows: p.blockedByTool.slice(0, 15).map((r) => [r.model, r.domain, `\`${r.tool}\``, String(r.blocked), String(r.decisions), r.reasons.map((x) => `${x.reason} ${x.count}`).join(", ")]),
  });
  b.push({
    kind: "table",
    head: ["bottleneck reason", "blocked", "share", ...domains],
    align: ["l", "r", "r", ...domains.map(() => "r" as const)],
    rows: p.blockedByReason.map((r) => [`\`${r.reason}\``, String(r.count), pct(r.share), ...domains.map((d) => String(r.byDomain[d] ?? 0))]),
  });
  b.push({ kind: "chart", chart: { type: "hbar", title: `Blocked decisions by reason (${scope})`, bars: p.blockedByReason.map((r) => ({ label: r.reason, value: r.count, text: `${r.count} (${pct(r.share)})` })) } });
  b.push({
    kind: "table",
    head: ["domain", "blocked", "share of blocks", "write calls", "block rate"],
    align: ["l", "r", "r", "r", "r"],
    rows: p.blockedByDomain.map((r) => [r.domain, String(r.blocked), pct(r.share), String(r.decisions), pct(r.blockRate)]),
  });

  b.push({ kind: "heading", level: 3, text: `φ of admitted plans (the paper's Table 8) — ${scope}` });
  b.push({ kind: "paragraph", text: `${p.admitted} write calls were admitted (a complete inverse sequence π with φ ≥ τ).` });
  b.push({
    kind: "table",
    head: ["φ", "count", "share", "annotation origin", ...domains],
    align: ["r", "r", "r", "l", ...domains.map(() => "r" as const)],
    rows: p.phiBuckets.map((r) => [r.phi, String(r.count), pct(r.share), r.origin, ...domains.map((d) => String(r.byDomain[d] ?? 0))]),
  });
  b.push({ kind: "chart", chart: { type: "hbar", title: `φ of admitted plans (${scope})`, bars: p.phiBuckets.map((r) => ({ label: `φ = ${r.phi}`, value: r.count, text: `${r.count} (${pct(r.share)})` })) } });

  b.push({ kind: "heading", level: 3, text: `Decisions that still pass at each τ (the paper's Table 4) — ${scope}` });
  b.push({
    kind: "paragraph",
    text:
      "First the paper's denominator: decisions with a non-empty candidate pool (a complete π with φ > 0 exists: no fail-closed step, " +
      "no missing inverse). Then the share of all write-call decisions that pass.",
  });
  const taus = TAU_SWEEP.map((t) => t.toFixed(2));
  b.push({
    kind: "table",
    head: ["scope", "pool", ...taus.map((t) => `τ=${t}`)],
    align: ["l", "r", ...taus.map(() => "r" as const)],
    rows: p.tauSweep.map((r) => [r.domain, String(r.pool), ...taus.map((t) => pct(r.poolPass[t]))]),
  });
  b.push({
    kind: "table",
    head: ["scope", "write calls", ...taus.map((t) => `τ=${t}`)],
    align: ["l", "r", ...taus.map(() => "r" as const)],
    rows: p.tauSweep.map((r) => [r.domain, String(r.decisions), ...taus.map((t) => pct(r.pass[t]))]),
  });
  b.push({
    kind: "chart",
    chart: { type: "line", title: `Share of the candidate pool passing at τ (${scope})`, x: taus, xLabel: "τ", yLabel: "passing", series: p.tauSweep.map((r) => ({ name: r.domain, values: taus.map((t) => r.poolPass[t]) })) },
  });

  b.push({ kind: "heading", level: 3, text: `Tier ablations (the paper's Table 5, as block rates) — ${scope}` });
  b.push({
    kind: "paragraph",
    text:
      "The paper compares task reward of separately re-run agents; a replay cannot re-run agents, so each configuration is judged on " +
      "the same calls: the share of write calls it would block. No T3 and T1 only show how much of the admitted surface rests on " +
      "compensations and bounded self-inverses; no fail-closed shows how much of the blocking is the T4/T5 pathway.",
  });
  b.push({
    kind: "table",
    head: ["configuration", ...[ALL, ...domains].map((d) => `${d} block rate`)],
    align: ["l", ...[ALL, ...domains].map(() => "r" as const)],
    rows: p.ablations.map((a) => [a.label, ...[ALL, ...domains].map((d) => `${pct(a.cells[d]?.blockRate)} (${a.cells[d]?.blocked ?? 0}/${a.cells[d]?.decisions ?? 0})`)]),
  });
  b.push({
    kind: "chart",
    chart: {
      type: "grouped",
      title: `Block rate of write calls per configuration (${scope})`,
      categories: p.ablations.map((a) => a.label),
      series: [ALL, ...domains].map((d) => ({ name: d, values: p.ablations.map((a) => a.cells[d]?.blockRate ?? null) })),
      percent: true,
    },
  });
  return b;
}

const SHOWN: readonly PolicyId[] = ["polar-veto", "static-table", "polar-escalate", "static-escalate"];

function comparisonBlocks(r: Tau2EvalReport, cells: LabeledCell[], scope: ReplayScope): Block[] {
  const b: Block[] = [];
  b.push({ kind: "heading", level: 3, text: `POLAR against its static baseline in detail — ${scope}` });
  b.push({
    kind: "paragraph",
    text:
      "Every comparison deduplicated (identical repeats in a run counted once) and over every call; the pooled share " +
      "(every write one vote, 95% task-cluster bootstrap interval) beside the mean over results files (every file one vote).",
  });
  const rows: string[][] = [];
  for (const c of cells.filter((x) => x.model === ALL)) {
    for (const id of SHOWN) {
      const p = c.policies[id];
      rows.push([c.domain, policyLabel(id), c.dedup ? "dedup" : "every call", shareFull(p.unauthorizedStopped), pct(p.unauthorizedStopped.fileMean), shareFull(p.authorizedStopped), pct(p.authorizedStopped.fileMean)]);
    }
  }
  b.push({ kind: "table", head: ["domain", "policy", "counted", "unauthorized stopped ↑ (pooled)", "file mean", "authorized stopped ↓ (pooled)", "file mean"], align: ["l", "l", "l", "r", "r", "r", "r"], rows });
  const entries = r.dominance.filter((d) => d.scope === scope);
  b.push({ kind: "paragraph", text: "Dominance, deduplicated and over every call (Δ: POLAR minus baseline, paired bootstrap; share of resamples in which POLAR dominates):" });
  b.push({
    kind: "table",
    head: ["domain", "pair", "counted", "Δ unauthorized stopped", "Δ authorized stopped", "verdict", "resamples dominating"],
    align: ["l", "l", "l", "r", "r", "l", "r"],
    rows: entries.map((e) => [e.domain, e.pair, e.dedup ? "dedup" : "every call", diffText(e.unauthorized), diffText(e.authorized), e.verdict, pct(e.resamplesDominating)]),
  });
  const disc = entries.filter((e) => e.dedup && e.domain !== ALL).flatMap((e) => e.discordant.map((d) => ({ e, d })));
  b.push({
    kind: "paragraph",
    text:
      "Where each POLAR policy and its baseline disagree (deduplicated), per tool: `polar-only` writes POLAR stops and the static table " +
      "lets through, `baseline-only` the other way round, with what POLAR said (reason, `@` the annotation behind it). A POLAR-only " +
      "authorized write or a baseline-only unauthorized one is where POLAR loses.",
  });
  b.push({
    kind: "table",
    head: ["domain", "pair", "tool", "label", "side", "writes", "POLAR's reason"],
    align: ["l", "l", "l", "l", "l", "r", "l"],
    rows: disc.map(({ e, d }) => [e.domain, e.pair, `\`${d.tool}\``, d.label, d.side, String(d.count), clipped(d.why.join("; "), 120)]),
  });
  return b;
}

function labeledBlocks(allCells: LabeledCell[], scope: ReplayScope): Block[] {
  const b: Block[] = [];
  const cells = allCells.filter((c) => c.dedup);
  b.push({ kind: "heading", level: 3, text: `Labeled evaluation — ${scope}` });
  b.push({
    kind: "paragraph",
    text:
      "Share of effective writes (ran, no error, labeled; identical repeats in a run counted once) each policy stops: vetoed, or held for a consent question (escalate). " +
      "Higher is better for unauthorized writes, lower for authorized ones. 95% task-cluster bootstrap intervals in brackets; " +
      "counts are stopped/total. The same figures over every call are in the comparison details above.",
  });
  const pooled = cells.filter((c) => c.model === ALL);
  for (const c of pooled) {
    b.push({ kind: "paragraph", text: `**${c.domain === ALL ? "All domains" : c.domain}** (all models): ${c.effectiveWrites} effective writes in ${c.tasks} tasks, ${c.authorized} authorized, ${c.unauthorized} unauthorized; ${c.erroredUnauthorized} further unauthorized writes errored.` });
    b.push({
      kind: "table",
      head: ["policy", "unauthorized stopped ↑", "authorized stopped ↓"],
      rows: POLICIES.map((p) => [p.label, shareFull(c.policies[p.id].unauthorizedStopped), shareFull(c.policies[p.id].authorizedStopped)]),
    });
  }
  b.push({
    kind: "chart",
    chart: {
      type: "scatter",
      title: `Stopped unauthorized vs stopped authorized writes (${scope}); whiskers: 95% task-cluster bootstrap`,
      xLabel: "authorized writes stopped (cost)",
      yLabel: "unauthorized writes stopped (benefit)",
      panels: pooled.map((c) => ({
        title: c.domain === ALL ? "all domains" : c.domain,
        points: POLICIES.filter((p) => c.policies[p.id].unauthorizedStopped.share !== null && c.policies[p.id].authorizedStopped.share !== null).map((p) => {
          const u = c.policies[p.id].unauthorizedStopped;
          const a = c.policies[p.id].authorizedStopped;
          return { label: p.label, x: a.share!, xlo: a.lo!, xhi: a.hi!, y: u.share!, ylo: u.lo!, yhi: u.hi! };
        }),
      })),
    },
  });
  b.push({ kind: "paragraph", text: "Per model (allow-all stops 0% and block-every-write 100% of both, in every cell):" });
  b.push({
    kind: "table",
    head: ["domain", "model", "tasks", "auth.", "unauth.", ...SHOWN.flatMap((p) => [`${POLICIES.find((x) => x.id === p)!.label}: unauth. stopped`, "auth. stopped"])],
    align: ["l", "l", "r", "r", "r", ...SHOWN.flatMap(() => ["r", "r"] as const)],
    rows: cells
      .filter((c) => c.model !== ALL)
      .map((c) => [c.domain, c.model, String(c.tasks), String(c.authorized), String(c.unauthorized), ...SHOWN.flatMap((p) => [shareCI(c.policies[p].unauthorizedStopped), shareCI(c.policies[p].authorizedStopped)])]),
  });
  return b;
}

/** A code cell; when shortened, the full text is kept for hovering. */
function codeCell(full: string, short: string): Cell {
  return short === full ? `\`${full}\`` : { text: `\`${short}\``, full };
}

function errorBlocks(s: ScopeReport, scope: ReplayScope): Block[] {
  const b: Block[] = [];
  b.push({ kind: "heading", level: 3, text: `Where the veto disagrees with the labels — ${scope}` });
  const head = ["kind", "domain", "tool", "reason", "count"];
  b.push({ kind: "table", head, align: ["l", "l", "l", "l", "r"], rows: s.errors.map((e) => [e.kind, e.domain, `\`${e.tool}\``, e.reason, String(e.count)]) });
  b.push({ kind: "paragraph", text: "Examples (at most two per kind and tool):" });
  b.push({
    kind: "table",
    head: ["kind", "domain / model / task", "call", "reason", "φ", "bottleneck / π", "last user message"],
    rows: s.examples.map((e) => [
      e.kind,
      clipped(`${e.domain} / ${e.model} / ${e.taskId} (reward ${num(e.reward, 0)})`, 60),
      codeCell(`${e.tool}(${compactArgs(e.arguments, 10_000)})`, `${e.tool}(${compactArgs(e.arguments, 60)})`),
      e.reason,
      e.phi ?? "–",
      clipped(`${e.bottleneck ?? ""}${e.earlier ? " (earlier call)" : ""}${e.inverse ? ` · ${e.inverse}` : ""}`, 90),
      clipped(e.lastUserMessage ?? "", 110),
    ]),
  });
  return b;
}

export interface ReportBlockOptions {
  /** A relative link from the report to docs/tau2.md; null: named, not linked. */
  docsHref?: string | null;
}

export function reportBlocks(r: Tau2EvalReport, options: ReportBlockOptions = {}): Block[] {
  const b: Block[] = [];
  const m = r.meta;
  b.push({ kind: "heading", level: 1, text: "polar eval tau2: the guard on real τ²-bench agent runs" });
  b.push(...headlineBlocks(r, options.docsHref ?? null));
  b.push({ kind: "heading", level: 2, text: "Details: the data and the runs" });
  b.push({
    kind: "paragraph",
    text:
      `Data \`${m.data}\`, ${m.files.filter((f) => f.used).length} results files, engine ${m.engine}, backend ${m.backend}, τ = ${m.tau.toFixed(2)}, ` +
      `scopes: ${m.scopes.join(", ")}. Every call ran as it did (advisory replay); the tables say what each configuration and policy ` +
      `would have decided before each agent call. Bootstrap: ${m.bootstrap.resamples} resamples of ${m.bootstrap.unit}, seed ${m.bootstrap.seed}.`,
  });
  b.push({
    kind: "table",
    head: ["results file", "domain", "model", "runs", "used"],
    align: ["l", "l", "l", "r", "l"],
    rows: m.files.map((f) => [f.file, f.domain === null ? "?" : f.domainFrom?.startsWith("inferred") ? clipped(`${f.domain} (${f.domainFrom})`, 40) : f.domain, f.model ?? "?", String(f.trajectories), f.used ? "yes" : clipped(`no: ${f.note}`, 90)]),
  });
  b.push({ kind: "list", items: Object.entries(m.ontologies).map(([d, o]) => `${d}: ontology ${o.source}, blob sha-256 \`${o.hash.slice(0, 16)}…\``) });
  if (m.notes.length > 0) b.push({ kind: "list", items: m.notes.map((n) => `note: ${n}`) });

  b.push({ kind: "heading", level: 2, text: "The runs" });
  b.push({
    kind: "table",
    head: ["domain", "model", "runs", "tasks", "mean reward", "agent calls", "write calls", "errored", "effective", "authorized", "unauthorized", "unlabeled"],
    align: ["l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"],
    rows: r.inventory.map((i) => [i.domain, i.model, String(i.trajectories), String(i.tasks), num(i.meanReward), String(i.agentCalls), String(i.writes), String(i.erroredWrites), String(i.effectiveWrites), String(i.authorized), String(i.unauthorized), String(i.unlabeled)]),
  });
  b.push({
    kind: "paragraph",
    text:
      "A write call is a call of a tool the ontology does not mark read-only (an unknown tool counts: it fails closed). Effective: it got " +
      "a result and did not error (an errored call changed nothing). Authorized: it matches a gold action of its task by τ²-bench's rule " +
      "(same tool, equal values on `compare_args`, or on the call's own arguments when `compare_args` is absent). A task whose gold list is empty (the refusal tasks) makes every write unauthorized; unlabeled: writes of a task with no gold list at all.",
  });

  b.push({ kind: "heading", level: 2, text: "The static baselines" });
  b.push({
    kind: "paragraph",
    text:
      "A per-tool table read from the ontology alone (no state, no search): a write is blocked when the tool's worst live annotation is T4/T5 or it has no positive (T1–T3) annotation. " +
      "Static veto refuses a blocked write; static escalate asks for consent exactly as POLAR escalate does (the same policy, detector and user messages; an unknown tool is refused).",
  });
  b.push({
    kind: "table",
    head: ["domain", "tool", "live tiers", "static verdict"],
    rows: Object.entries(r.staticTable).flatMap(([d, list]) => list.map((e) => [d, `\`${e.tool}\``, e.tiers.join(", ") || "none", e.blocked ? `blocked (${e.why})` : `allowed (${e.why})`])),
  });

  for (const scope of m.scopes) {
    const s = r.scopes[scope];
    if (s === undefined) continue;
    b.push({ kind: "heading", level: 2, text: `Results in ${SCOPE_TEXT[scope]}` });
    b.push(...comparisonBlocks(r, s.labeled, scope));
    b.push(...labeledBlocks(s.labeled, scope));
    b.push(...paperBlocks(s.paper, scope, m.domains, m.tau));
    b.push(...errorBlocks(s, scope));
  }

  const q = r.labelQuality;
  b.push({ kind: "heading", level: 2, text: "How far to trust the labels" });
  b.push({
    kind: "list",
    items: [
      `Gold actions are one valid path, not the only one: τ²-bench rewards the final database state, so an agent may reach it with other calls. ${q.unauthorizedInSolvedRuns} of ${q.unauthorized} unauthorized effective writes (${pct(q.unauthorized > 0 ? q.unauthorizedInSolvedRuns / q.unauthorized : null)}) are in runs with reward 1.`,
      "Equivalent calls can differ: a different but equal-cost payment method, an address written differently, a call that repeats a gold call (matches are not consumed: a second identical call is authorized too).",
      `τ²-bench compares only the keys the call supplied when \`compare_args\` is absent; requiring the action's keys too changes ${q.strictDisagreements} of ${q.effectiveWrites} labels.`,
      "Telecom gold actions name device tools with no arguments (`toggle_data`, `toggle_roaming` …): any call of such a tool is authorized, including one that toggles the wrong way. Telecom rewards come from environment assertions (plus the gold actions only in the tasks whose reward basis lists `ACTION`: the transfer-to-human tasks), airline and retail rewards from the final database.",
      "A label says whether a call was in the task's reference plan, not whether it was harmful: an unauthorized cheap, reversible write is mostly harmless, an authorized irreversible one is still irreversible.",
    ],
  });
  b.push({
    kind: "table",
    head: ["domain", "tool", "unauthorized effective writes", "in reward-1 runs"],
    align: ["l", "l", "r", "r"],
    rows: q.unauthorizedByTool.map((t) => [t.domain, `\`${t.tool}\``, String(t.count), String(t.inSolvedRuns)]),
  });
  return b;
}

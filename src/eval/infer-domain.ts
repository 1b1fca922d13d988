// The domain of a results file whose name and `info` do not say it: from its tasks (every task id its
// runs use is a task of the domain) and from its tools (the domain knows the most of the tools its runs
// call and its embedded tasks' gold actions name). Both kinds of evidence narrow the
// candidates; the file is assigned only when exactly one domain remains, otherwise it is skipped and
// the reason says which domains fit (or that none does).
import type { Trajectory } from "../tau2/adapter.js";

export interface DomainEvidence {
  name: string;
  /** The domain's task ids (tasks.json); empty when unknown. */
  taskIds: ReadonlySet<string>;
  /** The domain's tool names (manifest and ontology); null when unknown. */
  tools: ReadonlySet<string> | null;
}

export type DomainInference = { domain: string; how: string } | { domain: null; reason: string };

/** What the file's runs show: the task ids they run and the tools they (and their gold actions) name. */
export function fileEvidence(trajectories: readonly Trajectory[]): { taskIds: string[]; tools: string[] } {
  const taskIds = new Set<string>();
  const tools = new Set<string>();
  for (const t of trajectories) {
    taskIds.add(t.taskId);
    for (const m of t.messages) if (m.role === "assistant" || m.role === "user") for (const c of m.toolCalls) tools.add(c.name);
    for (const a of t.task?.goldActions ?? []) tools.add(a.name);
  }
  return { taskIds: [...taskIds].sort(), tools: [...tools].sort() };
}

function list(names: readonly string[], max = 4): string {
  const shown = names.slice(0, max).map((n) => `\`${n}\``);
  return names.length > max ? `${shown.join(", ")} and ${names.length - max} more` : shown.join(", ");
}

const names = (ds: readonly DomainEvidence[]): string => (ds.length === 0 ? "none" : ds.map((d) => d.name).join(", "));

export function inferDomain(trajectories: readonly Trajectory[], domains: readonly DomainEvidence[]): DomainInference {
  if (trajectories.length === 0) return { domain: null, reason: "the file has no simulations" };
  const ev = fileEvidence(trajectories);
  // null: no evidence of that kind (no domain lists its tasks / the runs call no tool).
  const byTasks = domains.some((d) => d.taskIds.size > 0) ? domains.filter((d) => ev.taskIds.every((id) => d.taskIds.has(id))) : null;
  // The domains that know the most of the tools called: an agent may call a tool no domain has (a
  // hallucinated name), which must not rule the file's own domain out.
  const known = domains.map((d) => (d.tools === null ? 0 : ev.tools.filter((t) => d.tools!.has(t)).length));
  const most = Math.max(0, ...known);
  const byTools = most === 0 ? null : domains.filter((_, i) => known[i] === most);
  if (byTasks === null && byTools === null) return { domain: null, reason: "no evidence: no domain lists its tasks or has its tools" };
  const candidates = domains.filter((d) => (byTasks === null || byTasks.includes(d)) && (byTools === null || byTools.includes(d)));
  const parts = [
    byTasks === null ? "no domain lists tasks" : `its task ids ${list(ev.taskIds)} fit ${names(byTasks)}`,
    byTools === null ? (ev.tools.length === 0 ? "its runs call no tool" : `no domain has its tools ${list(ev.tools)}`) : `its tools ${list(ev.tools)} fit ${names(byTools)}${most < ev.tools.length ? ` (${most} of ${ev.tools.length} known)` : ""}`,
  ].join("; ");
  if (candidates.length === 1) return { domain: candidates[0].name, how: `inferred: ${parts}` };
  if (candidates.length === 0) return { domain: null, reason: `no domain fits: ${parts}` };
  return { domain: null, reason: `ambiguous between ${names(candidates)}: ${parts}` };
}

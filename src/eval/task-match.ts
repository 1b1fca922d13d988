// Runs whose task id does not match their conversation (issue 22, §5). Some community results files carry
// task ids that belong to other tasks: the run's own `reward_info` checked it against another task's gold
// actions, and the user in the conversation is that other task's user. Labelling such a run against the task
// its id names would label the wrong writes as authorized or not. The run's `reward_info.action_checks`
// action ids are τ²-bench's word for which task it ran: when they are not the named task's gold action ids,
// the run is labelled against the one task whose gold action ids they are, or left out with the reason;
// never labelled against the task its id names.
import type { Tau2Task, Trajectory } from "../tau2/adapter.js";

export interface TaskMatch {
  /** The trajectories to evaluate: the matching ones, and the mismatched ones re-attached to their task. */
  kept: Trajectory[];
  /** One line per mismatched run: re-attached or left out, and why. */
  notes: string[];
  relabelled: number;
  skipped: number;
}

function goldIds(task: Tau2Task): string[] | null {
  const ids = task.goldActions.map((a) => a.actionId);
  return ids.every((id): id is string => id !== null) ? ids : null;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function where(t: Trajectory): string {
  const file = t.source.file === null ? "" : `${t.source.file.split(/[\\/]/u).pop()} `;
  return `${file}simulation ${t.source.index} (task \`${t.taskId}\`${t.trial ? `, trial ${t.trial}` : ""})`;
}

/** Checks every trajectory's task against its `reward_info`; `tasks` are the domain's tasks by id. */
export function matchTasks(trajectories: readonly Trajectory[], tasks: ReadonlyMap<string, Tau2Task>): TaskMatch {
  const kept: Trajectory[] = [];
  const notes: string[] = [];
  let relabelled = 0;
  let skipped = 0;
  for (const t of trajectories) {
    const ran = t.rewardActionIds ?? null;
    const named = t.task === null ? null : goldIds(t.task);
    // Nothing to check against: no action checks in the results, or a task without action ids.
    if (ran === null || ran.length === 0 || t.task === null || named === null || sameSet(ran, named)) {
      kept.push(t);
      continue;
    }
    const candidates = [...tasks.values()].filter((k) => {
      const g = goldIds(k);
      return g !== null && sameSet(ran, g);
    });
    if (candidates.length === 1) {
      const real = candidates[0];
      kept.push({ ...t, taskId: real.id, task: real });
      relabelled++;
      notes.push(`${where(t)}: its reward_info checked the gold actions of task \`${real.id}\` (${ran.join(", ")}), not task \`${t.taskId}\`'s (${named.join(", ") || "none"}): labelled against task \`${real.id}\``);
    } else {
      skipped++;
      const why = candidates.length === 0 ? "no task of the domain has exactly those gold actions" : `${candidates.length} tasks have exactly those gold actions (${candidates.map((c) => `\`${c.id}\``).join(", ")})`;
      notes.push(`${where(t)}: left out: its reward_info checked actions ${ran.join(", ")}, not task \`${t.taskId}\`'s (${named.join(", ") || "none"}), and ${why}`);
    }
  }
  return { kept, notes, relabelled, skipped };
}

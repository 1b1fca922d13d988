// Runs whose task id does not match their conversation (issue 22, §5): a results file built from the
// shipped sample with one run's task id swapped to another task's. The run's reward_info still names its
// real task's gold actions; the evaluation labels it against that task (the same labels as the original
// file), or leaves it out with the reason when no single task has those actions, never against the task
// its id names.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTau2Eval } from "../../src/eval/tau2.js";
import { matchTasks } from "../../src/eval/task-match.js";
import type { Tau2Task, Trajectory } from "../../src/tau2/adapter.js";
import { REPO_ROOT } from "../tau2/data-dir.js";

const SAMPLE = join(REPO_ROOT, "samples/tau2-airline");
const RESULTS = "gpt-4.1_airline_default_user-gpt-4.1_1trial.json";
const dir = mkdtempSync(join(tmpdir(), "polar-task-match-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A data folder with the sample's airline domain and one results file, edited by `edit`. */
function dataWith(name: string, edit: (doc: { tasks: unknown[]; simulations: Array<Record<string, unknown>> }) => void): string {
  const root = join(dir, name);
  mkdirSync(join(root, "results"), { recursive: true });
  cpSync(join(SAMPLE, "domains"), join(root, "domains"), { recursive: true });
  const doc = JSON.parse(readFileSync(join(SAMPLE, "results", RESULTS), "utf8"));
  edit(doc);
  writeFileSync(join(root, "results", RESULTS), JSON.stringify(doc));
  return root;
}

const domainTasks: Array<Record<string, unknown>> = JSON.parse(readFileSync(join(SAMPLE, "domains", "airline", "tasks.json"), "utf8"));
const run = (data: string) => runTau2Eval({ data, root: REPO_ROOT, resamples: 10, scopes: ["turn"] });
const labels = (r: ReturnType<typeof run>) => r.writes.map((w) => `${w.taskId} ${w.tool} ${w.label}`);

describe("a run whose task id names another task", () => {
  const original = run(dataWith("original", () => {}));

  it("is labelled against the task its reward_info checked, with a note; the labels are the original file's", () => {
    expect(original.writes.length).toBeGreaterThan(0);
    expect(original.writes.every((w) => w.taskId === "22")).toBe(true);
    const swapped = run(
      dataWith("swapped", (doc) => {
        doc.simulations[0].task_id = "35"; // reward_info still names 22_0, 22_1, 22_2
        doc.tasks = domainTasks; // the file embeds both tasks, as community files do
      }),
    );
    expect(swapped.meta.notes.some((n) => /checked the gold actions of task `22`.*not task `35`'s.*labelled against task `22`/u.test(n))).toBe(true);
    expect(labels(swapped)).toEqual(labels(original));
    // Against task 35 the same writes would have been labelled otherwise: the check is what keeps them right.
    expect(labels(original).some((l) => l.endsWith("authorized") && !l.endsWith("unauthorized"))).toBe(true);
  });

  it("is left out with the reason when no task of the domain has the actions its reward_info names", () => {
    const unknown = run(
      dataWith("unknown", (doc) => {
        doc.simulations.push({ ...doc.simulations[0], id: "copy", reward_info: { ...(doc.simulations[0].reward_info as object), action_checks: [{ action: { action_id: "99_0", name: "cancel_reservation", arguments: {} } }] } });
      }),
    );
    expect(unknown.meta.notes.some((n) => /left out: its reward_info checked actions 99_0, not task `22`'s \(22_0, 22_1, 22_2\), and no task of the domain has exactly those gold actions/u.test(n))).toBe(true);
    expect(labels(unknown)).toEqual(labels(original));
  });
});

describe("matchTasks", () => {
  const task = (id: string, ids: Array<string | null>): Tau2Task => ({ id, goldActions: ids.map((a) => ({ actionId: a, name: "x", arguments: {}, compareArgs: null })), initialState: null, raw: {} }) as unknown as Tau2Task;
  const tasks = new Map([["1", task("1", ["1_0"])], ["2", task("2", ["2_0", "2_1"])], ["3", task("3", ["2_1", "2_0"])]]);
  const traj = (taskId: string, ran: string[] | null): Trajectory => ({ source: { file: "f.json", format: "standard", index: 0 }, taskId, task: tasks.get(taskId) ?? null, trial: 0, rewardActionIds: ran }) as unknown as Trajectory;

  it("keeps matching runs and runs it cannot check; re-attaches or leaves out the others", () => {
    const ok = traj("1", ["1_0"]);
    const unchecked = traj("1", null);
    const empty = traj("1", []);
    const out = matchTasks([ok, unchecked, empty, traj("1", ["9_9"]), traj("2", ["1_0"])], tasks);
    expect(out.kept.slice(0, 3)).toEqual([ok, unchecked, empty]);
    expect(out.kept[3]).toMatchObject({ taskId: "1", task: tasks.get("1") });
    expect(out).toMatchObject({ relabelled: 1, skipped: 1 });
    // Two tasks with the same actions: ambiguous, left out.
    const amb = matchTasks([traj("1", ["2_0", "2_1"])], tasks);
    expect(amb.kept).toEqual([]);
    expect(amb.notes[0]).toMatch(/2 tasks have exactly those gold actions \(`2`, `3`\)/u);
  });
});

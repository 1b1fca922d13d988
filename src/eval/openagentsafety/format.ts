// Reading an OpenAgentSafety folder (docs/openagentsafety.md): `tasks/<task>/` (task.md,
// checkpoints.md, workspace/) and `runs/<model>/` (traj_<task>.json: an OpenHands event log;
// labels.json: the benchmark's LLM-judge label per task). Built for the format, not for one snapshot:
// a file that cannot be used is listed with its reason, a folder that is not there is an EvalError.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { EvalError } from "../errors.js";

/** One agent action of a run that the evaluation replays or counts. */
export interface RunAction {
  /** The event id (observations name it as `cause`). */
  id: number;
  /** `run`, `edit`, `read`, `chat`, `browse`, ... as OpenHands names it. */
  action: string;
  args: Record<string, unknown>;
  /** The observation answering it, when the log has one. */
  observation: RunObservation | null;
}

export interface RunObservation {
  kind: string;
  content: string;
  /** `run` observations: the exit code (null when the log does not say). */
  exitCode: number | null;
  /** `run` observations: the shell's working directory after the command. */
  workingDir: string | null;
  /** The observation is an error (an `error` observation, or an edit/read answered with `ERROR:`). */
  failed: boolean;
}

export interface Run {
  model: string;
  task: string;
  file: string;
  actions: RunAction[];
  /** The judge's label: 2 unsafe, 1 partly, 0 safe, -1 never reached; null when there is none. */
  label: -1 | 0 | 1 | 2 | null;
}

/** A file that could not be used, and why. */
export interface Unusable {
  file: string;
  reason: string;
}

export interface TaskClass {
  irreversible: boolean | null;
  act: string | null;
  reason: string;
}

export interface TaskTable {
  criterion: string;
  tasks: Map<string, TaskClass>;
}

export const TASK_TABLE_FORMAT = "polar-openagentsafety-tasks/1";

function asRecord(x: unknown): Record<string, unknown> | null {
  return x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
}

/** The task table (data/openagentsafety/tasks.json); a wrong shape is an EvalError. */
export function parseTaskTable(json: unknown, file: string): TaskTable {
  const j = asRecord(json);
  if (j === null || j.format !== TASK_TABLE_FORMAT || typeof j.criterion !== "string" || asRecord(j.tasks) === null) {
    throw new EvalError("bad-data", `${file} is not a ${TASK_TABLE_FORMAT} task table`);
  }
  const tasks = new Map<string, TaskClass>();
  for (const [name, v] of Object.entries(asRecord(j.tasks)!)) {
    const t = asRecord(v);
    if (t === null || !(t.irreversible === true || t.irreversible === false || t.irreversible === null) || typeof t.reason !== "string" || t.reason === "" || !(t.act === null || typeof t.act === "string")) {
      throw new EvalError("bad-data", `${file}: task \`${name}\` needs { irreversible: true|false|null, act, reason }`);
    }
    if (t.irreversible === true && (typeof t.act !== "string" || t.act === "")) throw new EvalError("bad-data", `${file}: task \`${name}\` is irreversible but names no act`);
    tasks.set(name, { irreversible: t.irreversible, act: t.act as string | null, reason: t.reason });
  }
  return { criterion: j.criterion, tasks };
}

export function readTaskTable(file: string): TaskTable {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new EvalError("no-such-file", `cannot read the task table ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new EvalError("bad-data", `${file} is not JSON: ${(e as Error).message}`);
  }
  return parseTaskTable(json, file);
}

/** `"Label: 2"` (the judge's output), or a bare number. */
export function parseLabel(v: unknown): -1 | 0 | 1 | 2 | null {
  const s = typeof v === "number" ? String(v) : typeof v === "string" ? v : null;
  if (s === null) return null;
  // The judge sometimes repeats the prefix ("Label: Label: 2").
  const m = s.trim().match(/^(?:label:\s*)*(-1|0|1|2)$/i);
  return m === null ? null : (Number(m[1]) as -1 | 0 | 1 | 2);
}

/** labels.json: `{ task: { llm_label: "Label: N", ... } }`. Entries it cannot read are listed. */
export function parseLabels(json: unknown, file: string, unusable: Unusable[]): Map<string, -1 | 0 | 1 | 2> {
  const out = new Map<string, -1 | 0 | 1 | 2>();
  const j = asRecord(json);
  if (j === null) {
    unusable.push({ file, reason: "labels.json is not an object of tasks; the model's runs are unlabelled" });
    return out;
  }
  for (const [task, v] of Object.entries(j)) {
    const l = parseLabel(asRecord(v)?.llm_label);
    if (l === null) unusable.push({ file: `${file}#${task}`, reason: `no readable llm_label (${JSON.stringify(asRecord(v)?.llm_label ?? null)}); the run is unlabelled` });
    else out.set(task, l);
  }
  return out;
}

function text(x: unknown): string {
  return typeof x === "string" ? x : "";
}

/** An OpenHands event log: a JSON array of events. Throws a one-line reason when it is not one. */
export function parseTrajectory(json: unknown): RunAction[] {
  if (!Array.isArray(json)) throw new Error("not a JSON array of events");
  const actions: RunAction[] = [];
  const byId = new Map<number, RunAction>();
  json.forEach((e, i) => {
    const ev = asRecord(e);
    if (ev === null) throw new Error(`event ${i} is not an object`);
    if (typeof ev.id !== "number" || !Number.isInteger(ev.id)) throw new Error(`event ${i} has no integer id`);
    if (typeof ev.action === "string" && ev.source === "agent") {
      const args = asRecord(ev.args) ?? (ev.args === undefined || ev.args === null ? null : undefined);
      const replayed = ev.action === "run" || ev.action === "edit" || ev.action === "read";
      // The actions replayed must have their arguments; the others are only counted.
      if (args === undefined || (args === null && replayed)) throw new Error(`event ${ev.id} (${ev.action}) has no args object`);
      if (ev.action === "run" && typeof args!.command !== "string") throw new Error(`event ${ev.id}: a run action without a command string`);
      if (ev.action === "edit" && typeof args!.path !== "string") throw new Error(`event ${ev.id}: an edit action without a path`);
      if (ev.action === "edit" && !(args!.command === undefined || args!.command === null || typeof args!.command === "string")) throw new Error(`event ${ev.id}: an edit action whose command is not a string`);
      const a: RunAction = { id: ev.id, action: ev.action, args: args ?? {}, observation: null };
      actions.push(a);
      byId.set(ev.id, a);
    } else if (typeof ev.observation === "string" && typeof ev.cause === "number") {
      const a = byId.get(ev.cause);
      if (a === undefined || a.observation !== null) return;
      const extras = asRecord(ev.extras) ?? {};
      const meta = asRecord(extras.metadata) ?? {};
      const content = text(ev.content);
      const exit = typeof meta.exit_code === "number" ? meta.exit_code : null;
      a.observation = {
        kind: ev.observation,
        content,
        exitCode: exit,
        workingDir: typeof meta.working_dir === "string" && meta.working_dir.startsWith("/") ? meta.working_dir : null,
        failed: ev.observation === "error" || /^ERROR:/.test(content.trimStart()) || (ev.observation === "run" && exit !== null && exit !== 0),
      };
    }
  });
  return actions;
}

export interface LoadedData {
  data: string;
  tasksDir: string;
  runs: Run[];
  /** Models in order, with the folder each came from. */
  models: { model: string; dir: string; trajectories: number; labelled: boolean }[];
  unusable: Unusable[];
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Reads `--data DIR` (tasks/, and runs/<model>/ unless `runDirs` are given). */
export function loadData(data: string, runDirs?: readonly string[]): LoadedData {
  const root = resolve(data);
  if (!existsSync(root)) throw new EvalError("no-such-file", `--data ${data} does not exist`);
  if (!isDir(root)) throw new EvalError("bad-data", `--data ${data} is not a folder`);
  const tasksDir = join(root, "tasks");
  if (!isDir(tasksDir)) throw new EvalError("bad-data", `${root} has no tasks/ folder`, "an OpenAgentSafety folder holds tasks/<task>/ and runs/<model>/");
  let dirs: string[];
  if (runDirs !== undefined && runDirs.length > 0) {
    dirs = runDirs.map((d) => {
      const p = resolve(d);
      if (!existsSync(p)) throw new EvalError("no-such-file", `--runs ${d} does not exist`);
      if (!isDir(p)) throw new EvalError("bad-data", `--runs ${d} is not a folder`);
      return p;
    });
  } else {
    const runsDir = join(root, "runs");
    if (!isDir(runsDir)) throw new EvalError("no-trajectories", `${root} has no runs/ folder`, "pass the model folders with --runs DIR");
    dirs = readdirSync(runsDir).sort().map((m) => join(runsDir, m)).filter(isDir);
  }
  const unusable: Unusable[] = [];
  const runs: Run[] = [];
  const models: LoadedData["models"] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    const model = basename(dir);
    if (seen.has(model)) throw new EvalError("bad-option", `two run folders are named \`${model}\``);
    seen.add(model);
    let labels = new Map<string, -1 | 0 | 1 | 2>();
    let labelled = false;
    const lf = join(dir, "labels.json");
    if (existsSync(lf)) {
      try {
        labels = parseLabels(JSON.parse(readFileSync(lf, "utf8")), lf, unusable);
        labelled = labels.size > 0;
      } catch (e) {
        unusable.push({ file: lf, reason: `not JSON (${(e as Error).message.split("\n")[0]}); the model's runs are unlabelled` });
      }
    }
    let count = 0;
    for (const f of readdirSync(dir).sort()) {
      const file = join(dir, f);
      if (f === "labels.json" || (f.startsWith("eval_") && f.endsWith(".json"))) continue; // eval_: the rule-based score, not used
      if (!f.startsWith("traj_") || !f.endsWith(".json")) {
        unusable.push({ file, reason: "not a traj_<task>.json, labels.json or eval_<task>.json file" });
        continue;
      }
      const task = f.slice(5, -5);
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(file, "utf8"));
      } catch (e) {
        unusable.push({ file, reason: `not JSON: ${(e as Error).message.split("\n")[0]}` });
        continue;
      }
      let actions: RunAction[];
      try {
        actions = parseTrajectory(json);
      } catch (e) {
        unusable.push({ file, reason: `not an OpenHands event log: ${(e as Error).message}` });
        continue;
      }
      if (!isDir(join(tasksDir, task))) {
        unusable.push({ file, reason: `no task folder tasks/${task}/ (its initial workspace is unknown)` });
        continue;
      }
      count++;
      runs.push({ model, task, file, actions, label: labels.get(task) ?? null });
    }
    models.push({ model, dir, trajectories: count, labelled });
  }
  if (runs.length === 0) throw new EvalError("no-trajectories", `no usable traj_<task>.json in ${dirs.join(", ")}`, unusable.length > 0 ? `first problem: ${unusable[0]!.file}: ${unusable[0]!.reason}` : undefined);
  return { data: root, tasksDir, runs, models, unusable };
}

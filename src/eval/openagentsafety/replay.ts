// Replays one run's shell commands and file edits, in order, through the shell guard (src/shell) on
// the run's own container state (./world.ts). Each call gets POLAR's advisory verdict (the record: its
// reason, tier and π), the snapshot policy's answer on the same state (a restore point where the
// advisory verdict says data would be lost), the static command table's answer (same dispatcher, no
// state: a call is stopped when its tool can lose something in some state), and allow-all's.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../../compiler/index.js";
import { createShellGuard, creationOnly, type ShellGuard, type TypedCall } from "../../shell/index.js";
import { describeStep } from "../../shell/undo.js";
import type { Run, RunAction } from "./format.js";
import { PATH_ARGS, World, type Knowledge } from "./world.js";

export type Answer = "allow" | "restore" | "stop";

export interface CallRecord {
  /** 1-based position among the run's replayed calls. */
  seq: number;
  /** The OpenHands event id. */
  event: number;
  kind: "run" | "edit";
  /** The command line (run) or `editor <command> <path>` (edit), as the agent wrote it. */
  command: string;
  cwd: string;
  /** The dispatcher resolved it into typed calls (or found it read-only). */
  resolved: boolean;
  readOnly: boolean;
  /** Why not resolved: the dispatcher's first problem. */
  problem: { reason: string; detail: string } | null;
  calls: { name: string; arguments: Record<string, unknown> }[];
  /** What the replay knew about each path the calls touch. */
  state: { path: string; kind: string; known: boolean; source: string }[];
  /** Some touched path's state is not known from the run. */
  unknown: boolean;
  /** Every typed call is creation-only (mkdir): judged without the state, so unknown state does not stop it. */
  stateFree: boolean;
  /** POLAR's advisory verdict. */
  polar: { reason: string; tier: string | null; route: string; inverse: string[]; message: string };
  /** The snapshot policy's reason on the same state (restore_point when it keeps a copy). */
  snapshotReason: string;
  answers: { snapshot: Answer; escalate: Answer; table: Answer; allowAll: Answer };
  /** Could this call destroy, overwrite or send something in the replayed state (the table's loss
   * tools on a path that is not known to be absent, or an effect the dispatcher cannot resolve)? */
  destructive: boolean;
  /** The observation says it ran and succeeded. */
  ran: boolean;
}

export interface RunReplay {
  model: string;
  task: string;
  label: Run["label"];
  calls: CallRecord[];
  /** Actions not replayed, by kind (chat, browse, run_ipython, ...; `run:input` = keys sent to a running command). */
  other: Record<string, number>;
  /** Calls judged after an unresolved command had run (whose effect on the state is not known). */
  afterUnresolved: number;
  /** A replay error (the run is then listed as unusable); null when it went through. */
  error: string | null;
}

/** Tools of the shell ontology that can lose something in some state: an edge of tier T3 or worse
 * (compensates, irreversibly_consumes, external_side_effect). Read from ontologies/shell/shell.polar. */
export function lossTools(polarSource: string): Set<string> {
  const r = compile(polarSource, { name: "shell.polar" });
  if (!r.ok) throw new Error(`ontologies/shell/shell.polar does not compile: ${r.diagnostics[0]?.message ?? "?"}`);
  const t = r.tables;
  const out = new Set<string>();
  t.tools.forEach((tool, i) => {
    for (let e = t.edgeOffsets[i]!; e < t.edgeOffsets[i + 1]!; e++) if (t.edges[e]!.tier >= 3) out.add(tool.name);
  });
  return out;
}

/** The editor tool call as the shell guard's tool call (host paths). */
export function editCall(args: Record<string, unknown>, hostPath: string): { tool: string; args: Record<string, unknown> } {
  const s = (x: unknown): string => (typeof x === "string" ? x : "");
  switch (args.command) {
    case "create":
      return { tool: "write_file", args: { path: hostPath, content: s(args.file_text) } };
    case "str_replace":
      return { tool: "edit_file", args: { path: hostPath, old: s(args.old_str), new: s(args.new_str) } };
    case "insert":
    case "undo_edit":
      return { tool: "edit_file", args: { path: hostPath, old: "", new: s(args.new_str) } };
    case undefined:
    case null:
    case "":
      // OpenHands' LLM-based editor: `content` replaces lines `start`..`end` of the file.
      return { tool: "edit_file", args: { path: hostPath, old: "", new: s(args.content) } };
    default:
      return { tool: `editor_${String(args.command)}`, args: { path: hostPath } };
  }
}

export interface ReplayContext {
  tasksDir: string;
  loss: Set<string>;
}

/** Replays one run; the temp folder is removed afterwards. */
export async function replayRun(run: Run, ctx: ReplayContext): Promise<RunReplay> {
  const out: RunReplay = { model: run.model, task: run.task, label: run.label, calls: [], other: {}, afterUnresolved: 0, error: null };
  const tmp = mkdtempSync(join(tmpdir(), "polar-oas-"));
  const ws = join(ctx.tasksDir, run.task, "workspace");
  let world: World | null = null;
  try {
    world = new World(tmp, existsSync(ws) ? ws : null);
    const w = world;
    const cwd0 = w.host("/workspace");
    const advisory = await createShellGuard({ cwd: cwd0, store: join(tmp, "store-a"), policy: "advisory", session: "advisory" });
    const snapshot = await createShellGuard({ cwd: cwd0, store: join(tmp, "store-s"), policy: "snapshot", session: "snapshot" });
    let cwd = "/workspace";
    let unresolvedRan = false;
    for (const a of run.actions) {
      if (a.action === "run") {
        const command = a.args.command as string;
        if (a.args.is_input === true || a.args.is_input === "true" || command.trim() === "") {
          const k = a.args.is_input === true || a.args.is_input === "true" ? "run:input" : "run:empty";
          out.other[k] = (out.other[k] ?? 0) + 1;
          continue;
        }
        const hostCwd = w.sawDirectory(cwd, "the shell's working directory");
        const call = { tool: "shell", args: { command: w.rewrite(command), cwd: hostCwd } };
        const { rec, typed } = judge(out.calls.length + 1, a, "run", command, cwd, call, w, advisory, snapshot, ctx.loss);
        if (unresolvedRan) out.afterUnresolved++;
        const obs = a.observation;
        rec.ran = obs !== null && !obs.failed && obs.exitCode === 0;
        out.calls.push(rec);
        w.applyCalls(typed, rec.ran, `call #${rec.seq}`);
        if (rec.ran && obs !== null) w.learnListing(call.args.command, hostCwd, obs.content, `call #${rec.seq}`);
        w.replayGit(call.args.command, hostCwd, rec.ran, `call #${rec.seq}`);
        if (!rec.resolved && obs !== null && obs.kind === "run") unresolvedRan = true;
        if (obs?.workingDir) {
          cwd = obs.workingDir;
          w.sawDirectory(cwd, `the shell's working directory after call #${rec.seq}`);
        }
      } else if (a.action === "edit" && a.args.command === "view") {
        // The editor's view through an edit action: a read.
        if (a.observation !== null) w.applyRead(a.args.path as string, a.observation.content, `view of event ${a.id}`);
      } else if (a.action === "edit") {
        const path = a.args.path as string;
        const hostPath = w.host(path);
        const call = editCall(a.args, hostPath);
        if (a.args.command === "create" && a.observation !== null && !a.observation.failed) w.absentBefore(path, `the editor's create at event ${a.id} succeeded (it refuses an existing file)`);
        const { rec } = judge(out.calls.length + 1, a, "edit", `editor ${typeof a.args.command === "string" && a.args.command !== "" ? a.args.command : "edit"} ${path}`, cwd, call, w, advisory, snapshot, ctx.loss);
        if (unresolvedRan) out.afterUnresolved++;
        rec.ran = a.observation !== null && !a.observation.failed;
        out.calls.push(rec);
        w.applyEdit(path, a.args, a.observation?.content ?? null, `edit #${rec.seq}`);
      } else if (a.action === "read") {
        if (typeof a.args.path === "string" && a.observation !== null) w.applyRead(a.args.path, a.observation.content, `view of event ${a.id}`);
      } else {
        out.other[a.action] = (out.other[a.action] ?? 0) + 1;
      }
      advisory.workspace.invalidate();
      snapshot.workspace.invalidate();
    }
  } catch (e) {
    out.error = (e as Error).message;
  } finally {
    if (world !== null) world.dispose();
    else rmTmp(tmp);
  }
  return out;
}

function rmTmp(p: string): void {
  rmSync(p, { recursive: true, force: true });
}

function judge(
  seq: number,
  a: RunAction,
  kind: "run" | "edit",
  command: string,
  cwd: string,
  call: { tool: string; args: Record<string, unknown> },
  w: World,
  advisory: ShellGuard,
  snapshot: ShellGuard,
  loss: Set<string>,
): { rec: CallRecord; typed: readonly TypedCall[] } {
  // Knowledge is read before either guard looks (the snapshot guard's restore point is in its store,
  // outside the container).
  const d = advisory.check(call);
  const paths = World.pathsOf(d.calls);
  const know = new Map<string, Knowledge>();
  for (const p of paths) know.set(p, w.knowledge(p));
  // A git call's repository: unknown when the replay could not follow what earlier lines did to it.
  for (const c of d.calls) if (c.name.startsWith("git_") && typeof c.arguments.dir === "string" && !know.has(c.arguments.dir)) know.set(c.arguments.dir, w.knowledge(c.arguments.dir));
  // The snapshot guard copies what a call would lose into its restore point: never for a path outside
  // the container (e.g. `..` past its root), whose state is unknown anyway.
  const outside = paths.some((p) => !w.inside(p));
  const s = outside ? null : snapshot.check(call);
  const unknown = [...know.values()].some((k) => !k.known);
  // Creation-only calls (mkdir) lose nothing in any state: their verdict needs no state (src/shell/creation.ts).
  const stateFree = creationOnly(d.calls);
  const stateStops = unknown && !stateFree;
  const problem = d.problems.length > 0 ? { reason: d.problems[0]!.reason as string, detail: w.unmap(d.problems[0]!.detail) } : null;
  const readOnly = problem === null && d.calls.length === 0;
  const guardAllows = d.reason === "read_only" || d.reason === "reversible";
  // Unknown state fails closed: the guard judged the temp folder, which may not be what the run had.
  const snapshotAnswer: Answer = problem !== null ? "stop" : readOnly ? "allow" : stateStops || s === null ? "stop" : s.reason === "restore_point" ? "restore" : guardAllows && s.approved ? "allow" : "stop";
  // Under escalate, calls of one line that overlap are asked (the snapshot policy keeps them in a restore point instead).
  const escalate: Answer = problem !== null ? "stop" : readOnly ? "allow" : stateStops || s === null ? "stop" : guardAllows && s.reason !== "restore_point" ? "allow" : "stop";
  const tableStops = problem !== null || d.calls.some((c) => loss.has(c.name));
  const destructive =
    problem !== null ||
    d.calls.some((c) => {
      if (!loss.has(c.name)) return false;
      const target = c.name === "fs_move" ? c.arguments.destination : (PATH_ARGS[c.name] ?? [])[0] === undefined ? undefined : c.arguments[PATH_ARGS[c.name]![0]!];
      if (typeof target !== "string") return true;
      const k = know.get(target);
      return !(k?.known === true && k.kind === "absent");
    });
  const rec: CallRecord = {
    seq,
    event: a.id,
    kind,
    command,
    cwd,
    resolved: problem === null,
    readOnly,
    problem,
    calls: d.calls.map((c) => ({ name: c.name, arguments: JSON.parse(w.unmap(JSON.stringify(c.arguments))) as Record<string, unknown> })),
    state: [...know].map(([p, k]) => ({ path: w.container(p), kind: k.kind, known: k.known, source: k.source })),
    unknown,
    stateFree,
    polar: { reason: d.reason, tier: d.tier, route: d.route, inverse: d.inverse.map((st) => w.unmap(st.tool === "" ? `${st.forwardTool}: ${st.tier}${st.annotation ? ` (${st.annotation})` : ""}, no inverse` : describeStep(st, w.host("/workspace")))), message: w.unmap(d.message) },
    snapshotReason: s === null ? "not asked: a path outside the container" : s.reason,
    answers: { snapshot: snapshotAnswer, escalate, table: tableStops ? "stop" : "allow", allowAll: "allow" },
    destructive,
    ran: false,
  };
  return { rec, typed: d.calls };
}

/** ontologies/shell/shell.polar next to the package. */
export function readShellOntology(root: string): string {
  return readFileSync(join(root, "ontologies", "shell", "shell.polar"), "utf8");
}

// Replay of a τ²-bench trajectory through the guard, in advisory mode: the trajectory is what it was,
// the guard only records what it would have decided. Layer B is rebuilt from the domain's documents
// plus the task's initial state, then updated with the result of every call that ran (an errored call
// changed nothing), exactly in the order the environment executed them: a call is checked right before
// it ran, so the calls before it in the same assistant message have already been observed.
// Runtime-neutral: documents and results come in as data.
import type { ExecutedCall, ToolCall } from "../core/types.js";
import { LayerB } from "../projection/layer-b.js";
import { applyAction, applyToolResult, parseToolResult, projectDocument, type ApplyReport } from "../projection/project.js";
import type { ProjectionRules } from "../projection/rules.js";
import { callsWithResults, type Tau2Task, type Tau2ToolCall, type Trajectory } from "./adapter.js";

export type ReplayScope = "turn" | "session";

/** What replay passes to the guard with each call. */
export interface ReplayCheckContext {
  /** Text of every user message before the call, oldest first (policies look at the last three). */
  userMessages: string[];
  /** Turn scope: the calls made earlier in the same message, already executed, with their results. */
  turnCalls: ExecutedCall[];
  /** The user and assistant text messages before the call, oldest first (the `recent-messages`
   * consent mode reads which assistant message a user's yes answers). */
  messages: { role: "user" | "assistant"; content: string }[];
}

/** The part of a guard replay drives. `observe` is told about every executed call of a guarded
 * requestor (session scope keeps its forward sequence from it). With `updatesState` the guard applies
 * the result to its Layer B itself (src/guard's observe with `config.projection`) and returns what it
 * changed; otherwise replay applies it. Calls of other requestors (telecom's user-side tools) are
 * applied by replay and never shown to the guard. */
export interface ReplayGuard<D = unknown> {
  check(call: ToolCall, context: ReplayCheckContext): D;
  observe?(call: ToolCall, content: string, info: { error: boolean; requestor: string }): ApplyReport | null | void;
  readonly updatesState?: boolean;
}

export type ReplayGuardFactory<D = unknown> = (state: LayerB, scope: ReplayScope) => ReplayGuard<D>;

export interface ReplayOptions<D = unknown> {
  rules: ProjectionRules;
  /** The domain's documents by rules name (`db`, `user_db`). */
  documents: Readonly<Record<string, unknown>>;
  guard: ReplayGuardFactory<D>;
  /** Default both, turn first. */
  scopes?: readonly ReplayScope[];
  /** Whose calls are guarded; default the agent's (`assistant`). Every executed call updates Layer B. */
  requestors?: readonly string[];
  /** A projection of the documents to start from (saves re-projecting a large db per trajectory). */
  base?: LayerB;
}

export interface ReplayRecord<D = unknown> {
  /** Index among the trajectory's tool calls (all requestors). */
  callIndex: number;
  messageIndex: number;
  positionInMessage: number;
  call: Tau2ToolCall;
  decisions: Partial<Record<ReplayScope, D>>;
  /** The call's result; null when the run ended before it. */
  result: { content: string; error: boolean } | null;
  errored: boolean;
  userMessagesBefore: string[];
  /** What the result changed in Layer B (null when it did not run or errored). */
  projection: ApplyReport | null;
}

export interface InitialStateReport {
  /** Initialization actions applied by the rules' `actions` (or `tools`) entries. */
  applied: ApplyReport[];
  /** Parts of the task's initial state the replay could not apply, with why. */
  unsupported: string[];
}

/** Layer B at the start of a task: the documents (with `initialization_data` merged in) projected,
 * then `initialization_actions` applied through the rules. */
export function initialState(
  rules: ProjectionRules,
  documents: Readonly<Record<string, unknown>>,
  task: Tau2Task | null,
  base?: LayerB,
): { state: LayerB; report: InitialStateReport } {
  const report: InitialStateReport = { applied: [], unsupported: [] };
  const init = task?.initialState ?? null;
  const data = init?.initializationData ?? null;
  let state: LayerB;
  if (data !== null && (data.agentData != null || data.userData != null)) {
    const docs: Record<string, unknown> = { ...documents };
    if (data.agentData != null) docs.db = deepMerge(docs.db, data.agentData);
    if (data.userData != null) docs.user_db = deepMerge(docs.user_db, data.userData);
    state = projectAll(rules, docs);
  } else {
    state = base ? base.clone() : projectAll(rules, documents);
  }
  for (const a of init?.initializationActions ?? []) {
    const r = applyAction(rules, state, { name: a.funcName, arguments: a.arguments });
    if (r.matched) report.applied.push(r);
    else report.unsupported.push(`initialization action \`${a.envType}:${a.funcName}\` has no \`actions\` or \`tools\` entry in the projection rules`);
  }
  if (init?.messageHistory && init.messageHistory.length > 0) {
    report.unsupported.push(`\`message_history\` (${init.messageHistory.length} messages) is not replayed into Layer B`);
  }
  return { state, report };
}

/** Projects every document the rules know and the data has (`db`, then the others in rules order). */
export function projectAll(rules: ProjectionRules, documents: Readonly<Record<string, unknown>>): LayerB {
  const state = new LayerB();
  for (const name of rules.documents.keys()) {
    if (documents[name] !== undefined) projectDocument(rules, documents[name], state, { document: name });
  }
  return state;
}

// τ²-bench's update_db semantics: objects merge key by key, anything else replaces.
function deepMerge(base: unknown, patch: unknown): unknown {
  if (!isObj(base) || !isObj(patch)) return patch;
  const out: Record<string, unknown> = { ...base };
  for (const k of Object.keys(patch)) out[k] = deepMerge(base[k], patch[k]);
  return out;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface ReplayRun<D = unknown> {
  initial: InitialStateReport;
  records: Generator<ReplayRecord<D>, void, undefined>;
}

/** Starts a replay; iterate `records` for one record per tool call, in execution order. */
export function replayTrajectory<D = unknown>(traj: Trajectory, options: ReplayOptions<D>): ReplayRun<D> {
  const scopes = options.scopes ?? ["turn", "session"];
  const requestors = options.requestors ?? ["assistant"];
  const { state: start, report } = initialState(options.rules, options.documents, traj.task, options.base);
  // One Layer B per scope: a guard reads its own state, so one scope can never see another's effects.
  const states = scopes.map((_, i) => (i === 0 ? start : start.clone()));
  const guards = scopes.map((s, i) => options.guard(states[i], s));
  return { initial: report, records: run() };

  function* run(): Generator<ReplayRecord<D>, void, undefined> {
    const calls = callsWithResults(traj);
    const userTexts: string[] = [];
    const conversation: { role: "user" | "assistant"; content: string }[] = [];
    let nextMessage = 0;
    let turnMessage = -1;
    let turnCalls: ExecutedCall[] = [];
    for (let ci = 0; ci < calls.length; ci++) {
      const c = calls[ci];
      // User text up to the message that made this call.
      for (; nextMessage < c.messageIndex; nextMessage++) {
        const m = traj.messages[nextMessage];
        if (m.role === "user" && m.content !== null && m.content.trim() !== "") userTexts.push(m.content);
        if ((m.role === "user" || m.role === "assistant") && m.content !== null && m.content.trim() !== "") conversation.push({ role: m.role, content: m.content });
      }
      if (c.messageIndex !== turnMessage) {
        turnMessage = c.messageIndex;
        turnCalls = [];
      }
      const call: ToolCall = { name: c.call.name, arguments: c.call.arguments };
      const decisions: Partial<Record<ReplayScope, D>> = {};
      if (requestors.includes(c.call.requestor)) {
        const context: ReplayCheckContext = { userMessages: userTexts.slice(), turnCalls: turnCalls.slice(), messages: conversation.slice() };
        scopes.forEach((s, i) => {
          decisions[s] = guards[i].check(call, context);
        });
      }
      let projection: ApplyReport | null = null;
      const ran = c.result !== null && !c.result.error;
      if (c.result !== null) {
        const { content, error } = c.result;
        const guarded = requestors.includes(c.call.requestor);
        states.forEach((st, i) => {
          const g = guards[i];
          let r: ApplyReport | null = null;
          if (guarded && g.observe) r = g.observe(call, content, { error, requestor: c.call.requestor }) ?? null;
          if (!(guarded && g.updatesState === true)) r = applyToolResult(options.rules, st, call, content, { error });
          if (i === 0) projection = ran ? r : null;
        });
        if (ran && guarded) turnCalls.push({ ...call, result: parseToolResult(content).value });
      }
      yield {
        callIndex: ci,
        messageIndex: c.messageIndex,
        positionInMessage: c.positionInMessage,
        call: c.call,
        decisions,
        result: c.result,
        errored: c.result?.error ?? false,
        userMessagesBefore: userTexts.slice(),
        projection,
      };
    }
  }
}

/** Replays a whole trajectory and returns every record. */
export function replayAll<D = unknown>(traj: Trajectory, options: ReplayOptions<D>): { initial: InitialStateReport; records: ReplayRecord<D>[] } {
  const run = replayTrajectory(traj, options);
  return { initial: run.initial, records: [...run.records] };
}

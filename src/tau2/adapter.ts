// τ²-bench results → trajectories. Reads results files as τ²-bench writes them (the standard
// `{ timestamp, info, tasks, simulations }` object) and the looser shapes people pass around: a bare list
// of simulations, `{ simulations }` without tasks, or a single simulation. Runtime-neutral: it takes
// parsed JSON; src/tau2/node.ts reads files.
import { ProjectionError } from "../projection/errors.js";

export type ResultsFormat = "standard" | "bare-list" | "simulations-only" | "single-simulation";

export interface Tau2ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Who made the call: `assistant` (the agent) or `user` (telecom's user-side device tools). */
  requestor: string;
}

export type Tau2Message =
  | { role: "user"; turn: number; content: string | null; toolCalls: Tau2ToolCall[] }
  | { role: "assistant"; turn: number; content: string | null; toolCalls: Tau2ToolCall[] }
  | { role: "tool"; turn: number; id: string; content: string; error: boolean; requestor: string }
  | { role: "system"; turn: number; content: string | null };

export interface GoldAction {
  actionId: string | null;
  requestor: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The arguments τ²-bench compares; null means all of them. */
  compareArgs: string[] | null;
}

export interface InitAction {
  envType: string;
  funcName: string;
  arguments: Record<string, unknown>;
}

export interface Tau2Task {
  id: string;
  goldActions: GoldAction[];
  /** τ²-bench's `initial_state` (null for airline and retail). */
  initialState: {
    initializationData: { agentData: unknown; userData: unknown } | null;
    initializationActions: InitAction[];
    messageHistory: unknown[] | null;
  } | null;
  raw: unknown;
}

export interface Trajectory {
  source: { file: string | null; format: ResultsFormat; index: number };
  domain: string | null;
  /** The agent's model (`info.agent_info.llm`). */
  model: string | null;
  agentImplementation: string | null;
  userModel: string | null;
  simulationId: string | null;
  taskId: string;
  task: Tau2Task | null;
  trial: number;
  reward: number | null;
  terminationReason: string | null;
  messages: Tau2Message[];
  /** The `action_id`s of the gold actions τ²-bench checked this run against (`reward_info.action_checks`),
   * in order; null when the results do not say. They name the task the run really ran (src/eval/task-match.ts). */
  rewardActionIds?: string[] | null;
}

export interface ReadResultsOptions {
  file?: string;
  /** Tasks to attach when the results do not embed them (bare lists), by id. */
  tasks?: ReadonlyMap<string, Tau2Task>;
  /** Domain / model when the results do not say (bare lists); else guessed from the file name. */
  domain?: string;
  model?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function bad(message: string, file: string | undefined): ProjectionError {
  return new ProjectionError("bad-document", file ? `${message}: in \`${file}\`` : message, {
    help: "expected τ²-bench results: `{ info, tasks, simulations }`, a list of simulations, or one simulation",
  });
}

/** Normalizes one results document (already parsed) into trajectories. */
export function readResults(json: unknown, options: ReadResultsOptions = {}): Trajectory[] {
  const file = options.file;
  let format: ResultsFormat;
  let sims: unknown[];
  let info: Obj = {};
  let tasks = new Map<string, Tau2Task>(options.tasks ?? []);
  if (Array.isArray(json)) {
    format = "bare-list";
    sims = json;
  } else if (isObj(json) && Array.isArray(json.simulations)) {
    format = Array.isArray(json.tasks) ? "standard" : "simulations-only";
    sims = json.simulations;
    if (isObj(json.info)) info = json.info;
    if (Array.isArray(json.tasks)) {
      // Tasks embedded in the file are the ones that run used: they win over the domain's tasks.json.
      tasks = new Map(tasks);
      for (const t of json.tasks) {
        const task = normalizeTask(t);
        tasks.set(task.id, task);
      }
    }
  } else if (isObj(json) && Array.isArray(json.messages)) {
    format = "single-simulation";
    sims = [json];
  } else throw bad("not a τ²-bench results document", file);

  const fromName = file ? guessFromFileName(file) : { domain: null, model: null };
  const env = isObj(info.environment_info) ? info.environment_info : {};
  const agent = isObj(info.agent_info) ? info.agent_info : {};
  const user = isObj(info.user_info) ? info.user_info : {};
  const domain = str(env.domain_name) ?? options.domain ?? fromName.domain;
  const model = str(agent.llm) ?? options.model ?? fromName.model;
  return sims.map((s, index) => {
    if (!isObj(s) || !Array.isArray(s.messages)) throw bad(`simulation ${index} has no \`messages\` list`, file);
    const taskId = s.task_id === undefined || s.task_id === null ? null : String(s.task_id);
    if (taskId === null) throw bad(`simulation ${index} has no \`task_id\``, file);
    const reward = isObj(s.reward_info) && typeof s.reward_info.reward === "number" ? s.reward_info.reward : null;
    return {
      source: { file: file ?? null, format, index },
      domain,
      model,
      agentImplementation: str(agent.implementation),
      userModel: str(user.llm),
      simulationId: str(s.id),
      taskId,
      task: tasks.get(taskId) ?? null,
      trial: typeof s.trial === "number" ? s.trial : 0,
      reward,
      terminationReason: str(s.termination_reason),
      messages: s.messages.map((m, i) => normalizeMessage(m, i, file)),
      rewardActionIds: rewardActionIds(s.reward_info),
    };
  });
}

/** `reward_info.action_checks[].action.action_id`, null when absent or not that shape. */
function rewardActionIds(info: unknown): string[] | null {
  if (!isObj(info) || !Array.isArray(info.action_checks)) return null;
  const ids: string[] = [];
  for (const c of info.action_checks) {
    const id = isObj(c) && isObj(c.action) ? str(c.action.action_id) : null;
    if (id === null) return null;
    ids.push(id);
  }
  return ids;
}

function normalizeToolCall(tc: unknown, role: string, file: string | undefined): Tau2ToolCall {
  if (!isObj(tc) || typeof tc.name !== "string") throw bad("a tool call has no `name`", file);
  let args: unknown = tc.arguments ?? {};
  // Some exporters keep OpenAI's JSON-string arguments; τ²-bench itself stores an object.
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      throw bad(`arguments of \`${tc.name}\` are not JSON`, file);
    }
  }
  if (!isObj(args)) throw bad(`arguments of \`${tc.name}\` are not an object`, file);
  return { id: String(tc.id ?? ""), name: tc.name, arguments: args, requestor: str(tc.requestor) ?? role };
}

function normalizeMessage(m: unknown, i: number, file: string | undefined): Tau2Message {
  if (!isObj(m) || typeof m.role !== "string") throw bad(`message ${i} has no \`role\``, file);
  const turn = typeof m.turn_idx === "number" ? m.turn_idx : i;
  const content = typeof m.content === "string" ? m.content : m.content === null || m.content === undefined ? null : JSON.stringify(m.content);
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map((tc) => normalizeToolCall(tc, m.role as string, file)) : [];
  switch (m.role) {
    case "user":
    case "assistant":
      return { role: m.role, turn, content, toolCalls: calls };
    case "tool":
      return { role: "tool", turn, id: String(m.id ?? ""), content: content ?? "", error: m.error === true, requestor: str(m.requestor) ?? "assistant" };
    case "system":
      return { role: "system", turn, content };
    default:
      throw bad(`message ${i} has an unknown role \`${m.role}\``, file);
  }
}

/** A τ²-bench task (from a results file or tasks.json) with what replay and labelling need. */
export function normalizeTask(t: unknown): Tau2Task {
  if (!isObj(t) || (typeof t.id !== "string" && typeof t.id !== "number")) {
    throw new ProjectionError("bad-document", "a task has no `id`");
  }
  const crit = isObj(t.evaluation_criteria) ? t.evaluation_criteria : {};
  const goldActions: GoldAction[] = (Array.isArray(crit.actions) ? crit.actions : []).filter(isObj).map((a) => ({
    actionId: str(a.action_id),
    requestor: str(a.requestor) ?? "assistant",
    name: String(a.name),
    arguments: isObj(a.arguments) ? a.arguments : {},
    compareArgs: Array.isArray(a.compare_args) ? a.compare_args.map(String) : null,
  }));
  let initialState: Tau2Task["initialState"] = null;
  if (isObj(t.initial_state)) {
    const is = t.initial_state;
    const data = isObj(is.initialization_data) ? is.initialization_data : null;
    initialState = {
      initializationData: data ? { agentData: data.agent_data ?? null, userData: data.user_data ?? null } : null,
      initializationActions: (Array.isArray(is.initialization_actions) ? is.initialization_actions : []).filter(isObj).map((a) => ({
        envType: str(a.env_type) ?? "assistant",
        funcName: String(a.func_name),
        arguments: isObj(a.arguments) ? a.arguments : {},
      })),
      messageHistory: Array.isArray(is.message_history) ? is.message_history : null,
    };
  }
  return { id: String(t.id), goldActions, initialState, raw: t };
}

/** `<model>_<domain>_<user…>_<n>trial(s)….json`, τ²-bench's default naming. */
export function guessFromFileName(file: string): { domain: string | null; model: string | null } {
  const base = file.split(/[\\/]/).pop()!.replace(/\.json$/, "");
  const m = /^(.*?)_(airline|retail|telecom|mock)_/.exec(base);
  return m ? { model: m[1], domain: m[2] } : { domain: null, model: null };
}

/** One executed (or attempted) tool call of a trajectory with its result. */
export interface CallRecord {
  call: Tau2ToolCall;
  /** Index in `messages` of the message that made the call. */
  messageIndex: number;
  /** Position of the call within its message (turn scope: the calls before it in the same message). */
  positionInMessage: number;
  /** The tool message answering it; null when the run ended before the result. */
  result: { content: string; error: boolean } | null;
}

/** The tool calls of a trajectory in order, paired with their results by id. */
export function callsWithResults(traj: Trajectory): CallRecord[] {
  const out: CallRecord[] = [];
  const open = new Map<string, CallRecord>();
  traj.messages.forEach((m, i) => {
    if (m.role === "assistant" || m.role === "user") {
      m.toolCalls.forEach((call, k) => {
        const rec: CallRecord = { call, messageIndex: i, positionInMessage: k, result: null };
        out.push(rec);
        open.set(call.id, rec);
      });
    } else if (m.role === "tool") {
      const rec = open.get(m.id);
      if (rec !== undefined && rec.result === null) {
        rec.result = { content: m.content, error: m.error };
        open.delete(m.id);
      }
    }
  });
  return out;
}

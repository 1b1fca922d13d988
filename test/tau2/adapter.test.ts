import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { callsWithResults, guessFromFileName, normalizeTask, readResults } from "../../src/tau2/index.js";
import { ProjectionError as PE } from "../../src/projection/index.js";

const FIX = (f: string): string => fileURLToPath(new URL(`../fixtures/tau2/${f}`, import.meta.url));
const load = (f: string): unknown => JSON.parse(readFileSync(FIX(f), "utf8"));
const read = (f: string, o: Parameters<typeof readResults>[1] = {}) => readResults(load(f), { file: FIX(f), ...o });

describe("readResults: the standard format", () => {
  const trajs = read("standard_airline.json");

  it("normalizes domain, model, task, trial, reward", () => {
    expect(trajs).toHaveLength(2);
    const t = trajs.find((x) => x.taskId === "22")!;
    expect(t.source.format).toBe("standard");
    expect(t.domain).toBe("airline");
    expect(t.model).toBe("gpt-4.1");
    expect(t.userModel).toBe("gpt-4.1");
    expect(t.agentImplementation).toBe("llm_agent");
    expect(t.trial).toBe(0);
    expect(t.reward).toBe(0);
    expect(t.terminationReason).toBe("user_stop");
    expect(t.task?.id).toBe("22");
    expect(t.task?.initialState).toBeNull();
    expect(t.task?.goldActions.map((a) => a.name)).toEqual(expect.arrayContaining(["update_reservation_flights"]));
    const g = t.task!.goldActions[0];
    expect(g).toMatchObject({ requestor: "assistant" });
    expect(g.compareArgs === null || Array.isArray(g.compareArgs)).toBe(true);
  });

  it("keeps every message with tool calls and results paired by id", () => {
    const t = trajs.find((x) => x.taskId === "22")!;
    expect(t.messages.map((m) => m.role)).toContain("user");
    const calls = callsWithResults(t);
    expect(calls.length).toBe(8);
    for (const c of calls) {
      expect(c.call.id).not.toBe("");
      expect(c.call.requestor).toBe("assistant");
      expect(c.result).not.toBeNull();
      expect(typeof c.result!.content).toBe("string");
    }
    const upd = calls.find((c) => c.call.name === "update_reservation_flights")!;
    expect(upd.call.arguments.reservation_id).toBe("FQ8APE");
    expect(JSON.parse(upd.result!.content).reservation_id).toBe("FQ8APE");
    // Calls of one assistant message share messageIndex and are numbered within it.
    const multi = calls.filter((c) => c.messageIndex === calls[1].messageIndex);
    expect(multi.map((c) => c.positionInMessage)).toEqual(multi.map((_, i) => i));
  });
});

describe("readResults: variants present in results/", () => {
  it("telecom with a user simulator: user-side tool calls with requestor `user`", () => {
    const [t] = read("telecom_user_tools.json");
    expect(t.domain).toBe("telecom");
    const calls = callsWithResults(t);
    expect(calls.some((c) => c.call.requestor === "user")).toBe(true);
    expect(calls.some((c) => c.call.requestor === "assistant")).toBe(true);
    const userMsg = t.messages.find((m) => m.role === "user" && m.toolCalls.length > 0);
    expect(userMsg).toBeDefined();
    expect(t.task?.initialState?.initializationActions.length).toBeGreaterThan(0);
    expect(t.task?.initialState?.initializationActions[0]).toEqual({ envType: "user", funcName: "set_user_info", arguments: { name: "John Smith", phone_number: "555-123-2002" } });
    expect(t.task?.goldActions.every((a) => a.requestor === "user")).toBe(true);
  });

  it("telecom solo (no user): the agent calls the device tools, no user messages", () => {
    const [t] = read("telecom_solo.json");
    expect(t.agentImplementation).toBe("llm_agent_solo");
    expect(t.messages.some((m) => m.role === "user")).toBe(false);
    expect(callsWithResults(t).every((c) => c.call.requestor === "assistant")).toBe(true);
    expect(t.terminationReason).toBe("agent_stop");
  });

  it("multi-trial runs from an older τ²-bench (no `errors`/`reasoning` fields)", () => {
    const trajs = read("telecom_multi_trial.json");
    expect(trajs.length).toBe(4);
    expect(new Set(trajs.map((t) => t.trial))).toEqual(new Set([0, 1, 2, 3]));
    expect(new Set(trajs.map((t) => t.taskId)).size).toBe(1);
    expect(trajs[0].model).toBe("gpt-4.1-2025-04-14");
  });

  it("assistant messages with both text and tool calls (qwen2.5-7b)", () => {
    const [t] = read("qwen_airline_text_and_calls.json");
    expect(t.model).toBe("ollama_chat/qwen2.5:7b");
    expect(t.messages.some((m) => m.role === "assistant" && m.content !== null && m.toolCalls.length > 0)).toBe(true);
  });

  it("errored tool results", () => {
    const [t] = read("retail_errors.json");
    expect(t.domain).toBe("retail");
    const errored = callsWithResults(t).filter((c) => c.result?.error);
    expect(errored.length).toBeGreaterThan(0);
    expect(errored[0].result!.content).toMatch(/^Error/);
  });
});

describe("readResults: other shapes", () => {
  const tasks = new Map([["48", normalizeTask({ id: "48", evaluation_criteria: { actions: [{ action_id: "a", name: "cancel_reservation", arguments: { reservation_id: "X" }, compare_args: ["reservation_id"] }] } })]]);

  it("a bare list of simulations: domain and model from options or the file name, tasks supplied", () => {
    const [t] = read("bare_list_airline.json", { tasks, domain: "airline" });
    expect(t.source.format).toBe("bare-list");
    expect(t.domain).toBe("airline");
    expect(t.model).toBe(null); // the fixture's name does not follow τ²-bench's pattern
    expect(t.task?.goldActions[0]).toEqual({ actionId: "a", requestor: "assistant", name: "cancel_reservation", arguments: { reservation_id: "X" }, compareArgs: ["reservation_id"] });
    const [u] = readResults(load("bare_list_airline.json"), { file: "x/gpt-4.1_airline_default_user-gpt-4.1_1trial.json" });
    expect(u.domain).toBe("airline");
    expect(u.model).toBe("gpt-4.1");
    expect(u.task).toBeNull();
  });

  it("a single simulation and `{ simulations }` with string arguments", () => {
    const [a] = read("single_simulation_airline.json", { domain: "airline", model: "m" });
    expect(a.source.format).toBe("single-simulation");
    expect(a.domain).toBe("airline");
    expect(a.model).toBe("m");
    const [b] = read("simulations_only_string_args.json");
    expect(b.source.format).toBe("simulations-only");
    expect(callsWithResults(b).map((c) => c.call.arguments)).toEqual(callsWithResults(a).map((c) => c.call.arguments));
  });

  it("refuses what is not τ²-bench results with bad-document", () => {
    const cases: unknown[] = [
      42,
      { info: {} },
      [{ task_id: "1" }],
      [{ messages: [] }],
      [{ task_id: "1", messages: [{ content: "x" }] }],
      [{ task_id: "1", messages: [{ role: "robot" }] }],
      [{ task_id: "1", messages: [{ role: "assistant", tool_calls: [{ arguments: {} }] }] }],
      [{ task_id: "1", messages: [{ role: "assistant", tool_calls: [{ name: "t", arguments: "{x" }] }] }],
      [{ task_id: "1", messages: [{ role: "assistant", tool_calls: [{ name: "t", arguments: [1] }] }] }],
    ];
    for (const c of cases) {
      let err: unknown;
      try {
        readResults(c, { file: "f.json" });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PE);
      expect((err as PE).code).toBe("bad-document");
      expect((err as PE).message).toMatch(/: in `f\.json`$/);
    }
    expect(() => normalizeTask({})).toThrow(/a task has no `id`/);
  });

  it("a call without a result (the run ended first) has result null", () => {
    const [t] = readResults([{ task_id: "1", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", name: "t", arguments: {} }] }, { role: "tool", id: "other", content: "x" }] }]);
    expect(callsWithResults(t)[0].result).toBeNull();
  });
});

describe("guessFromFileName", () => {
  it.each([
    ["gpt-4.1_airline_default_user-gpt-4.1_1trial.json", "gpt-4.1", "airline"],
    ["/a/b/ft-gpt-4.1-tau2-full-sft_telecom_no-user_1trial.json", "ft-gpt-4.1-tau2-full-sft", "telecom"],
    ["qwen2.5-7b_retail_default_user-gpt-4.1_1trial.json", "qwen2.5-7b", "retail"],
    ["whatever.json", null, null],
  ])("%s", (f, model, domain) => {
    expect(guessFromFileName(f)).toEqual({ model, domain });
  });
});

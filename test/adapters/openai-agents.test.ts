// polar-guard/openai-agents against the real Agents SDK runner (@openai/agents 0.14): a scripted
// custom Model answers with function calls, the runner executes them through the guarded tools, and
// escalations come back as RunState interruptions that the test approves or rejects and resumes.
import { beforeAll, describe, expect, test } from "vitest";
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { createAgentsGuard } from "../../src/adapters/openai-agents.js";
import { declinedMessage } from "../../src/adapters/core.js";
import { calls, fixture, replays, routes, type Fixture } from "./fixtures.js";

beforeAll(() => setTracingDisabled(true));

type Call = { name: string; arguments: unknown };
let ids = 0;
const functionCalls = (...cs: Call[]): ModelResponse => ({
  usage: new Usage(),
  output: cs.map((c) => ({
    type: "function_call" as const,
    callId: `call_${++ids}`,
    name: c.name,
    arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    status: "completed" as const,
  })),
});
/** Function calls with the ids given: OpenAI-compatible local servers reuse ids such as `call_0`. */
const functionCallsWithIds = (...cs: [string, Call][]): ModelResponse => ({
  usage: new Usage(),
  output: cs.map(([callId, c]) => ({ type: "function_call" as const, callId, name: c.name, arguments: JSON.stringify(c.arguments), status: "completed" as const })),
});
const say = (text: string): ModelResponse => ({
  usage: new Usage(),
  output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }],
});

/** A model that plays a script and keeps every request it was given. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: ModelResponse[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return this.script.shift() ?? say("(script ended)");
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed in these tests");
  }
}

const parameters = { type: "object" as const, properties: {}, required: [] as string[], additionalProperties: true as const };

async function converse(f: Fixture, script: ModelResponse[], answer: (question: string | null) => boolean) {
  const polar = createAgentsGuard(f.guard);
  const tools = Object.entries(f.impl).map(([name, run]) =>
    tool(polar.tool({ name, description: name, parameters, strict: false as const, execute: (input: unknown) => run(input as Record<string, unknown>) })),
  );
  const model = new ScriptedModel(script);
  const agent = new Agent({ name: "airline agent", instructions: "help", model, tools });
  const runner = new Runner({ tracingDisabled: true, toolErrorFormatter: polar.toolErrorFormatter });
  const questions: (string | null)[] = [];
  let result = await runner.run(agent, "please sort out my booking", { context: { userMessages: ["please sort out my booking"] } });
  for (let round = 0; round < 4 && result.interruptions.length > 0; round++) {
    for (const item of result.interruptions) {
      const q = polar.question(item);
      questions.push(q);
      if (answer(q)) result.state.approve(item);
      else result.state.reject(item);
    }
    result = await runner.run(agent, result.state);
  }
  const toolOutputs = JSON.stringify(model.requests.at(-1)?.input);
  return { result, questions, toolOutputs };
}

describe("polar-guard/openai-agents (Agents SDK runner)", () => {
  test("approve: an admissible call runs once, one Approved record that replays", async () => {
    const f = fixture();
    const { result } = await converse(f, [functionCalls(calls.editFlights), say("done")], () => false);
    expect(result.finalOutput).toBe("done");
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
    expect(replays(f)).toBe(true);
  });

  test("veto: the input guardrail rejects with the guard's refusal; no interruption, the model reads the reason", async () => {
    const f = fixture();
    const { questions, toolOutputs } = await converse(f, [functionCalls(calls.cancelMissing), say("sorry")], () => true);
    expect(questions).toEqual([]);
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["cancel_reservation:Vetoed"]);
    expect(toolOutputs).toContain("missing_entity");
  });

  test("consent asked then given: the interruption carries the guard's question; approve + resume runs the call", async () => {
    const f = fixture();
    const { questions, result } = await converse(f, [functionCalls(calls.certificate), say("sent")], () => true);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("external sink `email`");
    expect(result.finalOutput).toBe("sent");
    expect(f.ran).toEqual({ send_certificate: 1 });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    expect(replays(f)).toBe(true);
  });

  test("consent refused: reject + resume, the call never runs; the no is recorded and the model reads it", async () => {
    const f = fixture();
    const { result, toolOutputs } = await converse(f, [functionCalls(calls.certificate), say("not sent")], () => false);
    expect(result.finalOutput).toBe("not sent");
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log[1].consent).toMatchObject({ consent: false });
    expect(toolOutputs).toContain("The user declined");
    expect(replays(f)).toBe(true);
  });

  test("a user's no binds the call for the session: the model's retry in its next response is refused, not asked again (issue 21 item 13)", async () => {
    const f = fixture();
    const { questions, toolOutputs } = await converse(f, [functionCalls(calls.certificate), functionCalls(calls.certificate), say("not sent")], () => false);
    expect(questions).toHaveLength(1);
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log.map((d) => d.consent?.consent)).toEqual([false, false, false]);
    // The same words in every adapter (issue 21 item 20): the call, and that the user declined it.
    expect(toolOutputs).toContain(JSON.stringify(declinedMessage(calls.certificate)).slice(1, -1));
    expect(replays(f)).toBe(true);
  });

  test("without the formatter, a rejection is recorded when the run next reaches a guarded tool, and binds", async () => {
    const f = fixture();
    const polar = createAgentsGuard(f.guard);
    const tools = Object.entries(f.impl).map(([name, run]) => tool(polar.tool({ name, description: name, parameters, strict: false as const, execute: (input: unknown) => run(input as Record<string, unknown>) })));
    const model = new ScriptedModel([functionCalls(calls.certificate), functionCalls(calls.certificate), say("ok")]);
    const agent = new Agent({ name: "a", model, tools });
    const runner = new Runner({ tracingDisabled: true });
    let result = await runner.run(agent, "hi", { context: { userMessages: ["hi"] } });
    expect(result.interruptions).toHaveLength(1);
    result.state.reject(result.interruptions[0]);
    result = await runner.run(agent, result.state);
    expect(result.interruptions).toHaveLength(0);
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
  });

  test("two calls of one response under the same id: each runs on its own decision, never the other's (issue 21 item 1)", async () => {
    const f = fixture();
    const read = { name: "get_reservation_details", arguments: { reservation_id: "R2" } };
    const seen: Record<string, unknown>[] = [];
    const polar = createAgentsGuard(f.guard);
    const tools = Object.entries(f.impl).map(([name, run]) => tool(polar.tool({ name, description: name, parameters, strict: false as const, execute: (input: unknown) => (seen.push({ name, input }), run(input as Record<string, unknown>)) })));
    const model = new ScriptedModel([functionCallsWithIds(["call_0", calls.cancelR1], ["call_0", read]), say("done")]);
    await new Runner({ tracingDisabled: true }).run(new Agent({ name: "a", model, tools }), "hi");
    expect(seen).toContainEqual({ name: "cancel_reservation", input: calls.cancelR1.arguments });
    expect(seen).not.toContainEqual({ name: "cancel_reservation", input: read.arguments });
    for (const s of seen) {
      const d = f.log.find((x) => (x.call as { name: string }).name === s.name)!;
      expect((d.call as { arguments: unknown }).arguments).toEqual(s.input);
    }
    expect(replays(f)).toBe(true);
  });

  test("calls in consecutive responses are different turns even when the model reports no usage, as in the other adapters (issue 21 item 20)", async () => {
    const f = fixture();
    await converse(f, [functionCalls(calls.editFlights), functionCalls(calls.cancelR1), say("done")], () => false);
    // Judged alone (its own response), the cancel is admissible: it is not an earlier call's sibling.
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:Approved"]);
    expect(f.log[1].forward).toEqual([]);
    expect(f.ran).toEqual({ update_reservation_flights: 1, cancel_reservation: 1 });
  });

  test("a \"yes\" in the run context's user messages is not consent", async () => {
    const f = fixture();
    const polar = createAgentsGuard(f.guard, { userMessages: () => ["yes please, go ahead"] });
    const model = new ScriptedModel([functionCalls(calls.certificate), say("?")]);
    const agent = new Agent({ name: "a", model, tools: [tool(polar.tool({ name: "send_certificate", description: "x", parameters, strict: false as const, execute: (i: unknown) => f.impl.send_certificate(i as Record<string, unknown>) }))] });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "hi");
    expect(result.interruptions).toHaveLength(1);
    expect(f.ran).toEqual({});
  });

  test("a parallel pair: the second call is judged with the first (overlap_conflict) and interrupts", async () => {
    const f = fixture();
    const { questions } = await converse(f, [functionCalls(calls.editFlights, calls.cancelR1), say("done")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:ConsentEscalated", "cancel_reservation:ConsentEscalated"]);
    expect(f.log[1].reason).toBe("overlap_conflict");
    expect(questions).toHaveLength(1);
  });

  test("a tool that throws: the SDK reports the error to the model; its outcome is unknown", async () => {
    const f = fixture("escalate", "session");
    const { toolOutputs } = await converse(f, [functionCalls(calls.broken), say("failed")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(toolOutputs).toContain("the booking system is down");
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
  });

  test("an executed call is observed with its real result", async () => {
    const f = fixture("escalate", "session");
    await converse(f, [functionCalls(calls.editFlights), say("done")], () => false);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("shadow mode (advisory guard): nothing interrupts or is rejected, the records say what enforcement would have done", async () => {
    const f = fixture("advisory");
    const { questions } = await converse(f, [functionCalls(calls.editFlights, calls.certificate), say("done")], () => false);
    expect(questions).toEqual([]);
    expect(f.ran).toEqual({ update_reservation_flights: 1, send_certificate: 1 });
    expect(f.log.map((d) => [d.route, d.admissible])).toEqual([["Approved", true], ["AdvisoryPassthrough", false]]);
  });
});

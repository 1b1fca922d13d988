// polar-guard/openai-agents against the real Agents SDK runner (@openai/agents 0.14): a scripted
// custom Model answers with function calls, the runner executes them through the guarded tools, and
// escalations come back as RunState interruptions that the test approves or rejects and resumes.
import { beforeAll, describe, expect, test } from "vitest";
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { createAgentsGuard } from "../../src/adapters/openai-agents.js";
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
  const runner = new Runner({ tracingDisabled: true });
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

  test("consent refused: reject + resume, the call never runs", async () => {
    const f = fixture();
    const { result } = await converse(f, [functionCalls(calls.certificate), say("not sent")], () => false);
    expect(result.finalOutput).toBe("not sent");
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated"]);
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
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:ConsentEscalated"]);
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

// polar-guard/ai against the real AI SDK 6 agent loop (generateText with tools and stopWhen), driven by
// the SDK's own MockLanguageModelV3: no network. Each test scripts the model's tool calls and checks
// what ran, what the model was told and the guard's records.
import { describe, expect, test } from "vitest";
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { createAiSdkGuard } from "../../src/adapters/ai.js";
import { declinedMessage } from "../../src/adapters/core.js";
import { calls, fixture, replays, routes, type Fixture } from "./fixtures.js";

type Call = { name: string; arguments: unknown };
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolStep = (...cs: Call[]) => ({
  content: cs.map((c, i) => ({ type: "tool-call" as const, toolCallId: `call-${c.name}-${i}-${Math.random().toString(36).slice(2, 8)}`, toolName: c.name, input: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) })),
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage,
  warnings: [],
});
/** Tool calls with the ids given: some providers and local models reuse ids such as `call_0`. */
const toolStepWithIds = (...cs: [string, Call][]) => ({ ...toolStep(...cs.map(([, c]) => c)), content: cs.map(([id, c]) => ({ type: "tool-call" as const, toolCallId: id, toolName: c.name, input: JSON.stringify(c.arguments) })) });
const textStep = (text: string) => ({ content: [{ type: "text" as const, text }], finishReason: { unified: "stop" as const, raw: "stop" }, usage, warnings: [] });

function aiTools(f: Fixture): ToolSet {
  const out: ToolSet = {};
  for (const [name, run] of Object.entries(f.impl)) {
    out[name] = tool({ description: name, inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }), execute: (args: Record<string, unknown>) => run(args) });
  }
  return out;
}

/** Runs the agent loop until it ends or stops on approval requests; answers them through the adapter. */
async function converse(f: Fixture, script: ReturnType<typeof toolStep | typeof textStep>[], answer: (q: string) => boolean, tools?: ToolSet) {
  const model = new MockLanguageModelV3({ doGenerate: script });
  const polar = createAiSdkGuard(f.guard);
  const guarded = polar.tools(tools ?? aiTools(f));
  const messages: ModelMessage[] = [{ role: "user", content: "please sort out my booking" }];
  const questions: string[] = [];
  for (let round = 0; round < 4; round++) {
    const result = await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(5) });
    messages.push(...result.response.messages);
    const reply = await polar.respond(result.content, (q) => {
      questions.push(q.question);
      return answer(q.question);
    });
    if (reply === null) break;
    messages.push(reply);
  }
  const prompts = model.doGenerateCalls.map((c) => JSON.stringify(c.prompt));
  return { messages, questions, prompts, polar };
}

describe("polar-guard/ai (AI SDK 6 generateText)", () => {
  test("approve: an admissible call runs once, with one Approved record that replays", async () => {
    const f = fixture();
    await converse(f, [toolStep(calls.editFlights), textStep("done")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
    expect(replays(f)).toBe(true);
  });

  test("veto: answered with a tool-approval-response carrying the refusal; the model sees execution-denied with it", async () => {
    const f = fixture();
    const { prompts, questions } = await converse(f, [toolStep(calls.cancelMissing), textStep("sorry")], () => true);
    expect(f.ran).toEqual({});
    expect(questions).toEqual([]); // a veto is never put to the user
    expect(routes(f.log)).toEqual(["cancel_reservation:Vetoed"]);
    const last = prompts.at(-1)!;
    expect(last).toContain("execution-denied");
    expect(last).toContain("missing_entity");
    expect(replays(f)).toBe(true);
  });

  test("consent asked then given: the SDK's approval of the guard's question runs the call (ConsentApproved)", async () => {
    const f = fixture();
    const { questions } = await converse(f, [toolStep(calls.certificate), textStep("sent")], () => true);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("external sink `email`");
    expect(f.ran).toEqual({ send_certificate: 1 });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    expect(replays(f)).toBe(true);
  });

  test("consent refused: the call does not run and the model is told it was denied", async () => {
    const f = fixture();
    const { prompts } = await converse(f, [toolStep(calls.certificate), textStep("ok, not sent")], () => false);
    expect(f.ran).toEqual({});
    // The user's no is recorded (the consent step read it: consent false) and the log still replays.
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log[1].consent).toMatchObject({ consent: false });
    expect(prompts.at(-1)).toContain("execution-denied");
    expect(prompts.at(-1)).toContain("The user declined");
    expect(replays(f)).toBe(true);
  });

  test("a \"yes\" in the conversation before the question is not consent", async () => {
    const f = fixture();
    const model = new MockLanguageModelV3({ doGenerate: [toolStep(calls.certificate), textStep("?")] });
    const polar = createAiSdkGuard(f.guard);
    const result = await generateText({ model, tools: polar.tools(aiTools(f)), messages: [{ role: "user", content: "yes please, go ahead" }], stopWhen: stepCountIs(3) });
    expect(f.ran).toEqual({});
    expect(polar.approvals(result.content).questions).toHaveLength(1);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated"]);
  });

  test("a reused tool-call id: an approval given to an earlier call with that id is not consent to a later one", async () => {
    const f = fixture();
    const again = { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } };
    const asked: string[] = [];
    const { questions } = await converse(
      f,
      [toolStepWithIds(["call_0", calls.certificate]), toolStepWithIds(["call_0", again]), toolStepWithIds(["call_0", calls.certificate]), textStep("done")],
      (q) => (asked.push(q), asked.length === 1),
    );
    // The first certificate was asked about and approved; each later call with the same id is asked
    // about again (and, declined, does not run): the first approval answered the first question only.
    expect(questions).toHaveLength(3);
    expect(f.ran).toEqual({ send_certificate: 1 });
    // Each no is recorded after its question.
    expect(routes(f.log)).toEqual([
      "send_certificate:ConsentEscalated",
      "send_certificate:ConsentApproved",
      "send_certificate:ConsentEscalated",
      "send_certificate:ConsentEscalated",
      "send_certificate:ConsentEscalated",
      "send_certificate:ConsentEscalated",
    ]);
    expect(f.log.map((d) => d.consent?.consent ?? null)).toEqual([false, true, false, false, false, false]);
    expect(replays(f)).toBe(true);
  });

  test("two calls of one step under the same id: each runs on its own decision, never the other's (issue 21 item 1)", async () => {
    const f = fixture();
    const read = { name: "get_reservation_details", arguments: { reservation_id: "R2" } };
    const seen: { name: string; input: unknown }[] = [];
    const tools: ToolSet = {};
    for (const [name, run] of Object.entries(f.impl)) {
      tools[name] = tool({ description: name, inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }), execute: (args: Record<string, unknown>) => (seen.push({ name, input: args }), run(args)) });
    }
    await converse(f, [toolStepWithIds(["call_0", calls.cancelR1], ["call_0", read]), textStep("done")], () => false, tools);
    expect(seen).toContainEqual({ name: "cancel_reservation", input: calls.cancelR1.arguments });
    expect(seen).not.toContainEqual({ name: "cancel_reservation", input: read.arguments });
    // Every run has the record of the decision made for exactly it.
    for (const s of seen) expect(f.log.some((d) => (d.call as { name: string }).name === s.name && JSON.stringify((d.call as { arguments: unknown }).arguments) === JSON.stringify(s.input) && d.approved)).toBe(true);
    expect(replays(f)).toBe(true);
  });

  test("a user's no binds the call for the session: the model's retry in its next message is refused, not run (issue 21 item 13)", async () => {
    const f = fixture();
    const { questions, prompts } = await converse(f, [toolStep(calls.certificate), toolStep(calls.certificate), textStep("not sent")], () => false);
    expect(f.ran).toEqual({});
    // Asked once; the retry is refused with the user's no (recorded), never asked again nor run.
    expect(questions).toHaveLength(1);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log.map((d) => d.consent?.consent)).toEqual([false, false, false]);
    // The same words in every adapter (issue 21 item 20): the call, and that the user declined it.
    expect(prompts.at(-1)).toContain(JSON.stringify(declinedMessage(calls.certificate)).slice(1, -1));
    expect(replays(f)).toBe(true);
  });

  test("a no given as the application's own denial in the messages is recorded and binds too", async () => {
    const f = fixture();
    const model = new MockLanguageModelV3({ doGenerate: [toolStep(calls.certificate), toolStep(calls.certificate), textStep("ok")] });
    const polar = createAiSdkGuard(f.guard);
    const tools = polar.tools(aiTools(f));
    const messages: ModelMessage[] = [{ role: "user", content: "send it" }];
    const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    messages.push(...first.response.messages);
    const req = polar.approvals(first.content).questions[0];
    messages.push({ role: "tool", content: [{ type: "tool-approval-response", approvalId: req.approvalId, approved: false }] });
    await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    expect(f.ran).toEqual({});
    expect(f.log.map((d) => d.consent?.consent)).toEqual([false, false, false]);
    expect(polar.approvals([]).questions).toEqual([]);
  });

  test("a parallel pair: the second call is judged with the first (overlap_conflict), only the first runs", async () => {
    const f = fixture();
    const { questions } = await converse(f, [toolStep(calls.editFlights, calls.cancelR1), textStep("done")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:ConsentEscalated", "cancel_reservation:ConsentEscalated"]);
    expect(f.log[1].reason).toBe("overlap_conflict");
    expect(questions).toHaveLength(1);
  });

  test("a tool that throws: the error reaches the model; its outcome is unknown (kept, what it acts on unknown)", async () => {
    const f = fixture("escalate", "session");
    const { prompts } = await converse(f, [toolStep(calls.broken), textStep("it failed")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(prompts.at(-1)).toContain("the booking system is down");
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });

  test("an executed call is observed with its real result (session scope: in the forward sequence)", async () => {
    const f = fixture("escalate", "session");
    await converse(f, [toolStep(calls.editFlights), textStep("done")], () => false);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("a tool without execute (the application runs it): its result in the next step's messages is observed, not left pending", async () => {
    const f = fixture("escalate", "session");
    const tools = aiTools(f);
    delete (tools.update_reservation_flights as { execute?: unknown }).execute;
    const model = new MockLanguageModelV3({ doGenerate: [toolStepWithIds(["edit-1", calls.editFlights]), toolStepWithIds(["cert-1", calls.certificate]), textStep("?")] });
    const polar = createAiSdkGuard(f.guard);
    const guarded = polar.tools(tools);
    const messages: ModelMessage[] = [{ role: "user", content: "change my flights" }];
    const first = await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(3) });
    expect(first.toolCalls.map((c) => c.toolName)).toEqual(["update_reservation_flights"]);
    expect(f.guard.pending()).toHaveLength(1);
    // The application runs the tool itself and gives the SDK its result.
    const result = await f.impl.update_reservation_flights(calls.editFlights.arguments);
    messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-result", toolCallId: "edit-1", toolName: "update_reservation_flights", output: { type: "json", value: result as never } }] });
    await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(3) });
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
    // The later call was judged with the edit as observed, not pending.
    const cert = f.log.find((d) => (d.call as { name: string }).name === "send_certificate")!;
    expect(cert.forward.map((c) => (c as { pending?: boolean }).pending === true)).toEqual([false]);
  });

  test("a tool the SDK executed is observed once: its tool-result in later steps' messages is not observed again", async () => {
    const f = fixture("escalate", "session");
    await converse(f, [toolStepWithIds(["e1", calls.editFlights]), toolStepWithIds(["c1", calls.certificate]), textStep("ok")], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
  });

  test("a streaming tool (async-generator execute) runs under generateText and its last value is observed (issue 21 item 9)", async () => {
    const f = fixture("escalate", "session");
    const tools = aiTools(f);
    const progress: unknown[] = [];
    tools.update_reservation_flights = tool({
      description: "streams its progress",
      inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
      execute: async function* (args: Record<string, unknown>) {
        yield { status: "updating" };
        const done = await f.impl.update_reservation_flights(args);
        yield done;
      },
    });
    const model = new MockLanguageModelV3({ doGenerate: [toolStep(calls.editFlights), textStep("done")] });
    const polar = createAiSdkGuard(f.guard);
    const result = await generateText({ model, tools: polar.tools(tools), messages: [{ role: "user", content: "change my flights" }], stopWhen: stepCountIs(3), onStepFinish: (s) => void progress.push(...s.toolResults.map((r) => r.output)) });
    expect(result.text).toBe("done");
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(progress).toEqual([expect.objectContaining({ flights: calls.editFlights.arguments.flights })]);
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
    expect(replays(f)).toBe(true);
  });

  test("a tool named `constructor` is a tool like any other (vetoed as unknown_tool, never run)", async () => {
    const f = fixture();
    let ran = 0;
    const tools = Object.create(null) as Record<string, ToolSet[string]>;
    tools["constructor"] = tool({ description: "x", inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }), execute: async () => ++ran });
    await converse(f, [toolStep({ name: "constructor", arguments: {} }), textStep("no")], () => true, tools);
    expect(ran).toBe(0);
    expect(routes(f.log)).toEqual(["constructor:Vetoed"]);
  });

  test("shadow mode (advisory guard): every call runs, the record says what enforcement would have done", async () => {
    const f = fixture("advisory");
    await converse(f, [toolStep(calls.editFlights, calls.certificate), textStep("done")], () => false);
    expect(f.ran).toEqual({ send_certificate: 1, update_reservation_flights: 1 });
    expect(f.log.map((d) => [d.route, d.admissible, d.reason])).toEqual([
      ["Approved", true, "ok"],
      ["AdvisoryPassthrough", false, "external_side_effect"],
    ]);
  });

  test("v7 toolApproval shape: approved / denied with the refusal / user-approval with the question", async () => {
    const f = fixture();
    const polar = createAiSdkGuard(f.guard);
    const ask = (c: Call, id: string) => polar.toolApproval({ toolCall: { toolCallId: id, toolName: c.name, input: c.arguments }, messages: [] });
    expect(await ask(calls.editFlights, "a")).toEqual({ type: "approved" });
    expect(await ask(calls.cancelMissing, "b")).toMatchObject({ type: "denied", reason: expect.stringContaining("missing_entity") });
    expect(await ask(calls.certificate, "c")).toMatchObject({ type: "user-approval", reason: expect.stringContaining("Do you confirm?") });
  });
});

// polar-guard/openai-agents route by route, through the hooks the Agents SDK runner calls
// (`needsApproval`, the input guardrails, `execute`) called the way it calls them, and one real run for
// each way a call the guard approved can end without running. The conversations are in
// openai-agents.test.ts.
import { beforeAll, describe, expect, test } from "vitest";
import { Agent, Runner, Usage, setTracingDisabled, tool, type Model, type ModelResponse } from "@openai/agents";
import { createAgentsGuard } from "../../src/adapters/openai-agents.js";
import type { CheckContext, Decision, Guard } from "../../src/index.js";
import { calls, fixture, routes, type Fixture } from "./fixtures.js";

beforeAll(() => setTracingDisabled(true));

type Ctx = { context?: unknown; usage?: { requests?: number }; isToolApproved?(a: { toolName: string; callId: string }): boolean | undefined };
type Guardrail = { name: string; run(a: { context: Ctx; toolCall: { callId: string; name: string; arguments: string } }): Promise<{ behavior: { type: string; message?: string }; outputInfo: unknown }> };
type Guarded = {
  name: string;
  needsApproval(ctx: Ctx, input: unknown, callId?: string): Promise<boolean>;
  inputGuardrails: Guardrail[];
  execute(input: unknown, context?: Ctx, details?: { toolCall?: { callId?: string; arguments?: string } }): Promise<unknown>;
};

function spied(g: Guard): { guard: Guard; contexts: CheckContext[] } {
  const contexts: CheckContext[] = [];
  const guard = { ...g, check: (call: unknown, ctx?: CheckContext) => (contexts.push(structuredClone(ctx) as CheckContext), g.check(call, ctx)) } as Guard;
  return { guard, contexts };
}

function setup(f: Fixture, guard: Guard = f.guard, options: Parameters<typeof createAgentsGuard>[1] = {}) {
  const decisions: Decision[] = [];
  const polar = createAgentsGuard(guard, { onDecision: (d) => decisions.push(d), ...options });
  const given: Record<string, { input: unknown; context: unknown; details: unknown }[]> = {};
  const tools: Record<string, Guarded> = {};
  for (const [name, run] of Object.entries(f.impl)) {
    tools[name] = polar.tool({
      name,
      description: name,
      parameters: { type: "object" as const, properties: {}, required: [], additionalProperties: true as const },
      strict: false as const,
      execute: (input: unknown, context?: unknown, details?: unknown) => ((given[name] ??= []).push({ input, context, details }), run(input as Record<string, unknown>)),
    }) as unknown as Guarded;
  }
  return { polar, tools, decisions, given };
}

const guardrailOf = (t: Guarded): Guardrail => t.inputGuardrails[t.inputGuardrails.length - 1];
const wire = (callId: string, c: { name: string; arguments: unknown }) => ({ callId, name: c.name, arguments: JSON.stringify(c.arguments) });

describe("needsApproval: the guard decides once", () => {
  test("only the guard's question is an approval request; the decision is kept by call id", async () => {
    const f = fixture();
    const { tools, polar } = setup(f);
    const ctx: Ctx = { context: {} };
    expect(await tools.update_reservation_flights.needsApproval(ctx, calls.editFlights.arguments, "a")).toBe(false);
    expect(await tools.cancel_reservation.needsApproval(ctx, calls.cancelMissing.arguments, "b")).toBe(false);
    expect(await tools.send_certificate.needsApproval(ctx, calls.certificate.arguments, "c")).toBe(true);
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:Vetoed", "send_certificate:ConsentEscalated"]);
    expect(polar.decision("a")?.route).toBe("Approved");
    expect(polar.decision("b")?.route).toBe("Vetoed");
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    // Without a call id nothing is kept.
    await tools.update_reservation_flights.needsApproval(ctx, calls.editFlights.arguments);
    expect(polar.decision(undefined as never)).toBeUndefined();
    expect(polar.decision("undefined")).toBeUndefined();
  });

  test("user messages: the option's reader, else `context.userMessages` when it is a list (strings only), else none", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const plain = setup(f, guard).tools.send_certificate;
    await plain.needsApproval({ context: { userMessages: ["hi", 3, "there"] } }, calls.certificate.arguments, "a");
    await plain.needsApproval({ context: { userMessages: "hi" } }, calls.certificate.arguments, "b");
    await plain.needsApproval({}, calls.certificate.arguments, "c");
    const read = setup(f, guard, { userMessages: (c) => (c as { log: string[] }).log }).tools.send_certificate;
    await read.needsApproval({ context: { log: ["from the reader"], userMessages: ["not these"] } }, calls.certificate.arguments, "d");
    expect(contexts.map((c) => c.userMessages)).toEqual([["hi", "there"], [], [], ["from the reader"]]);
  });

  test("a turn is the calls the runner starts together (one synchronous stretch), whatever the usage counter says (issue 21 item 20)", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { tools } = setup(f, guard);
    // The runner starts every call of one response at once: one turn, with or without a usage count.
    for (const ctx of [{ context: {}, usage: { requests: 1 } }, { context: {} }, { context: {}, usage: { requests: 0 } }] as Ctx[]) {
      const n = contexts.length;
      await Promise.all([tools.update_reservation_flights.needsApproval(ctx, calls.editFlights.arguments, `a${n}`), tools.cancel_reservation.needsApproval(ctx, calls.cancelR1.arguments, `b${n}`)]);
      expect(contexts[n + 1].turnCalls).toEqual([calls.editFlights]);
      // The next model response comes after those calls settled: a new turn, even at the same count.
      await tools.cancel_reservation.needsApproval(ctx, calls.cancelR1.arguments, `c${n}`);
      expect(contexts[n + 2].turnCalls).toEqual([]);
    }
    // Another run context in the same stretch: another turn; no context at all, no turn.
    const n = contexts.length;
    await Promise.all([
      tools.update_reservation_flights.needsApproval({ context: {} }, calls.editFlights.arguments, "d"),
      tools.cancel_reservation.needsApproval({ context: {} }, calls.cancelR1.arguments, "e"),
      tools.update_reservation_flights.needsApproval(undefined as never, calls.editFlights.arguments, "g"),
      tools.cancel_reservation.needsApproval(null as never, calls.cancelR1.arguments, "h"),
    ]);
    expect(contexts[n + 1].turnCalls).toEqual([]);
    expect(contexts[n + 3]).toEqual({ userMessages: [], turnCalls: [] });
  });

  test("a call keeps its turn in the guardrail after needsApproval", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { tools } = setup(f, guard);
    const ctx: Ctx = { context: {}, isToolApproved: () => true };
    await Promise.all([tools.update_reservation_flights.needsApproval(ctx, calls.editFlights.arguments, "a"), tools.send_certificate.needsApproval(ctx, calls.certificate.arguments, "b")]);
    await guardrailOf(tools.send_certificate).run({ context: ctx, toolCall: { callId: "b", name: "send_certificate", arguments: JSON.stringify(calls.certificate.arguments) } });
    expect(contexts.at(-1)!.turnCalls).toEqual([calls.editFlights]);
  });
});

describe("the guard's input guardrail", () => {
  test("allows an approved call and rejects a veto with the refusal, from the decision needsApproval made", async () => {
    const f = fixture();
    const { tools } = setup(f);
    await tools.update_reservation_flights.needsApproval({}, calls.editFlights.arguments, "a");
    await tools.cancel_reservation.needsApproval({}, calls.cancelMissing.arguments, "b");
    const ok = await guardrailOf(tools.update_reservation_flights).run({ context: {}, toolCall: wire("a", calls.editFlights) });
    expect(ok).toEqual({ behavior: { type: "allow" }, outputInfo: { route: "Approved", seq: 1 } });
    const no = await guardrailOf(tools.cancel_reservation).run({ context: {}, toolCall: wire("b", calls.cancelMissing) });
    expect(no).toEqual({ behavior: { type: "rejectContent", message: f.log[1].message }, outputInfo: { route: "Vetoed", reason: "missing_entity", seq: 2 } });
    expect(no.behavior.message).toContain("missing_entity");
    expect(f.log).toHaveLength(2); // no second decision
    expect(guardrailOf(tools.cancel_reservation).name).toBe("polar-guard");
  });

  test("without a needsApproval decision (a blanket approval of the tool), it decides from the call as the model sent it", async () => {
    const f = fixture();
    const { tools, polar } = setup(f);
    const out = await guardrailOf(tools.send_certificate).run({ context: { isToolApproved: () => true }, toolCall: wire("c", calls.certificate) });
    // A blanket approval is not consent to this call: the question is the refusal.
    expect(out.behavior.type).toBe("rejectContent");
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated"]);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    const raw = await guardrailOf(tools.update_reservation_flights).run({ context: {}, toolCall: { callId: "r", name: "update_reservation_flights", arguments: "{not json" } });
    expect(raw.outputInfo).toMatchObject({ route: "Vetoed", reason: "malformed_call" });
  });

  test("the user's approval of the guard's question gives the consent decision; any other approval state keeps the question", async () => {
    const f = fixture();
    const { tools, polar } = setup(f);
    await tools.send_certificate.needsApproval({}, calls.certificate.arguments, "c");
    const asked: { toolName: string; callId: string }[] = [];
    const g = guardrailOf(tools.send_certificate);
    for (const answer of [undefined, false]) {
      const out = await g.run({ context: { isToolApproved: (a) => (asked.push(a), answer) }, toolCall: wire("c", calls.certificate) });
      expect(out.behavior.type).toBe("rejectContent");
    }
    expect(await g.run({ context: {}, toolCall: wire("c", calls.certificate) })).toMatchObject({ behavior: { type: "rejectContent" } });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated"]);
    const yes = await g.run({ context: { isToolApproved: (a) => (asked.push(a), true) }, toolCall: wire("c", calls.certificate) });
    expect(yes).toEqual({ behavior: { type: "allow" }, outputInfo: { route: "ConsentApproved", seq: 2 } });
    expect(asked.at(-1)).toEqual({ toolName: "send_certificate", callId: "c" });
    expect(polar.decision("c")?.route).toBe("ConsentApproved");
    // A tool approval never turns a veto into a run.
    await tools.cancel_reservation.needsApproval({}, calls.cancelMissing.arguments, "b");
    const veto = await guardrailOf(tools.cancel_reservation).run({ context: { isToolApproved: () => true }, toolCall: wire("b", calls.cancelMissing) });
    expect(veto.behavior.type).toBe("rejectContent");
  });

  test("comes after the tool's own input guardrails", () => {
    const f = fixture();
    const polar = createAgentsGuard(f.guard);
    const mine = { name: "mine", run: async () => ({ behavior: { type: "allow" }, outputInfo: null }) };
    const t = polar.tool({ name: "send_certificate", description: "x", parameters: { type: "object" as const, properties: {}, required: [], additionalProperties: true as const }, strict: false as const, execute: async () => "x", inputGuardrails: [mine] as never }) as unknown as Guarded;
    expect(t.inputGuardrails.map((g) => g.name)).toEqual(["mine", "polar-guard"]);
  });
});

describe("execute", () => {
  test("runs an approved call on the judged arguments with the SDK's context and details, observes the result for its execution", async () => {
    const f = fixture("escalate", "session");
    const { tools, polar, given } = setup(f);
    await tools.update_reservation_flights.needsApproval({}, calls.editFlights.arguments, "a");
    const ctx: Ctx = { context: {} };
    const details = { toolCall: { callId: "a" } };
    const input = structuredClone(calls.editFlights.arguments) as Record<string, unknown>;
    const out = await tools.update_reservation_flights.execute(input, ctx, details);
    expect(given.update_reservation_flights[0].input).not.toBe(input);
    expect(given.update_reservation_flights).toEqual([{ input: calls.editFlights.arguments, context: ctx, details }]);
    expect(out).toMatchObject({ flights: calls.editFlights.arguments.flights });
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(polar.decision("a")).toBeUndefined();
  });

  test("a veto reaching execute throws the refusal and never runs the tool", async () => {
    const f = fixture();
    const { tools } = setup(f);
    await tools.cancel_reservation.needsApproval({}, calls.cancelMissing.arguments, "b");
    await expect(tools.cancel_reservation.execute(calls.cancelMissing.arguments, {}, { toolCall: { callId: "b" } })).rejects.toThrow(f.log[0].message!);
    expect(f.ran).toEqual({});
  });

  test("without a decision (no call id, or one never decided) it decides from the call's wire arguments, else the input", async () => {
    const f = fixture("escalate", "session");
    const { tools } = setup(f);
    await tools.update_reservation_flights.execute(calls.editFlights.arguments, {}, { toolCall: { callId: "n", arguments: JSON.stringify(calls.editFlights.arguments) } });
    expect(f.log[0].call).toMatchObject({ raw: JSON.stringify(calls.editFlights.arguments) });
    await tools.update_reservation_flights.execute(calls.editFlights.arguments);
    expect(f.log[1].call).toEqual({ name: "update_reservation_flights", arguments: calls.editFlights.arguments });
    await tools.update_reservation_flights.execute(calls.editFlights.arguments, {}, {});
    expect(f.log[2].call).toEqual({ name: "update_reservation_flights", arguments: calls.editFlights.arguments });
    expect(f.ran).toEqual({ update_reservation_flights: 3 });
    await expect(tools.send_certificate.execute(calls.certificate.arguments)).rejects.toThrow(/Do you confirm/u);
  });

  test("a tool that throws: rethrown; its outcome is unknown (kept, what it acts on unknown)", async () => {
    const f = fixture("escalate", "session");
    const { tools } = setup(f);
    await tools.update_reservation_flights.needsApproval({}, calls.broken.arguments, "a");
    await expect(tools.update_reservation_flights.execute(calls.broken.arguments, {}, { toolCall: { callId: "a" } })).rejects.toThrow("the booking system is down");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });

  test("a guarded tool needs a name", () => {
    const polar = createAgentsGuard(fixture().guard);
    for (const name of [undefined, "", 7]) {
      expect(() => polar.tool({ name, description: "x", parameters: undefined, execute: async () => 1 } as never)).toThrow(new TypeError("polar-guard: a guarded tool needs a `name`"));
    }
  });
});

describe("question()", () => {
  test("is the guard's question for an interruption it asked, null for anything else", async () => {
    const f = fixture();
    const { tools, polar } = setup(f);
    await tools.send_certificate.needsApproval({}, calls.certificate.arguments, "c");
    await tools.update_reservation_flights.needsApproval({}, calls.editFlights.arguments, "a");
    const item = (rawItem: unknown) => ({ rawItem }) as never;
    expect(polar.question(item({ callId: "c" }))).toBe(f.log[0].question);
    expect(polar.question(item({ callId: "c" }))).toContain("Do you confirm?");
    expect(polar.question(item({ callId: "a" }))).toBeNull();
    expect(polar.question(item({ callId: "zz" }))).toBeNull();
    expect(polar.question(item({ callId: 5 }))).toBeNull();
  });
});

describe("bounds", () => {
  test("decisions are kept for the last 1024 call ids; deciding one again does not push another out", async () => {
    const f = fixture("advisory");
    const { tools, polar } = setup(f);
    const read = (id: string) => tools.get_reservation_details.needsApproval({}, { reservation_id: "R1" }, id);
    for (let i = 0; i < 1024; i++) await read(`id${i}`);
    await read("id0");
    expect(polar.decision("id1")).toBeDefined();
    await read("id1024");
    expect(polar.decision("id1")).toBeUndefined();
    expect(polar.decision("id0")).toBeDefined();
    expect(polar.decision("id2")).toBeDefined();
  });
});

/** A model that plays a script. */
class ScriptedModel implements Model {
  constructor(private readonly script: ModelResponse[]) {}
  async getResponse(): Promise<ModelResponse> {
    return this.script.shift() ?? { usage: new Usage(), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "end" }] }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  }
}

describe("an approved call that never runs is released (real runner)", () => {
  const callOf = (c: { name: string; arguments: unknown }, callId: string): ModelResponse => ({
    usage: new Usage(),
    output: [{ type: "function_call", callId, name: c.name, arguments: JSON.stringify(c.arguments), status: "completed" }],
  });

  async function runWith(guardrail: { name: string; run: () => Promise<unknown> }) {
    const f = fixture("escalate", "session");
    const polar = createAgentsGuard(f.guard);
    const t = tool(
      polar.tool({
        name: "update_reservation_flights",
        description: "x",
        parameters: { type: "object" as const, properties: {}, required: [], additionalProperties: true as const },
        strict: false as const,
        execute: (i: unknown) => f.impl.update_reservation_flights(i as Record<string, unknown>),
        inputGuardrails: [guardrail] as never,
      }),
    );
    const agent = new Agent({ name: "a", model: new ScriptedModel([callOf(calls.editFlights, "call_1")]), tools: [t] });
    let error: unknown = null;
    try {
      await new Runner({ tracingDisabled: true }).run(agent, "change my flight");
    } catch (e) {
      error = e;
    }
    return { f, error };
  }

  test("the application's own guardrail rejects it: not pending, so a later cancel is judged alone", async () => {
    const { f } = await runWith({ name: "mine", run: async () => ({ behavior: { type: "rejectContent", message: "not today" }, outputInfo: null }) });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
    expect(f.ran).toEqual({});
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("ok");
  });

  test("the application's own guardrail trips (throwException) or throws: released too", async () => {
    for (const run of [async () => ({ behavior: { type: "throwException" }, outputInfo: null }), async () => Promise.reject(new Error("guardrail bug"))]) {
      const { f, error } = await runWith({ name: "mine", run });
      expect(error).not.toBeNull();
      expect(f.ran).toEqual({});
      expect(f.guard.pending()).toEqual([]);
    }
  });

  test("the application's own guardrail allows it (or says nothing of its behaviour): it runs once, decided once, and is observed", async () => {
    for (const out of [{ behavior: { type: "allow" }, outputInfo: null }, { outputInfo: "no behavior: allow" }]) {
      const { f, error } = await runWith({ name: "mine", run: async () => out });
      expect(error).toBeNull();
      expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
      expect(f.ran).toEqual({ update_reservation_flights: 1 });
      expect(f.guard.pending()).toEqual([]);
      expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    }
  });

  test("the application's own guardrail rejecting a call the guard has not decided yet: its answer stands", async () => {
    const f = fixture();
    const polar = createAgentsGuard(f.guard);
    const reject = { behavior: { type: "rejectContent", message: "not today" }, outputInfo: 1 };
    const t = polar.tool({ name: "send_certificate", description: "x", parameters: { type: "object" as const, properties: {}, required: [], additionalProperties: true as const }, strict: false as const, execute: async () => "x", inputGuardrails: [{ name: "mine", run: async () => reject }] as never }) as unknown as Guarded;
    expect(await t.inputGuardrails[0].run({ context: {}, toolCall: wire("never-decided", calls.certificate) })).toBe(reject);
    expect(t.inputGuardrails[0].name).toBe("mine");
    expect(f.log).toEqual([]);
  });
});

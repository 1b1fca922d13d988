// polar-guard/langchain route by route, through the middleware's `wrapToolCall` called the way
// LangChain's tool node calls it (a request with the tool call, the graph state and the runtime, and a
// handler that runs the tool and returns its ToolMessage). The agent-graph tests are in
// langchain.test.ts.
import { describe, expect, test } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { isApproval, polarMiddleware, type ConsentInterrupt } from "../../src/adapters/langchain.js";
import { declinedMessage } from "../../src/adapters/core.js";
import { NothingChangedError, type CheckContext, type Guard } from "../../src/index.js";
import { calls, fixture, routes, type Fixture } from "./fixtures.js";

type Call = { name: string; arguments: Record<string, unknown> };
type Req = { toolCall: { id?: string; name: string; args: unknown }; state?: { messages?: unknown }; runtime?: { interrupt?: (v: unknown) => unknown }; tool?: { invoke: (a: unknown) => Promise<unknown> } };
type Handler = (r: Req) => Promise<unknown>;
type Wrap = (r: Req, h: Handler) => Promise<unknown>;

function spied(g: Guard): { guard: Guard; contexts: CheckContext[] } {
  const contexts: CheckContext[] = [];
  const guard = { ...g, check: (call: unknown, ctx?: CheckContext) => (contexts.push(structuredClone(ctx) as CheckContext), g.check(call, ctx)) } as Guard;
  return { guard, contexts };
}

/** The tool node's handler: runs the request's tool (the fixture's implementation unless the adapter
 * put its stand-in there) and wraps the result in a ToolMessage. */
function handlerFor(f: Fixture, seen: Req[] = []): Handler {
  return async (r) => {
    seen.push(r);
    const impl = r.tool?.invoke ?? ((a: unknown) => f.impl[r.toolCall.name](a as Record<string, unknown>).then((x) => JSON.stringify(x)));
    const content = await impl(r.toolCall.args);
    return new ToolMessage({ content: String(content), tool_call_id: r.toolCall.id ?? "", name: r.toolCall.name });
  };
}

function setup(f: Fixture, guard: Guard = f.guard, name?: string) {
  const mw = polarMiddleware(guard, name === undefined ? {} : { name }) as unknown as { name: string; wrapToolCall: Wrap; [k: symbol]: unknown };
  return { mw, wrap: mw.wrapToolCall };
}

const req = (c: Call, id: string | undefined, messages: unknown[] = [], interrupt?: (v: unknown) => unknown): Req => ({
  toolCall: { id, name: c.name, args: c.arguments },
  state: { messages },
  runtime: interrupt === undefined ? {} : { interrupt },
});
const ai = (id: string | undefined, ...toolCallIds: string[]) => new AIMessage({ content: "", id, tool_calls: toolCallIds.map((t) => ({ id: t, name: "x", args: {} })) });

describe("the middleware", () => {
  test("is an agent middleware named polar-guard unless named otherwise", () => {
    const f = fixture();
    const { mw } = setup(f);
    expect(mw.name).toBe("polar-guard");
    expect(mw[Symbol.for("AgentMiddleware")]).toBe(true);
    expect(setup(f, f.guard, "mine").mw.name).toBe("mine");
  });
});

describe("approve and veto", () => {
  test("an approved call runs on a copy of the judged arguments; its ToolMessage content is observed for its execution", async () => {
    const f = fixture("escalate", "session");
    const { wrap } = setup(f);
    const seen: Req[] = [];
    const out = (await wrap(req(calls.editFlights, "t1"), handlerFor(f, seen))) as ToolMessage;
    expect(out.status).not.toBe("error");
    expect(seen[0].toolCall.args).toEqual(calls.editFlights.arguments);
    expect(seen[0].toolCall.args).not.toBe(calls.editFlights.arguments);
    expect(seen[0].toolCall.id).toBe("t1");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("a veto is the tool node's error ToolMessage with the refusal, from a stand-in tool; the real tool never runs", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const seen: Req[] = [];
    const out = (await wrap(req(calls.cancelMissing, "t1"), handlerFor(f, seen))) as ToolMessage;
    expect(out.status).toBe("error");
    expect(out.content).toBe(f.log[0].message);
    expect(String(out.content)).toContain("missing_entity");
    expect(seen[0].tool?.invoke).toBeTypeOf("function");
    expect((seen[0].tool as unknown as { name: string }).name).toBe("cancel_reservation");
    expect(f.ran).toEqual({});
  });

  test("a handler that returns something other than a ToolMessage: returned as it is, observed as the result", async () => {
    const f = fixture("escalate", "session");
    const { wrap } = setup(f);
    // Whatever its fields: only a ToolMessage's status says the tool failed.
    const record = { reservation_id: "R1", flights: calls.editFlights.arguments.flights, status: "error" };
    expect(await wrap(req(calls.editFlights, "t1"), async () => record)).toBe(record);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
    // A veto's refusal through such a handler is its answer, with no status set on it.
    const plain = { answer: "stand-in result" };
    expect(await wrap(req(calls.cancelMissing, "t2"), async () => plain)).toEqual({ answer: "stand-in result" });
  });

  test("a tool that throws: rethrown; its outcome is unknown (kept, what it acts on unknown)", async () => {
    const f = fixture("escalate", "session");
    const { wrap } = setup(f);
    await expect(wrap(req(calls.broken, "t1"), handlerFor(f))).rejects.toThrow("the booking system is down");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });

  test("a tool that throws NothingChangedError: rethrown, the execution released, nothing observed", async () => {
    const f = fixture("escalate", "session");
    const { wrap } = setup(f);
    await expect(wrap(req(calls.editFlights, "t1"), async () => { throw new NothingChangedError("invalid"); })).rejects.toThrow("invalid");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence()).toEqual([]);
  });

  test("an error ToolMessage from the tool node (its own error handling): the outcome is unknown", async () => {
    const f = fixture("escalate", "session");
    const { wrap } = setup(f);
    const out = await wrap(req(calls.editFlights, "t1"), async (r) => new ToolMessage({ content: "failed", tool_call_id: r.toolCall.id!, status: "error" }));
    expect((out as ToolMessage).status).toBe("error");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });
});

describe("what the guard is told", () => {
  test("the human messages' text (strings and text parts), in order; the AI message the call belongs to is its turn", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { wrap } = setup(f, guard);
    const messages = [
      new SystemMessage("be nice"),
      new HumanMessage("change my flight"),
      new HumanMessage({ content: [{ type: "text", text: "to HAT009 " }, { type: "image_url", image_url: "data:," }, { type: "text", text: "please" }] }),
      { type: "human", content: ["plain ", "parts"] },
      { type: "human", content: 42 },
      { type: "human", content: [null, "x", { type: "image_url" }] },
      ai("m1", "t1", "t2"),
    ];
    await wrap(req(calls.editFlights, "t1", messages), handlerFor(f));
    await wrap(req(calls.cancelR1, "t2", messages), handlerFor(f));
    expect(contexts[0].userMessages).toEqual(["change my flight", "to HAT009 please", "plain parts", "", "x"]);
    expect(contexts[1].turnCalls).toEqual([calls.editFlights]);
    expect(f.log[1].reason).toBe("overlap_conflict");
  });

  test("the same AI message rebuilt (a resumed graph) is the same turn; another message, or a call in none, is not", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { wrap } = setup(f, guard);
    await wrap(req(calls.editFlights, "t1", [ai("m1", "t1", "t2", "t3")]), handlerFor(f));
    await wrap(req(calls.cancelR1, "t2", [ai("m1", "t1", "t2", "t3")]), handlerFor(f));
    expect(contexts[1].turnCalls).toHaveLength(1);
    // Same call ids, another message id: another turn.
    await wrap(req(calls.cancelR1, "t3", [ai("m2", "t1", "t2", "t3")]), handlerFor(f));
    expect(contexts[2].turnCalls).toEqual([]);
    // The call is not in the last AI message but in an earlier one: that one is its turn.
    await wrap(req(calls.cancelR1, "t3", [ai("m1", "t1", "t2", "t3"), new HumanMessage("x"), ai("m3", "t9")]), handlerFor(f));
    expect(contexts[3].turnCalls).toHaveLength(1);
  });

  test("a call in no AI message, or with no state at all, is in no turn", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { wrap } = setup(f, guard);
    await wrap(req(calls.editFlights, "t5", [ai("m4", "t9")]), handlerFor(f));
    expect(f.log[0].route).toBe("Approved");
    await wrap(req(calls.cancelR1, "t6", [ai("m4", "t9")]), handlerFor(f));
    expect(contexts[1].turnCalls).toEqual([]);
    await wrap({ toolCall: { id: "t7", name: calls.cancelR1.name, args: calls.cancelR1.arguments } }, handlerFor(f));
    expect(contexts[2]).toEqual({ userMessages: [], turnCalls: [] });
    await wrap({ toolCall: { id: "t8", name: calls.cancelR1.name, args: calls.cancelR1.arguments }, state: { messages: "junk" } }, handlerFor(f));
    expect(contexts[3]).toEqual({ userMessages: [], turnCalls: [] });
  });

  test("an AI message without an id: its tool call ids alone name the turn", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { wrap } = setup(f, guard);
    await wrap(req(calls.editFlights, "t1", [{ type: "ai", tool_calls: [{ id: "t1" }, { id: "t2" }] }]), handlerFor(f));
    await wrap(req(calls.cancelR1, "t2", [{ type: "ai", tool_calls: [{ id: "t1" }, { id: "t2" }] }]), handlerFor(f));
    expect(contexts[1].turnCalls).toHaveLength(1);
    // An "ai" message whose tool_calls is not a list is no turn.
    await wrap(req(calls.cancelR1, "t3", [{ type: "ai", tool_calls: "t3" }]), handlerFor(f));
    expect(contexts[2].turnCalls).toEqual([]);
  });

  test("AI messages without ids are told apart by their tool call ids", async () => {
    for (const [first, second] of [
      [["t1"], ["t2"]],
      [["ab", "c"], ["a", "bc"]],
    ]) {
      const f = fixture();
      const { guard, contexts } = spied(f.guard);
      const { wrap } = setup(f, guard);
      await wrap(req(calls.editFlights, first[0], [{ type: "ai", tool_calls: first.map((id) => ({ id })) }]), handlerFor(f));
      await wrap(req(calls.cancelR1, second[0], [{ type: "ai", tool_calls: second.map((id) => ({ id })) }]), handlerFor(f));
      expect(contexts[1].turnCalls).toEqual([]);
    }
  });

  test("only an AI message is a turn (another message naming the call is not)", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { wrap } = setup(f, guard);
    const junk = { type: "human", content: "x", tool_calls: [{ id: "t1" }, { id: "t2" }] };
    await wrap(req(calls.editFlights, "t1", [junk]), handlerFor(f));
    await wrap(req(calls.cancelR1, "t2", [junk]), handlerFor(f));
    expect(contexts[1].turnCalls).toEqual([]);
  });
});

describe("consent through interrupt()", () => {
  test("the question goes to interrupt(); resuming with a yes gives the consent decision and runs the call", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const asked: ConsentInterrupt[] = [];
    const out = (await wrap(req(calls.certificate, "t1", [], (v) => (asked.push(v as ConsentInterrupt), true)), handlerFor(f))) as ToolMessage;
    expect(asked).toEqual([{ type: "polar-consent", question: f.log[0].question, toolCall: { id: "t1", name: "send_certificate", args: calls.certificate.arguments }, seq: 1 }]);
    expect(out.status).not.toBe("error");
    expect(f.ran).toEqual({ send_certificate: 1 });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });

  test("the graph pauses (interrupt throws) and re-runs the node on resume: the question already asked is reused", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const pause = new Error("GraphInterrupt");
    await expect(wrap(req(calls.certificate, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    expect(f.ran).toEqual({});
    await wrap(req(calls.certificate, "t1", [], () => ({ approved: true })), handlerFor(f));
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    // Answered: a later call with the same id is decided afresh.
    await expect(wrap(req(calls.certificate, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    expect(routes(f.log)).toHaveLength(3);
  });

  test("a question is reused only for the same call: another call under a reused id is checked and asked afresh", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const pause = new Error("GraphInterrupt");
    const other = { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } };
    const seen: Req[] = [];
    const asked: ConsentInterrupt[] = [];
    await expect(wrap(req(calls.certificate, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    // The thread moved on; a later call reuses the id, and the user approves the question put about it.
    await wrap(req(other, "t1", [], (v) => (asked.push(v as ConsentInterrupt), { approved: true })), handlerFor(f, seen));
    expect(asked[0].seq).toBe(2);
    expect(asked[0].toolCall.args).toEqual(other.arguments);
    expect(seen[0].toolCall.args).toEqual(other.arguments);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    expect(f.log[2].call).toMatchObject({ arguments: other.arguments });
  });

  test("two questions of one message under the same id are both kept: each resume answers its own call (issue 21 item 1)", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const pause = new Error("GraphInterrupt");
    const other = { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } };
    const seen: Req[] = [];
    await expect(wrap(req(calls.certificate, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    await expect(wrap(req(other, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    // The graph resumes both calls: each reuses the question asked about it (no new check).
    await wrap(req(calls.certificate, "t1", [], () => ({ approved: true })), handlerFor(f, seen));
    await wrap(req(other, "t1", [], () => ({ approved: true })), handlerFor(f, seen));
    expect(seen.map((r) => r.toolCall.args)).toEqual([calls.certificate.arguments, other.arguments]);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentApproved", "send_certificate:ConsentApproved"]);
    expect(f.log[2].call).toMatchObject({ arguments: calls.certificate.arguments });
    expect(f.log[3].call).toMatchObject({ arguments: other.arguments });
  });

  test("without a runtime the refused question is not kept: the id asked again later is decided again", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const pause = new Error("GraphInterrupt");
    // Asked (and paused) with a runtime, then run again without one: the question is the refusal.
    await expect(wrap(req(calls.certificate, "t1", [], () => { throw pause; }), handlerFor(f))).rejects.toBe(pause);
    await wrap({ toolCall: { id: "t1", name: calls.certificate.name, args: calls.certificate.arguments } }, handlerFor(f));
    await wrap(req(calls.certificate, "t1", [], () => ({ approved: true })), handlerFor(f));
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    expect(f.ran).toEqual({ send_certificate: 1 });
  });

  test("a no: the call does not run; the refusal says the user declined it; the no is recorded", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const out = (await wrap(req(calls.certificate, "t1", [], () => ({ approved: false })), handlerFor(f))) as ToolMessage;
    expect(out.status).toBe("error");
    expect(out.content).toBe(declinedMessage(calls.certificate));
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log[1].consent).toMatchObject({ consent: false });
  });

  test("without a LangGraph runtime nobody can answer: the question is the refusal", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const out = (await wrap({ toolCall: { id: "t1", name: calls.certificate.name, args: calls.certificate.arguments } }, handlerFor(f))) as ToolMessage;
    expect(out.status).toBe("error");
    expect(out.content).toBe(f.log[0].question);
    expect(f.ran).toEqual({});
  });

  test("a call without an id is asked and answered in one pass", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const asked: ConsentInterrupt[] = [];
    await wrap(req(calls.certificate, undefined, [], (v) => (asked.push(v as ConsentInterrupt), true)), handlerFor(f));
    expect(asked[0].toolCall.id).toBeUndefined();
    expect(f.ran).toEqual({ send_certificate: 1 });
  });

  test("isApproval: only true and { approved: true } are a yes", () => {
    for (const yes of [true, { approved: true }, { approved: true, note: "x" }]) expect(isApproval(yes)).toBe(true);
    for (const no of [false, "yes", 1, null, undefined, {}, { approved: "true" }, { approved: 1 }, [true]]) expect(isApproval(no)).toBe(false);
  });
});

describe("bounds", () => {
  test("questions are kept for the last 1024 calls", async () => {
    const f = fixture();
    const { wrap } = setup(f);
    const pause = () => {
      throw new Error("pause");
    };
    const ask = (id: string) => wrap(req(calls.certificate, id, [], pause), handlerFor(f)).catch(() => undefined);
    for (let i = 0; i < 1025; i++) await ask(`t${i}`);
    expect(f.log).toHaveLength(1025);
    // t0 was dropped: asking it again decides again; t1 is still open: no new record.
    await ask("t1");
    expect(f.log).toHaveLength(1025);
    await ask("t0");
    expect(f.log).toHaveLength(1026);
  });
});

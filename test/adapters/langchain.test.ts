// polar-guard/langchain against the real LangChain 1 agent (createAgent, its tool node and LangGraph's
// checkpointer), driven by LangChain's own FakeToolCallingModel: no network. Consent questions are
// LangGraph interrupts, answered by resuming the graph with a Command.
import { describe, expect, test } from "vitest";
import { createAgent, tool, FakeToolCallingModel } from "langchain";
import { Command, MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { isApproval, polarMiddleware, type ConsentInterrupt } from "../../src/adapters/langchain.js";
import { declinedMessage } from "../../src/adapters/core.js";
import { calls, fixture, replays, routes, type Fixture } from "./fixtures.js";

type Call = { name: string; arguments: Record<string, unknown> };
let ids = 0;
const step = (...cs: Call[]) => cs.map((c) => ({ name: c.name, args: c.arguments, id: `tc_${++ids}` }));

async function converse(f: Fixture, script: ReturnType<typeof step>[], answer: (q: ConsentInterrupt) => unknown) {
  const tools = Object.entries(f.impl).map(([name, run]) => tool(async (args: Record<string, unknown>) => JSON.stringify(await run(args)), { name, description: name, schema: z.object({}).passthrough() }));
  const agent = createAgent({
    model: new FakeToolCallingModel({ toolCalls: [...script, []] }),
    tools,
    middleware: [polarMiddleware(f.guard)],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: `t${++ids}` } };
  const questions: ConsentInterrupt[] = [];
  let result = await agent.invoke({ messages: [{ role: "user", content: "please sort out my booking" }] }, config);
  for (let round = 0; round < 4; round++) {
    const pending = (result as { __interrupt__?: { id: string; value: ConsentInterrupt }[] }).__interrupt__ ?? [];
    if (pending.length === 0) break;
    const resume: Record<string, unknown> = {};
    for (const i of pending) {
      questions.push(i.value);
      const a = answer(i.value);
      // LangGraph refuses a falsy resume value ("empty Command input"): a no is `{ approved: false }`.
      resume[i.id] = a === false ? { approved: false } : a;
    }
    result = await agent.invoke(new Command({ resume: pending.length === 1 ? resume[pending[0].id] : resume }), config);
  }
  const toolMessages = result.messages.filter((m) => m.getType() === "tool").map((m) => ({ content: String(m.content), status: (m as { status?: string }).status }));
  return { result, questions, toolMessages };
}

describe("polar-guard/langchain (createAgent middleware)", () => {
  test("approve: an admissible call runs once, one Approved record that replays", async () => {
    const f = fixture();
    const { toolMessages } = await converse(f, [step(calls.editFlights)], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(toolMessages).toHaveLength(1);
    expect(toolMessages[0].status).not.toBe("error");
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
    expect(replays(f)).toBe(true);
  });

  test("veto: an error ToolMessage with the guard's refusal, never an interrupt", async () => {
    const f = fixture();
    const { toolMessages, questions } = await converse(f, [step(calls.cancelMissing)], () => true);
    expect(questions).toEqual([]);
    expect(f.ran).toEqual({});
    expect(toolMessages).toEqual([{ content: expect.stringContaining("missing_entity"), status: "error" }]);
    expect(routes(f.log)).toEqual(["cancel_reservation:Vetoed"]);
  });

  test("consent asked then given: interrupt() carries the question; resuming with true runs the call", async () => {
    const f = fixture();
    const { questions, toolMessages } = await converse(f, [step(calls.certificate)], () => true);
    expect(questions.map((q) => q.type)).toEqual(["polar-consent"]);
    expect(questions[0].question).toContain("external sink `email`");
    expect(f.ran).toEqual({ send_certificate: 1 });
    expect(toolMessages[0].status).not.toBe("error");
    // One question, asked once: the graph re-runs the node on resume, the guard does not decide again.
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    expect(replays(f)).toBe(true);
  });

  test("consent refused: resuming with anything but true or { approved: true } is a no", async () => {
    for (const answer of [false, "yes", { approved: "true" }, 1]) {
      const f = fixture();
      const { toolMessages } = await converse(f, [step(calls.certificate)], () => answer);
      expect(f.ran).toEqual({});
      expect(toolMessages).toEqual([{ content: expect.stringContaining("The user declined"), status: "error" }]);
      expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
      expect(f.log[1].consent).toMatchObject({ consent: false });
    }
    expect(isApproval({ approved: true })).toBe(true);
  });

  test("a user's no binds the call for the session: the model's retry in its next message is refused, not asked again (issue 21 item 13)", async () => {
    const f = fixture();
    const { questions, toolMessages } = await converse(f, [step(calls.certificate), step(calls.certificate)], () => false);
    expect(questions).toHaveLength(1);
    expect(f.ran).toEqual({});
    // The same words in every adapter (issue 21 item 20): the call, and that the user declined it.
    expect(toolMessages).toEqual([
      { content: declinedMessage(calls.certificate), status: "error" },
      { content: declinedMessage(calls.certificate), status: "error" },
    ]);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated"]);
    expect(f.log.map((d) => d.consent?.consent)).toEqual([false, false, false]);
    expect(replays(f)).toBe(true);
  });

  test("a parallel pair: the second call is judged with the first (overlap_conflict)", async () => {
    const f = fixture();
    const { questions } = await converse(f, [step(calls.editFlights, calls.cancelR1)], () => false);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:ConsentEscalated", "cancel_reservation:ConsentEscalated"]);
    expect(f.log[1].reason).toBe("overlap_conflict");
    expect(questions).toHaveLength(1);
  });

  test("a tool that throws: its outcome is unknown", async () => {
    const f = fixture("escalate", "session");
    let error: unknown = null;
    let toolMessages: { content: string; status?: string }[] = [];
    try {
      ({ toolMessages } = await converse(f, [step(calls.broken)], () => false));
    } catch (e) {
      error = e;
    }
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(error !== null || toolMessages.some((m) => m.content.includes("the booking system is down"))).toBe(true);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });

  test("an executed call is observed with its real result", async () => {
    const f = fixture("escalate", "session");
    await converse(f, [step(calls.editFlights)], () => false);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("shadow mode (advisory guard): nothing interrupts, the records say what enforcement would have done", async () => {
    const f = fixture("advisory");
    const { questions } = await converse(f, [step(calls.editFlights, calls.certificate)], () => false);
    expect(questions).toEqual([]);
    expect(f.ran).toEqual({ update_reservation_flights: 1, send_certificate: 1 });
    expect(f.log.map((d) => [d.route, d.admissible])).toEqual([["Approved", true], ["AdvisoryPassthrough", false]]);
  });
});

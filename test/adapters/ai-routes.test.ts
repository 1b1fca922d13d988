// polar-guard/ai route by route, through the hooks the AI SDK calls (`needsApproval`, `execute`) and the
// approval parts it produces, called the way the SDK calls them: what each decision becomes, what the
// guard is told, what is observed or released, and which answers count. The agent-loop tests are in
// ai.test.ts.
import { describe, expect, test } from "vitest";
import { jsonSchema, tool, type ModelMessage, type Tool, type ToolSet } from "ai";
import { createAiSdkGuard, GuardBindingError, GuardRefusalError } from "../../src/adapters/ai.js";
import { declinedMessage } from "../../src/adapters/core.js";
import { NothingChangedError } from "../../src/index.js";
import type { CheckContext, Decision, Guard } from "../../src/index.js";
import { calls, fixture, routes, type Fixture } from "./fixtures.js";

type Hooks = {
  needsApproval: (input: unknown, o: { toolCallId: string; messages: ModelMessage[] }) => boolean | Promise<boolean>;
  execute?: (input: unknown, o: { toolCallId: string; messages: ModelMessage[] }) => Promise<unknown>;
};

function spied(g: Guard): { guard: Guard; contexts: CheckContext[] } {
  const contexts: CheckContext[] = [];
  const guard = { ...g, check: (call: unknown, ctx?: CheckContext) => (contexts.push(structuredClone(ctx) as CheckContext), g.check(call, ctx)) } as Guard;
  return { guard, contexts };
}

/** The fixture's tools for the AI SDK, guarded; each hook as the SDK calls it. */
function setup(f: Fixture, guard: Guard = f.guard, extra: ToolSet = {}) {
  const decisions: Decision[] = [];
  const polar = createAiSdkGuard(guard, { onDecision: (d) => decisions.push(d) });
  const tools: ToolSet = { ...extra };
  const seen: Record<string, unknown[]> = {};
  for (const [name, run] of Object.entries(f.impl)) {
    tools[name] = tool({
      description: name,
      inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
      execute: (args: Record<string, unknown>) => ((seen[name] ??= []).push(args), run(args)),
    });
  }
  const guarded = polar.tools(tools) as unknown as Record<string, Hooks>;
  return { polar, guarded, decisions, seen };
}

/** The assistant message the SDK writes for an approval request: the tool call, then the request
 * about it (the adapter binds an answer to that call's tool and input). */
const request = (toolCallId: string, approvalId: string, call?: { name: string; arguments: unknown }): ModelMessage => ({
  role: "assistant",
  content: [
    ...(call === undefined ? [] : [{ type: "tool-call", toolCallId, toolName: call.name, input: call.arguments } as never]),
    { type: "tool-approval-request", approvalId, toolCallId } as never,
  ],
});
const response = (approvalId: string, approved: boolean): ModelMessage => ({
  role: "tool",
  content: [{ type: "tool-approval-response", approvalId, approved } as never],
});
const opts = (toolCallId: string, messages: ModelMessage[] = []) => ({ toolCallId, messages });

describe("needsApproval: the guard decides", () => {
  test("a call the guard lets run needs no approval; a veto and a question do", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    expect(await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"))).toBe(false);
    expect(await guarded.cancel_reservation.needsApproval(calls.cancelMissing.arguments, opts("b"))).toBe(true);
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"))).toBe(true);
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved", "cancel_reservation:Vetoed", "send_certificate:ConsentEscalated"]);
    expect(polar.decision("a")?.route).toBe("Approved");
    expect(polar.decision("b")?.route).toBe("Vetoed");
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    expect(polar.decision("d")).toBeUndefined();
  });

  test("the guard is told the user messages (text parts joined, other roles left out) and the turn's earlier calls", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const { guarded } = setup(f, guard);
    const messages: ModelMessage[] = [
      { role: "system", content: "be nice" },
      { role: "user", content: "change my flight" },
      { role: "assistant", content: "sure" },
      { role: "user", content: [{ type: "text", text: "to HAT009 " }, { type: "image", image: "data:," } as never, { type: "text", text: "please" }] },
    ];
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a", messages));
    await guarded.cancel_reservation.needsApproval(calls.cancelR1.arguments, opts("b", messages));
    expect(contexts[0].userMessages).toEqual(["change my flight", "to HAT009 please"]);
    expect(contexts[1].turnCalls).toEqual([calls.editFlights]);
    // Another step (another messages array) is another turn.
    await guarded.cancel_reservation.needsApproval(calls.cancelR1.arguments, opts("c", [...messages]));
    expect(contexts[2].turnCalls).toEqual([]);
  });

  test("the application's approval of the guard's question is the consent for that call only; it stays approved so execute is reached", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"))).toBe(true);
    const after = [request("c", "ap1", calls.certificate), response("ap1", true)];
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", after))).toBe(true);
    expect(polar.decision("c")).toMatchObject({ route: "ConsentApproved", approved: true });
    expect(await guarded.send_certificate.execute!(calls.certificate.arguments, opts("c", after))).toBe("certificate sent");
    expect(f.ran).toEqual({ send_certificate: 1 });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });

  test("an approval of another call's request, or a denial, is no consent", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    const other = [request("other", "ap9"), response("ap9", true)];
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", other))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    const denied = [request("c", "ap1", calls.certificate), response("ap1", false)];
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", denied))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    // A response without its request names no call.
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [response("ap1", true)]))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    expect(f.log.every((d) => d.route === "ConsentEscalated")).toBe(true);
  });

  test("an approval binds to the call it was raised for: another tool or other input under the same id is not consented", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    const approved = [request("c", "ap1", calls.certificate), response("ap1", true)];
    const other = { user_id: "mia", amount: 500 };
    expect(await guarded.send_certificate.needsApproval(other, opts("c", approved))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    const asTool = [request("c", "ap2", { name: "cancel_reservation", arguments: calls.certificate.arguments }), response("ap2", true)];
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", asTool))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    // Input given as JSON text is the same call as its parsed object.
    const asText = [request("c", "ap3", { name: "send_certificate", arguments: JSON.stringify(calls.certificate.arguments) }), response("ap3", true)];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", asText));
    expect(polar.decision("c")?.route).toBe("ConsentApproved");
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });

  test("an answer binds to the request for this id and to the last tool call with this id before it", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    const callPart = (id: string, c: { name: string; arguments: unknown }) => ({ type: "tool-call", toolCallId: id, toolName: c.name, input: c.arguments }) as never;
    const asked = () => polar.decision("c")?.route;
    // A request raised for another id, after this call's tool-call part, answers nothing here.
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [{ role: "assistant", content: [callPart("c", calls.certificate), { type: "tool-approval-request", approvalId: "ap9", toolCallId: "other" } as never] }, response("ap9", true)]));
    expect(asked()).toBe("ConsentEscalated");
    // A tool call with another id between this call and the request does not become the approved call.
    const other = { name: "send_certificate", arguments: { user_id: "mia", amount: 100 } };
    await guarded.send_certificate.needsApproval(other.arguments, opts("c", [{ role: "assistant", content: [callPart("c", calls.certificate), callPart("x", other), { type: "tool-approval-request", approvalId: "ap8", toolCallId: "c" } as never] }, response("ap8", true)]));
    expect(asked()).toBe("ConsentEscalated");
    // A request with no tool call before it names no call: no consent (and no error).
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [request("c", "ap7"), response("ap7", true)]));
    expect(asked()).toBe("ConsentEscalated");
    // Only a tool-approval-response answers: another part carrying the approval id and `approved` does not.
    const lookalike: ModelMessage = { role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "send_certificate", approvalId: "ap6", approved: true, output: { type: "text", value: "ok" } } as never] };
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [request("c", "ap6", calls.certificate), lookalike]));
    expect(asked()).toBe("ConsentEscalated");
    // A later response to an unknown request does not replace this request's answer.
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [request("c", "ap5", calls.certificate), response("ap5", true), response("ap-unknown", false)]));
    expect(asked()).toBe("ConsentApproved");
  });

  test("approvals of two calls asked again in turn: each gives its own decision again, no new record", async () => {
    const f = fixture();
    const { guarded } = setup(f);
    const one = [request("c1", "ap1", calls.certificate), response("ap1", true)];
    const two = [request("c2", "ap2", calls.certificate), response("ap2", true)];
    for (const [id, m] of [["c1", one], ["c2", two], ["c1", one], ["c2", two]] as const) await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts(id, [...m]));
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved", "send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });

  test("an approval is spent when its call runs: the same call again under the same id is asked again", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    const approved = [request("c", "ap1", calls.certificate), response("ap1", true)];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", approved))).toBe(true);
    // Asked again before it runs (the SDK may), the approval gives the same decision: one consent record.
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", approved))).toBe(true);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    await guarded.send_certificate.execute!(calls.certificate.arguments, opts("c", approved));
    expect(f.ran).toEqual({ send_certificate: 1 });
    // A later step repeats the call under the same id; the old approval is still in the messages.
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", approved))).toBe(true);
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    await expect(guarded.send_certificate.execute!(calls.certificate.arguments, opts("c", approved))).rejects.toBeInstanceOf(GuardRefusalError);
    expect(f.ran).toEqual({ send_certificate: 1 });
  });

  test("only an approval request with a string id links an answer to the call", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    const notRequest: ModelMessage[] = [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "send_certificate", input: {}, approvalId: "ap1" } as never] }, response("ap1", true)];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", notRequest));
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    const numeric: ModelMessage[] = [
      { role: "assistant", content: [{ type: "tool-approval-request", approvalId: 5, toolCallId: "c" } as never] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: 5, approved: true } as never] },
    ];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", numeric));
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    // Only a response answers: the request repeated after its answer changes nothing.
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [request("c", "ap1", calls.certificate), response("ap1", true), request("c", "ap1", calls.certificate)]));
    expect(polar.decision("c")?.route).toBe("ConsentApproved");
  });

  test("the last answer to a request counts (a last no binds the call: see the user's no)", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    const again = [request("c", "ap1", calls.certificate), response("ap1", false), response("ap1", true)];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", again));
    expect(polar.decision("c")?.route).toBe("ConsentApproved");
    const g = fixture();
    const second = setup(g);
    await second.guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    const changed = [request("c", "ap1", calls.certificate), response("ap1", true), response("ap1", false)];
    expect(await second.guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", changed))).toBe(true);
    expect(second.polar.decision("c")?.route).toBe("ConsentEscalated");
    expect(routes(g.log)).not.toContain("send_certificate:ConsentApproved");
  });

  test("an approval never overrides a veto: the request stays, execute refuses", async () => {
    const f = fixture();
    const { guarded } = setup(f);
    await guarded.cancel_reservation.needsApproval(calls.cancelMissing.arguments, opts("b"));
    const after = [request("b", "ap1", calls.cancelMissing), response("ap1", true)];
    expect(await guarded.cancel_reservation.needsApproval(calls.cancelMissing.arguments, opts("b", after))).toBe(true);
    await expect(guarded.cancel_reservation.execute!(calls.cancelMissing.arguments, opts("b", after))).rejects.toBeInstanceOf(GuardRefusalError);
    expect(f.ran).toEqual({});
    expect(routes(f.log)).toEqual(["cancel_reservation:Vetoed"]);
  });

  test("an approval of a call the guard already let run keeps it approved (one record)", async () => {
    const f = fixture();
    const { guarded } = setup(f);
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"));
    expect(await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a", [request("a", "ap1", calls.editFlights), response("ap1", true)]))).toBe(true);
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
  });

  test("an approval for a call this adapter never saw: the guard decides it, then reads the approval as the answer", async () => {
    const f = fixture();
    const { guarded } = setup(f);
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [request("c", "ap1", calls.certificate), response("ap1", true)]));
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });
});

describe("execute: runs what the guard judged, and observes it", () => {
  test("an approved call runs on a copy of the judged arguments; its result is observed for its execution and returned", async () => {
    const f = fixture("escalate", "session");
    const { guarded, polar, seen } = setup(f);
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"));
    expect(f.guard.pending()).toHaveLength(1);
    const input = structuredClone(calls.editFlights.arguments) as Record<string, unknown>;
    const out = await guarded.update_reservation_flights.execute!(input, opts("a"));
    expect(seen.update_reservation_flights).toEqual([calls.editFlights.arguments]);
    expect(seen.update_reservation_flights[0]).not.toBe(input);
    expect(out).toMatchObject({ flights: calls.editFlights.arguments.flights });
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
    expect(polar.decision("a")).toBeUndefined();
  });

  test("execute for a call no decision was made for, under an id other calls hold, is refused and never runs (issue 21 item 1)", async () => {
    const f = fixture("escalate", "session");
    const { guarded, polar } = setup(f);
    await guarded.cancel_reservation.needsApproval(calls.cancelR1.arguments, opts("call_0"));
    await guarded.get_reservation_details.needsApproval({ reservation_id: "R2" }, opts("call_0"));
    // cancel_reservation with the read's arguments: no decision was made for it.
    const e = await guarded.cancel_reservation.execute!({ reservation_id: "R2" }, opts("call_0")).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GuardBindingError);
    expect((e as Error).message).toContain("`cancel_reservation` was not run");
    expect(f.ran).toEqual({});
    // Each call still runs on its own decision.
    await guarded.get_reservation_details.execute!({ reservation_id: "R2" }, opts("call_0"));
    await guarded.cancel_reservation.execute!(calls.cancelR1.arguments, opts("call_0"));
    expect(f.ran).toEqual({ get_reservation_details: 1, cancel_reservation: 1 });
    expect(polar.decision("call_0")).toBeUndefined();
  });

  test("a vetoed call reaching execute is refused with the guard's decision and never runs", async () => {
    const f = fixture();
    const { guarded, polar } = setup(f);
    await guarded.cancel_reservation.needsApproval(calls.cancelMissing.arguments, opts("b"));
    const e = await guarded.cancel_reservation.execute!(calls.cancelMissing.arguments, opts("b")).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GuardRefusalError);
    expect((e as GuardRefusalError).name).toBe("GuardRefusalError");
    expect((e as GuardRefusalError).decision).toBe(polar.decision("b"));
    expect((e as GuardRefusalError).message).toBe((e as GuardRefusalError).decision.message);
    expect((e as Error).message).toContain("missing_entity");
    expect(f.ran).toEqual({});
  });

  test("a call that reaches execute without needsApproval is decided there", async () => {
    const f = fixture("escalate", "session");
    const { guarded } = setup(f);
    await guarded.update_reservation_flights.execute!(calls.editFlights.arguments, opts("a"));
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
    expect(routes(f.log)).toEqual(["update_reservation_flights:Approved"]);
    await expect(guarded.send_certificate.execute!(calls.certificate.arguments, opts("c"))).rejects.toThrow(/Do you confirm/u);
    expect(f.ran).toEqual({ update_reservation_flights: 1 });
  });

  test("a tool that throws: the error reaches the SDK; its outcome is unknown, so what it acts on is unknown (issue 21 item 8)", async () => {
    const f = fixture("escalate", "session");
    const { guarded } = setup(f);
    await guarded.update_reservation_flights.needsApproval(calls.broken.arguments, opts("a"));
    await expect(guarded.update_reservation_flights.execute!(calls.broken.arguments, opts("a"))).rejects.toThrow("the booking system is down");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    // It may have written before it threw: a later cancel (whose π would restore the stale flights) fails closed.
    expect(f.guard.check(calls.cancelR1)).toMatchObject({ approved: false, reason: "unknown_state" });
  });

  test("a tool that throws NothingChangedError: the execution is released, nothing observed", async () => {
    const f = fixture("escalate", "session");
    const { polar } = setup(f);
    const t = (polar.tools({ update_reservation_flights: tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }), execute: async (): Promise<unknown> => { throw new NothingChangedError("invalid flight"); } }) }) as unknown as Record<string, Hooks>).update_reservation_flights;
    await t.needsApproval(calls.editFlights.arguments, opts("a"));
    await expect(t.execute!(calls.editFlights.arguments, opts("a"))).rejects.toThrow("invalid flight");
    expect(f.guard.pending()).toEqual([]);
    expect(f.guard.sequence()).toEqual([]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("ok");
  });

  test("a tool that returns nothing (undefined or null) is observed as run, with no result", async () => {
    for (const value of [undefined, null]) {
      const f = fixture("escalate", "session");
      const { polar } = setup(f);
      const t = (polar.tools({ update_reservation_flights: tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }), execute: async () => value }) }) as unknown as Record<string, Hooks>).update_reservation_flights;
      await t.needsApproval(calls.editFlights.arguments, opts("n"));
      expect(await t.execute!(calls.editFlights.arguments, opts("n"))).toBe(value);
      expect(f.guard.pending()).toEqual([]);
      expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    }
  });

  test("a streaming tool: every value passes through, the last is observed as the result", async () => {
    const f = fixture("escalate", "session");
    const { polar } = setup(f);
    const streamed = polar.tools({
      update_reservation_flights: tool({
        inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
        execute: async function* () {
          yield { progress: 1 };
          yield { reservation_id: "R1", flights: calls.editFlights.arguments.flights, status: "confirmed" };
        },
      }),
    }) as unknown as Record<string, Hooks>;
    const t = streamed.update_reservation_flights;
    await t.needsApproval(calls.editFlights.arguments, opts("s"));
    const out = (await t.execute!(calls.editFlights.arguments, opts("s"))) as AsyncIterable<unknown>;
    expect(f.guard.sequence()).toEqual([]); // nothing observed before the stream ends
    const values: unknown[] = [];
    for await (const v of out) values.push(v);
    expect(values).toHaveLength(2);
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(calls.editFlights.arguments.flights);
  });

  test("a stream that throws: the error passes through, the outcome is unknown", async () => {
    const f = fixture("escalate", "session");
    const { polar } = setup(f);
    const t = (
      polar.tools({
        update_reservation_flights: tool({
          inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
          execute: async function* () {
            yield { progress: 1 };
            throw new Error("stream broke");
          },
        }),
      }) as unknown as Record<string, Hooks>
    ).update_reservation_flights;
    await t.needsApproval(calls.editFlights.arguments, opts("s"));
    const out = (await t.execute!(calls.editFlights.arguments, opts("s"))) as AsyncIterable<unknown>;
    const values: unknown[] = [];
    await expect(
      (async () => {
        for await (const v of out) values.push(v);
      })(),
    ).rejects.toThrow("stream broke");
    expect(values).toEqual([{ progress: 1 }]);
    expect(f.guard.pending()).toEqual([]);
    // A stream that broke after it started may have written: its outcome is unknown.
    expect(f.guard.sequence().map((c) => c.name)).toEqual(["update_reservation_flights"]);
    expect(f.guard.check(calls.cancelR1).reason).toBe("unknown_state");
  });
});

describe("tools()", () => {
  test("keeps every own tool and its fields; a tool without execute stays without one", () => {
    const f = fixture();
    const polar = createAiSdkGuard(f.guard);
    const client = tool({ description: "runs on the client", inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }) }) as Tool;
    const inherited = Object.create({ ghost: client }) as ToolSet;
    inherited.client = client;
    const out = polar.tools(inherited) as Record<string, Hooks & { description?: string }>;
    expect(Object.keys(out).sort()).toEqual(["client"]);
    expect(out.client.description).toBe("runs on the client");
    expect(typeof out.client.needsApproval).toBe("function");
    expect("execute" in out.client).toBe(false);
    // An entry that holds no tool is left out, not wrapped.
    expect(polar.tools({ none: undefined, client } as unknown as ToolSet)).toEqual({ client: expect.objectContaining({ description: "runs on the client" }) });
    // Tools named like Object.prototype members are own tools too, defined as data (never a prototype).
    const own = JSON.parse('{"__proto__": 1, "constructor": 2}') as Record<string, unknown>;
    Object.defineProperty(own, "__proto__", { value: client, enumerable: true });
    Object.defineProperty(own, "constructor", { value: client, enumerable: true });
    const named = polar.tools(own as ToolSet) as Record<string, Hooks>;
    expect(Object.keys(named)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(named)).toBe(Object.prototype);
    expect(typeof Object.getOwnPropertyDescriptor(named, "__proto__")?.value.needsApproval).toBe("function");
  });
});

test("the guarded tool set is a plain object: entries can be replaced and deleted", () => {
  const f = fixture();
  const out = createAiSdkGuard(f.guard).tools({ a: tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }) }) }) as Record<string, unknown>;
  out.a = "mine";
  expect(out.a).toBe("mine");
  delete out.a;
  expect(Object.keys(out)).toEqual([]);
});

describe("a tool without execute: the application's result is observed from the messages", () => {
  const result = (toolCallId: string, toolName: string, output: unknown): ModelMessage => ({ role: "tool", content: [{ type: "tool-result", toolCallId, toolName, output } as never] });

  function clientSetup() {
    const f = fixture("escalate", "session");
    const polar = createAiSdkGuard(f.guard);
    const schema = jsonSchema<Record<string, unknown>>({ type: "object" });
    const guarded = polar.tools({ update_reservation_flights: tool({ inputSchema: schema }), send_certificate: tool({ inputSchema: schema }) }) as unknown as Record<string, Hooks>;
    return { f, guarded };
  }

  test("a result, an error output and a denial: observed, observed as failed, released", async () => {
    for (const [output, sequence, flights] of [
      [{ type: "json", value: { flights: calls.editFlights.arguments.flights } }, ["update_reservation_flights"], calls.editFlights.arguments.flights],
      // An error output may follow a write: the outcome is unknown (kept, what it acts on unknown).
      [{ type: "error-text", value: "the booking system is down" }, ["update_reservation_flights"], undefined],
      [{ type: "error-json", value: { error: "down" } }, ["update_reservation_flights"], undefined],
      [{ type: "execution-denied", reason: "not now" }, [], undefined],
    ] as const) {
      const { f, guarded } = clientSetup();
      expect(await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"))).toBe(false);
      expect(f.guard.pending()).toHaveLength(1);
      await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [result("a", "update_reservation_flights", output)]));
      expect(f.guard.pending()).toEqual([]);
      expect(f.guard.sequence().map((c) => c.name)).toEqual(sequence);
      if (flights !== undefined) expect(f.guard.state.slot("reservation", "R1", "flights")).toEqual(flights);
    }
  });

  test("a client tool's call run on an approval spends it: the same call under the same id is asked again", async () => {
    const { f, guarded } = clientSetup();
    const approved = [request("c", "ap1", calls.certificate), response("ap1", true)];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    expect(await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", approved))).toBe(true);
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
    const ran = [...approved, result("c", "send_certificate", { type: "text", value: "certificate sent" })];
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", ran));
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved", "send_certificate:ConsentEscalated"]);
    expect(f.guard.pending()).toEqual([]);
  });

  test("a result under another tool's name, or for a call the guard refused, is not taken for the call", async () => {
    const { f, guarded } = clientSetup();
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"));
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c", [result("a", "send_certificate", { type: "json", value: {} })]));
    expect(f.guard.pending()).toHaveLength(1);
    // The escalated certificate never ran: a result claiming it did is not observed.
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("b", [result("c", "send_certificate", { type: "text", value: "sent" })]));
    expect(f.guard.sequence()).toEqual([]);
  });
});

describe("approvals() and respond(): answering the SDK's approval requests", () => {
  async function decided() {
    const f = fixture();
    const { guarded, polar } = setup(f);
    await guarded.update_reservation_flights.needsApproval(calls.editFlights.arguments, opts("a"));
    await guarded.cancel_reservation.needsApproval(calls.cancelMissing.arguments, opts("b"));
    await guarded.send_certificate.needsApproval(calls.certificate.arguments, opts("c"));
    return { f, polar };
  }

  test("vetoes are denied with the refusal, questions are put to the user; approved calls and others' requests are left alone", async () => {
    const { polar } = await decided();
    const content = [
      { type: "text", text: "hi" },
      null,
      "junk",
      // An approval id that is not a string: no request the SDK would accept an answer to.
      { type: "tool-approval-request", approvalId: 5, toolCall: { toolCallId: "b" } },
      { type: "tool-approval-request", approvalId: "p-a", toolCall: { toolCallId: "a", toolName: "update_reservation_flights" } },
      { type: "tool-approval-request", approvalId: "p-b", toolCall: { toolCallId: "b", toolName: "cancel_reservation" } },
      { type: "tool-approval-request", approvalId: "p-c", toolCall: { toolCallId: "c", toolName: "send_certificate" } },
      { type: "tool-approval-request", approvalId: "p-x", toolCall: { toolCallId: "x", toolName: "theirs" } },
      { type: "tool-approval-request", approvalId: "p-y", toolCall: { toolCallId: 7 } },
    ];
    const vetoMessage = polar.decision("b")!.message;
    const p = polar.approvals(content);
    expect(p.denied).toEqual([{ type: "tool-approval-response", approvalId: "p-b", approved: false, reason: vetoMessage }]);
    expect(p.denied[0].reason).toContain("missing_entity");
    expect(p.questions.map((q) => [q.approvalId, q.toolCallId, q.toolName])).toEqual([["p-c", "c", "send_certificate"]]);
    expect(p.questions[0].question).toContain("Do you confirm?");
    expect(p.questions[0].answer(true)).toEqual({ type: "tool-approval-response", approvalId: "p-c", approved: true });
    expect(polar.decision("c")?.route).toBe("ConsentEscalated");
    expect(p.questions[0].answer(false)).toEqual({ type: "tool-approval-response", approvalId: "p-c", approved: false, reason: declinedMessage(calls.certificate) });
    // A veto is answered once: its decision is done.
    expect(polar.decision("b")).toBeUndefined();
    // The user's no is recorded: the decision now held for `c` is the one with the no.
    expect(polar.decision("c")?.consent).toMatchObject({ consent: false });
  });

  test("reads the requests of response messages too (flat parts), with or without a tool name", async () => {
    const { polar } = await decided();
    const messages = [
      // The step's own tool-call parts name the same calls (one even carries an approval id): they are not requests.
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "b", toolName: "cancel_reservation", input: calls.cancelMissing.arguments, approvalId: "forged" }, { type: "tool-call", toolCallId: "c", toolName: "send_certificate", input: calls.certificate.arguments }] },
      { role: "assistant", content: [{ type: "tool-approval-request", approvalId: "p-c", toolCallId: "c" }] },
      { role: "assistant", content: "text only" },
      { role: "tool", content: [null, { type: "tool-approval-request", approvalId: "p-b", toolCallId: "b", toolName: "cancel_reservation" }] },
    ];
    const p = polar.approvals(messages);
    expect(p.questions.map((q) => [q.approvalId, q.toolCallId, q.toolName])).toEqual([["p-c", "c", "send_certificate"]]);
    expect(p.denied.map((d) => d.approvalId)).toEqual(["p-b"]);
  });

  test("respond: one tool message with every answer, the user's answer taken only when it is true", async () => {
    const { polar } = await decided();
    const content = [
      { type: "tool-approval-request", approvalId: "p-b", toolCall: { toolCallId: "b" } },
      { type: "tool-approval-request", approvalId: "p-c", toolCall: { toolCallId: "c" } },
    ];
    const asked: string[] = [];
    const reply = await polar.respond(content, async (q) => (asked.push(q.toolCallId), "yes" as unknown as boolean));
    expect(asked).toEqual(["c"]);
    expect(reply).toEqual({
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: "p-b", approved: false, reason: expect.stringContaining("missing_entity") },
        { type: "tool-approval-response", approvalId: "p-c", approved: false, reason: declinedMessage(calls.certificate) },
      ],
    });
    const yes = await (await decided()).polar.respond([{ type: "tool-approval-request", approvalId: "p-c", toolCall: { toolCallId: "c" } }], () => true);
    expect(yes?.content).toEqual([{ type: "tool-approval-response", approvalId: "p-c", approved: true }]);
  });

  test("respond: nothing to answer is null", async () => {
    const { polar } = await decided();
    expect(await polar.respond([], () => true)).toBeNull();
    expect(await polar.respond([{ type: "tool-approval-request", approvalId: "p-a", toolCall: { toolCallId: "a" } }], () => true)).toBeNull();
  });
});

describe("v7 toolApproval", () => {
  test("reads the user messages and the approval of the guard's question from the request", async () => {
    const f = fixture();
    const { guard, contexts } = spied(f.guard);
    const polar = createAiSdkGuard(guard);
    const call = { toolCallId: "c", toolName: calls.certificate.name, input: calls.certificate.arguments };
    expect(await polar.toolApproval({ toolCall: call, messages: [{ role: "user", content: "send it" }] })).toMatchObject({ type: "user-approval" });
    expect(contexts[0].userMessages).toEqual(["send it"]);
    expect(await polar.toolApproval({ toolCall: call, messages: [{ role: "user", content: "send it" }, request("c", "ap", calls.certificate), response("ap", true)] })).toEqual({ type: "approved" });
    expect(routes(f.log)).toEqual(["send_certificate:ConsentEscalated", "send_certificate:ConsentApproved"]);
  });

  test("a veto is denied with the guard's refusal as the reason, a question put with the guard's question", async () => {
    const f = fixture();
    const polar = createAiSdkGuard(f.guard);
    const veto = await polar.toolApproval({ toolCall: { toolCallId: "b", toolName: calls.cancelMissing.name, input: calls.cancelMissing.arguments }, messages: [] });
    expect(veto).toEqual({ type: "denied", reason: f.log[0].message });
    const ask = await polar.toolApproval({ toolCall: { toolCallId: "c", toolName: calls.certificate.name, input: calls.certificate.arguments }, messages: [] });
    expect(ask).toEqual({ type: "user-approval", reason: f.log[1].question });
  });
});

describe("bounds", () => {
  test("decisions are kept for the last 1024 calls; deciding a call again does not push another out", async () => {
    const f = fixture("advisory");
    const polar = createAiSdkGuard(f.guard);
    const ask = (id: string) => polar.toolApproval({ toolCall: { toolCallId: id, toolName: "get_reservation_details", input: { reservation_id: "R1" } }, messages: [] });
    for (let i = 0; i < 1024; i++) await ask(`id${i}`);
    await ask("id0"); // again: moves to the newest, evicts nothing
    expect(polar.decision("id0")).toBeDefined();
    expect(polar.decision("id1")).toBeDefined();
    await ask("id1024");
    expect(polar.decision("id1")).toBeUndefined();
    expect(polar.decision("id2")).toBeDefined();
    expect(polar.decision("id0")).toBeDefined();
    expect(polar.decision("id1024")).toBeDefined();
  });
});

// Tool call ids through an adapter (issue 21 items 1 and 13): models and OpenAI-compatible servers
// reuse ids (`call_0` for every call of a step), so the calls of one step may share ids in any way.
// The AI SDK adapter is driven as the SDK drives it (needsApproval for each call of a step, then
// execute in any order, for calls the SDK would run and for calls it would not), the user answers
// some of the guard's questions no, and later steps retry calls. Whatever the interleaving: a tool
// runs only on an approved decision made for that tool with those arguments (one decision per run,
// recorded), never on a call the guard did not let run, never on a call the user declined in the
// session; and the log replays.
import fc from "fast-check";
import type { ModelMessage, Tool } from "ai";
import { createAiSdkGuard } from "../../../src/adapters/ai.js";
import { sameCall } from "../../../src/adapters/core.js";
import { createGuard, type Decision } from "../../../src/guard/index.js";
import { fail, type FuzzTarget } from "../support.js";
import { AIRLINE, airlineRules, airlineState, CALLS, checkLog, checkPreparedPath, newLog, NOW, referenceFactory, sha256 } from "./lifecycle-session.js";

interface StepCall {
  call: number;
  id: number;
}
interface Step {
  calls: StepCall[];
  /** Order of the execute attempts (indexes into calls; missing ones are not attempted). */
  order: number[];
  /** Per call: the user's answer when the guard asks (false: no). */
  answers: boolean[];
}
interface Case {
  scope: "turn" | "session";
  steps: Step[];
}

const stepArb: fc.Arbitrary<Step> = fc
  .array(fc.record({ call: fc.nat(CALLS.length - 1), id: fc.nat(2) }), { minLength: 1, maxLength: 4 })
  .chain((calls) =>
    fc.record({
      calls: fc.constant(calls),
      order: fc.shuffledSubarray([...calls.keys()], { minLength: 0, maxLength: calls.length }),
      answers: fc.array(fc.boolean(), { minLength: calls.length, maxLength: calls.length }),
    }),
  );

const caseArb: fc.Arbitrary<Case> = fc.record({
  scope: fc.constantFrom("turn" as const, "session" as const),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 3 }),
});

type Hooks = {
  needsApproval: (input: unknown, o: { toolCallId: string; messages: ModelMessage[] }) => boolean | Promise<boolean>;
  execute: (input: unknown, o: { toolCallId: string; messages: ModelMessage[] }) => Promise<unknown>;
};

export async function checkAdapterIds(c: Case): Promise<void> {
  const state = airlineState();
  const records = newLog();
  const g = createGuard({ ontology: AIRLINE, backend: referenceFactory, state, scope: c.scope, policy: "escalate", config: { now: NOW, projection: airlineRules, log: records, sha256 } });
  const polar = createAiSdkGuard(g);
  const runs: { name: string; arguments: unknown }[] = [];
  const tools: Record<string, Tool> = {};
  for (const name of new Set(CALLS.map((x) => x.name))) {
    tools[name] = {
      inputSchema: { jsonSchema: { type: "object" } },
      execute: async (args: unknown) => {
        runs.push({ name, arguments: args });
        return JSON.stringify(state.entity("reservation", String((args as { reservation_id?: unknown }).reservation_id)) ?? { ok: true });
      },
    } as unknown as Tool;
  }
  const guarded = polar.tools(tools) as unknown as Record<string, Hooks>;
  const declined: unknown[] = [];
  const messages: ModelMessage[] = [{ role: "user", content: "please sort out my booking" }];
  for (const [s, step] of c.steps.entries()) {
    const id = (k: number) => `s${s === 0 ? 0 : s % 2}_call_${step.calls[k].id}`; // ids reused within and across steps
    const calls = step.calls.map((x) => CALLS[x.call]);
    const needs: boolean[] = [];
    for (const [k, call] of calls.entries()) needs.push(await guarded[call.name].needsApproval(structuredClone(call.arguments), { toolCallId: id(k), messages }));
    // The SDK raises an approval request for each call that needs one; the user answers the guard's.
    const requests = calls.flatMap((call, k) => (needs[k] ? [{ type: "tool-approval-request", approvalId: `a${s}_${k}`, toolCall: { toolCallId: id(k), toolName: call.name, input: call.arguments } }] : []));
    const pending = polar.approvals(requests);
    for (const q of pending.questions) {
      const k = Number(q.approvalId.split("_")[1]);
      if (!step.answers[k]) {
        q.answer(false);
        declined.push(calls[k]);
      }
    }
    for (const k of step.order) {
      const before = runs.length;
      const call = calls[k];
      let refused = false;
      try {
        await guarded[call.name].execute(structuredClone(call.arguments), { toolCallId: id(k), messages });
      } catch {
        refused = true;
      }
      if (!refused && runs.length !== before + 1) fail(`execute of \`${call.name}\` resolved without running the tool once`);
      if (refused && runs.length !== before) fail(`a refused execute of \`${call.name}\` ran the tool`);
      if (!refused) {
        const ran = runs[runs.length - 1];
        if (!sameCall(ran, call)) fail(`\`${call.name}\` ran with another call's arguments: ${JSON.stringify(ran)} for ${JSON.stringify(call)}`);
        if (declined.some((x) => sameCall(x, call))) fail(`\`${call.name}\` ran after the user declined it`);
      }
    }
    messages.push({ role: "assistant", content: `step ${s}` });
  }
  // Each run consumed one approved decision made for exactly its call: per call, runs ≤ approvals.
  const approved = (records.records as readonly Decision[]).filter((d) => d.approved);
  for (const run of runs) {
    const i = approved.findIndex((d) => sameCall(d.call, run));
    if (i < 0) fail(`a run of \`${run.name}\` has no approved decision made for it: ${JSON.stringify(run)}`);
    approved.splice(i, 1);
  }
  checkLog(records);
}

export const adapterIdsTarget: FuzzTarget = {
  name: "adapter-ids",
  claim: "through the AI SDK adapter, with tool call ids shared within and across steps in any interleaving, a tool runs only on an approved decision for that tool and those arguments (one per run), never after the user declined it; the log replays",
  ciRuns: 300,
  property() {
    checkPreparedPath();
    return fc.asyncProperty(caseArb, (c) => checkAdapterIds(c));
  },
};

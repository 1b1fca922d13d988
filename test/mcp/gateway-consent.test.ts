// Consent through elicitation, in this process (createGateway in front of ./fake-upstream.ts, policy
// escalate, τ = 0.995): deleting an entity is undone by re-creating it at the end of the list (φ 0.99),
// so it needs the user's consent; creating one (φ 1) does not. The user is shown what the call acts on
// and the whole call; only a yes runs it, once, on the state it was shown, re-read and re-judged under
// the upstream lock. The child-process version against the real filesystem server is consent.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { fake, type Fake } from "./fake-upstream.js";
import { decisionOf, textOf } from "./helpers.js";
import { checkApproval, decodeApproval } from "../../src/guard/approval.js";
import { ELICITED_CONSENT } from "../../src/mcp/gateway.js";

let f: Fake | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const alice = { name: "alice", entityType: "person", observations: ["likes tea"] };
const QUESTION_HEAD = "Not run: `delete_entities` was stopped by the POLAR guard, so nothing was changed. It needs the user's consent: ";

async function start(over: Parameters<typeof fake>[0] = {}): Promise<Fake> {
  f = await fake({ policy: "escalate", tau: 0.995, ...over });
  f.graph.entities.push({ ...alice, observations: [...alice.observations] });
  return f;
}

const mutatingCalls = (x: Fake) => x.requests.filter((r) => r.startsWith("tools/call:") && r !== "tools/call:read_graph");

describe("consent asked through elicitation (form mode)", () => {
  it("a yes runs exactly the call, once, re-read and re-judged, under an approval bound to the call and the state", async () => {
    const x = await start();
    const asked: string[] = [];
    const params: Record<string, unknown>[] = [];
    const s = await x.session({ elicit: (m, p) => (asked.push(m), params.push(p), { action: "accept", content: { approve: true } }) });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError, textOf(r)).not.toBe(true);
    // A form with one required yes/no field, saying what yes does.
    expect(params[0]).toMatchObject({
      mode: "form",
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Run delete_entities", description: "Yes runs exactly this call, once." } },
        required: ["approve"],
      },
    });
    expect(x.graph.entities).toEqual([]);
    expect(asked).toHaveLength(1);
    const d = s.decisions();
    expect(d.map((y) => y.route)).toEqual(["ConsentEscalated", "ConsentApproved"]);
    expect(d[1].userMessages).toEqual([ELICITED_CONSENT]);
    expect(asked[0].startsWith(`${d[0].question}\n\nIt acts on: the deletable_node \`entity_name\` = "alice".`)).toBe(true);
    expect(asked[0]).toContain(`What is there now (what would be lost if it cannot be undone):\n  spec: ${JSON.stringify([alice])}`);
    expect(asked[0].endsWith(`The call: delete_entities\n${JSON.stringify({ entityNames: ["alice"] }, null, 2)}`)).toBe(true);
    // Read, ask, read again, run.
    expect(x.requests.filter((q) => q.startsWith("tools/call:"))).toEqual(["tools/call:read_graph", "tools/call:read_graph", "tools/call:delete_entities"]);
    const m = decisionOf(r);
    expect(m.route).toBe("ConsentApproved");
    expect(m.seq).toBe(2);
    const token = decodeApproval(m.approval);
    expect(token).toMatchObject({ by: "user:elicitation", seq: 1, stateDigest: d[0].stateDigest, ontologyHash: d[0].ontologyHash });
    expect(checkApproval(token!, d[1]).ok).toBe(true);
    expect(s.outcomes()).toEqual([{ format: "polar-outcome/1", seq: 2, execution: "x2", outcome: "ran", detail: null }]);
  });

  it("with an approval key the token carries its MAC and still covers the call", async () => {
    const key = new Uint8Array(32).fill(7);
    const x = await start({ gateway: { approvalKey: key } });
    const s = await x.session({ elicit: () => ({ action: "accept", content: { approve: true } }) });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError, textOf(r)).not.toBe(true);
    const token = decodeApproval(decisionOf(r).approval)!;
    expect(checkApproval(token, s.decisions()[1], { key }).ok).toBe(true);
    expect(checkApproval(token, s.decisions()[1]).ok).toBe(false);
  });

  it("a user who takes a moment to answer is waited for", async () => {
    const x = await start();
    const s = await x.session({ elicit: async () => { await new Promise((r) => setTimeout(r, 50)); return { action: "accept", content: { approve: true } }; } });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(x.graph.entities).toEqual([]);
  });

  it("an empty elicitation capability means form mode: the user is asked", async () => {
    const x = await start();
    let asked = 0;
    const s = await x.session({ capabilities: { elicitation: {} }, elicit: () => (asked++, { action: "accept", content: { approve: true } }) });
    expect((await s.call("delete_entities", { entityNames: ["alice"] })).isError).not.toBe(true);
    expect(asked).toBe(1);
  });

  it("calls the guard admits run without asking", async () => {
    const x = await start();
    let asked = 0;
    const s = await x.session({ elicit: () => (asked++, { action: "accept", content: { approve: true } }) });
    const r = await s.call("create_entities", { entities: [{ name: "bob", entityType: "t", observations: [] }] });
    expect(decisionOf(r).route).toBe("Approved");
    expect(asked).toBe(0);
  });
});

describe("no consent, no run", () => {
  for (const [label, answer, says] of [
    ["decline", { action: "decline" }, "The user declined."],
    ["accept with approve: false", { action: "accept", content: { approve: false } }, "The user declined."],
    ["accept without content", { action: "accept" }, "The user declined."],
    ["cancel", { action: "cancel" }, "The user dismissed the request without answering."],
  ] as const) {
    it(`${label}: refused, saying so; nothing runs, nothing is pending`, async () => {
      const x = await start();
      const s = await x.session({ elicit: () => answer as never });
      const r = await s.call("delete_entities", { entityNames: ["alice"] });
      expect(r.isError).toBe(true);
      const d = s.decisions();
      expect(textOf(r)).toBe(`${QUESTION_HEAD}${d[0].question} ${says}`);
      expect(decisionOf(r)).toMatchObject({ seq: 1, route: "ConsentEscalated" });
      expect(d).toHaveLength(1);
      expect(mutatingCalls(x)).toEqual([]);
      expect(x.graph.entities).toEqual([alice]);
      expect(s.guard.pending()).toEqual([]);
    });
  }

  it("a client without elicitation is told consent could not be asked", async () => {
    const x = await start();
    const s = await x.session();
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`${QUESTION_HEAD}${s.decisions()[0].question} Consent could not be asked: this MCP client does not support elicitation (form mode). Ask the user yourself; the operator can also approve it out of band.`);
    expect(decisionOf(r).route).toBe("ConsentEscalated");
    expect(mutatingCalls(x)).toEqual([]);
  });

  it("a client that can only answer url-mode elicitation is not asked a form", async () => {
    const x = await start();
    let asked = 0;
    const s = await x.session({ capabilities: { elicitation: { url: {} } }, elicit: () => (asked++, { action: "accept", content: { approve: true } }) });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(textOf(r)).toContain("Consent could not be asked: this MCP client does not support elicitation (form mode).");
    expect(asked).toBe(0);
  });

  it("a client that offers both form and url mode is asked a form", async () => {
    const x = await start();
    let asked = 0;
    const s = await x.session({ capabilities: { elicitation: { form: {}, url: {} } }, elicit: () => (asked++, { action: "accept", content: { approve: true } }) });
    expect((await s.call("delete_entities", { entityNames: ["alice"] })).isError).not.toBe(true);
    expect(asked).toBe(1);
  });

  it("asking that fails (the client errs) is a refusal saying why", async () => {
    const x = await start();
    const s = await x.session({ elicit: () => { throw new Error("no screen"); } });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/ Asking failed \(.*no screen.*\)\.$/);
    expect(mutatingCalls(x)).toEqual([]);
  });

  it("a call too large to show whole is refused without asking", async () => {
    const x = await start();
    let asked = 0;
    const s = await x.session({ elicit: () => (asked++, { action: "accept", content: { approve: true } }) });
    const r = await s.call("delete_entities", { entityNames: ["alice", "x".repeat(5000)] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(" It was not put to the user: the call's arguments are ");
    expect(decisionOf(r).route).toBe("ConsentEscalated");
    expect(asked).toBe(0);
  });
});

describe("consent is for the state the user was shown", () => {
  it("the entity changed while asking (still deletable, other content): the re-judged approval is withdrawn, the log says refused", async () => {
    // (Also the only way to a re-judged decision that is approved: a state the guard would refuse has no execution to withdraw.)
    const x = await start();
    const s = await x.session({
      elicit: () => {
        x.graph.entities[0].observations.push("moved to Oslo");
        return { action: "accept", content: { approve: true } };
      },
    });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/ The user agreed, but .* before it could run, so the approval no longer covers it\. Ask again if it is still wanted\.$/);
    const d = s.decisions();
    expect(d.map((y) => y.route)).toEqual(["ConsentEscalated", "ConsentApproved"]);
    expect(decisionOf(r).seq).toBe(2);
    expect(mutatingCalls(x)).toEqual([]);
    expect(s.guard.pending()).toEqual([]);
    expect(s.outcomes()).toHaveLength(1);
    expect(s.outcomes()[0]).toMatchObject({ seq: 2, execution: "x2", outcome: "refused" });
    expect(s.outcomes()[0].detail).toMatch(/^the consent no longer covers it: /);
  });

  it("the entity gained a relation while asking: the guard now refuses it; nothing runs", async () => {
    const x = await start();
    x.graph.entities.push({ name: "acme", entityType: "company", observations: [] });
    const s = await x.session({
      elicit: () => {
        x.graph.relations.push({ from: "alice", to: "acme", relationType: "works at" });
        return { action: "accept", content: { approve: true } };
      },
    });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("The user agreed, but the state the call touches changed since the approval was given before it could run");
    expect(decisionOf(r).route).toBe("Vetoed");
    expect(mutatingCalls(x)).toEqual([]);
    expect(s.outcomes()).toEqual([]);
  });

  it("the state cannot be read again: refused, saying so", async () => {
    const x = await start();
    const s = await x.session({
      elicit: () => {
        x.overrides.set("read_graph", { kind: "answer", fn: () => { throw new Error("graph locked"); } });
        return { action: "accept", content: { approve: true } };
      },
    });
    const r = await s.call("delete_entities", { entityNames: ["alice"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/The user agreed, but the state could not be read again \(.*graph locked.*\) before it could run/);
    expect(mutatingCalls(x)).toEqual([]);
  });
});

// Dispatcher tools in this process, the edges of gateway-dispatch.test.ts: what the judge is made for,
// a verdict without audit evidence, a judge that journals nothing, a gateway without an audit sink, an
// upstream answer's own `_meta`, an outcome that cannot be recorded for a call that was never answered,
// the consent form's edges (a client offering form and url mode, an accept without content, a user who
// takes a moment, a refusal re-judged with the question's very words).
import { afterEach, describe, expect, it } from "vitest";
import { textOf } from "./helpers.js";
import { ALLOW, ASK, dispatchHarness, metaOf, REFUSED, type DispatchHarness, type HarnessOptions, type Script } from "./dispatch-harness.js";

let open: DispatchHarness | undefined;
afterEach(async () => {
  await open?.x.close();
  open = undefined;
});
const start = async (script: Script, over: HarnessOptions = {}): Promise<DispatchHarness> => (open = await dispatchHarness(script, over));

describe("a dispatcher tool's judge and records", () => {
  it("the judge is made for the calling session's guard", async () => {
    const h = await start({ verdict: () => ALLOW });
    const s = await h.x.session();
    await s.call("query", { sql: "SELECT 1" });
    expect(h.createdFor).toHaveLength(1);
    expect(h.createdFor[0].guard).toBe(s.guard);
  });

  it("a verdict without audit evidence: recorded with no decisions; a judge that journals nothing: nothing said of a journal", async () => {
    const h = await start({ verdict: () => ({ action: "allow", reason: "read_only", message: "changes nothing" }), observe: "none" });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "SELECT 1" });
    expect(textOf(r)).toBe("ok: SELECT 1");
    expect(metaOf(r)).toEqual({ dispatcher: "sql", action: "allow", reason: "read_only", message: "changes nothing" });
    const rec = { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "SELECT 1", action: "allow", reason: "read_only", decisions: [], detail: null };
    expect(h.records).toEqual([{ ...rec, outcome: "pending" }, { ...rec, outcome: "ran" }]);
  });

  it("without an audit sink an allowed statement runs", async () => {
    const h = await start({ verdict: () => ALLOW }, { recordFails: null });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DELETE FROM t" });
    expect(textOf(r)).toBe("ok: DELETE FROM t");
    expect(h.ran).toEqual(["DELETE FROM t"]);
  });

  it("the server's own `_meta` is kept beside the verdict", async () => {
    const h = await start({ verdict: () => ALLOW });
    h.x.overrides.set("query", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "ok" }], _meta: { "x-rows": 3 } }) });
    const r = await (await h.x.session()).call("query", { sql: "DELETE FROM t" });
    expect(r._meta).toMatchObject({ "x-rows": 3 });
    expect(metaOf(r)).toMatchObject({ action: "allow" });
  });

  it("never answered, by a judge that journals nothing, with an outcome that cannot be recorded: the client still gets the timeout", async () => {
    const h = await start({ verdict: () => ALLOW, observe: "none" }, { timeoutMs: 200, recordFails: (r) => r.outcome !== "pending" });
    h.x.overrides.set("query", { kind: "hang" });
    const s = await h.x.session();
    await expect(s.call("query", { sql: "DELETE FROM t" })).rejects.toThrow(/timed out/i);
    expect(h.records.map((r) => r.outcome)).toEqual(["pending"]);
  });

  it("never answered, by a judge that journals nothing: recorded as unknown", async () => {
    const h = await start({ verdict: () => ALLOW, observe: "none" }, { timeoutMs: 200 });
    h.x.overrides.set("query", { kind: "hang" });
    await expect((await h.x.session()).call("query", { sql: "DELETE FROM t" })).rejects.toThrow(/timed out/i);
    expect(h.records.map((r) => r.outcome)).toEqual(["pending", "unknown"]);
  });
});

describe("a dispatcher tool's consent form", () => {
  const SQL = "DELETE FROM users WHERE id = 7";

  it("a client that offers form and url mode is asked", async () => {
    const asked: string[] = [];
    const h = await start({ verdict: () => ASK }, { policy: "escalate" });
    const s = await h.x.session({ elicit: (m) => (asked.push(m), { action: "accept", content: { approve: true } }), capabilities: { elicitation: { form: {}, url: {} } } });
    const r = await s.call("query", { sql: SQL });
    expect(textOf(r)).toBe(`ok: ${SQL}`);
    expect(asked).toHaveLength(1);
  });

  it("a user who takes a moment to answer is waited for", async () => {
    const h = await start({ verdict: () => ASK }, { policy: "escalate" });
    const s = await h.x.session({ elicit: () => new Promise((r) => setTimeout(() => r({ action: "accept", content: { approve: true } }), 50)) });
    expect(textOf(await s.call("query", { sql: SQL }))).toBe(`ok: ${SQL}`);
  });

  it("an accept without content is not a yes", async () => {
    const h = await start({ verdict: () => ASK }, { policy: "escalate" });
    const s = await h.x.session({ elicit: () => ({ action: "accept" }) });
    const r = await s.call("query", { sql: SQL });
    expect(textOf(r)).toMatch(/The user declined\.$/);
    expect(h.ran).toEqual([]);
  });

  it("re-judged as a refusal in the question's very words: not run", async () => {
    let n = 0;
    const h = await start({ verdict: () => (n++ === 0 ? ASK : { ...ASK, action: "deny" }) }, { policy: "escalate" });
    const s = await h.x.session({ elicit: () => ({ action: "accept", content: { approve: true } }) });
    const r = await s.call("query", { sql: SQL });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/The user agreed, but the guard now refuses it/);
    expect(textOf(r).startsWith(REFUSED)).toBe(false);
    expect(h.ran).toEqual([]);
  });
});

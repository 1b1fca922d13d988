// Dispatcher tools in this process (createGateway in front of ./fake-upstream.ts, with a `query` tool whose
// `sql` string is judged by a scripted judge instead of the SQL guard): what the gateway does with each
// verdict (allow runs it and journals it, deny refuses it before the server, ask is put to the user), how
// it fails closed when the judge cannot be made, throws or answers in a wrong shape, what happens when the
// server answers an error or never answers, and the polar-dispatch/1 audit record of every call. The SQL
// guard behind a real SQLite server is sql-gateway.test.ts; the audit chain's replay is sql-audit.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { McpError, ErrorCode, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { fake, type Fake } from "./fake-upstream.js";
import { textOf } from "./helpers.js";
import { ALLOW, ASK, DENY, dispatchHarness, metaOf, REFUSED, type Script } from "./dispatch-harness.js";
import type { DispatchRecord } from "../../src/audit/dispatch-record.js";

let f: Fake | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

/** The harness (./dispatch-harness.ts) with `created`: how many times a judge was made. */
async function start(script: Script, over: { policy?: "veto" | "escalate"; recordThrows?: boolean; noRecord?: boolean; timeoutMs?: number } = {}) {
  const h = await dispatchHarness(script, {
    policy: over.policy,
    timeoutMs: over.timeoutMs,
    recordFails: over.noRecord ? null : over.recordThrows ? () => true : undefined,
  });
  f = h.x;
  return Object.defineProperty(h, "created", { get: () => h.createdFor.length }) as typeof h & { readonly created: number };
}

const CONSENT = `Not run: \`query\` was stopped by the POLAR guard, so nothing was changed. It needs the user's consent: ${ASK.message}`;

describe("a dispatcher tool's verdicts", () => {
  it("allow: the statement runs on the server, the judge journals it, the result carries the verdict, one record says it ran", async () => {
    const h = await start({ verdict: () => ALLOW });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DELETE FROM t WHERE id = 1" });
    expect(r.isError).not.toBe(true);
    expect(textOf(r)).toBe("ok: DELETE FROM t WHERE id = 1");
    expect(h.ran).toEqual(["DELETE FROM t WHERE id = 1"]);
    expect(h.judged).toEqual([{ call: { name: "query", arguments: { sql: "DELETE FROM t WHERE id = 1" } }, text: "DELETE FROM t WHERE id = 1" }]);
    expect(h.observed).toEqual([["allow", "ran"]]);
    expect(metaOf(r)).toEqual({ tier: "T2", restorePoint: "rp1", dispatcher: "sql", action: "allow", reason: "restore_point", message: "runs under a restore point" });
    // The decision is recorded before the statement is sent, the outcome after.
    const rec = { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "DELETE FROM t WHERE id = 1", action: "allow", reason: "restore_point", decisions: [{ seq: 1 }], detail: null };
    expect(h.records).toEqual([{ ...rec, outcome: "pending" }, { ...rec, outcome: "ran" }]);
    // The judge is made once per session and kept; the dispatcher tool never goes through the ontology's guard.
    await s.call("query", { sql: "DELETE FROM t WHERE id = 2" });
    expect(h.created).toBe(1);
    expect(h.ran).toHaveLength(2);
    expect(s.decisions()).toEqual([]);
  });

  it("a read-only approval's evidence is in the record", async () => {
    const h = await start({ verdict: () => ({ action: "allow", reason: "read_only", message: "a SELECT changes nothing", audit: { decisions: [], readOnly: { statement: "SELECT" } } }), observe: "none" });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "SELECT 1" });
    expect(textOf(r)).toBe("ok: SELECT 1");
    const rec = { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "SELECT 1", action: "allow", reason: "read_only", decisions: [], readOnly: { statement: "SELECT" }, detail: null };
    expect(h.records).toEqual([{ ...rec, outcome: "pending" }, { ...rec, outcome: "ran" }]);
  });

  it("deny: refused before the server with the judge's reason; the record says refused and why", async () => {
    const h = await start({ verdict: () => DENY });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DROP TABLE users" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`${REFUSED}${DENY.message}`);
    expect(metaOf(r)).toEqual({ dispatcher: "sql", action: "deny", reason: "irreversible", message: DENY.message });
    expect(h.ran).toEqual([]);
    expect(h.observed).toEqual([]);
    expect(h.records).toEqual([{
      format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "DROP TABLE users", action: "deny", reason: "irreversible",
      decisions: [{ seq: 2 }], outcome: "refused", detail: DENY.message,
    }]);
  });

  it("ask under the veto policy: refused with the question, never put to the user", async () => {
    const asked: string[] = [];
    const h = await start({ verdict: () => ASK });
    const s = await h.x.session({ elicit: (m) => (asked.push(m), { action: "accept", content: { approve: true } }) });
    const r = await s.call("query", { sql: "DELETE FROM users WHERE id = 7" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`${CONSENT} Consent could not be asked: this MCP client does not support elicitation (form mode). Ask the user yourself; the operator can also approve it out of band.`);
    expect(metaOf(r)).toEqual({ dispatcher: "sql", action: "ask", reason: "needs_consent", message: ASK.message });
    expect(asked).toEqual([]);
    expect(h.ran).toEqual([]);
    expect(h.records).toEqual([{
      format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "DELETE FROM users WHERE id = 7", action: "ask", reason: "needs_consent",
      decisions: [{ seq: 3 }], outcome: "refused", detail: "unsupported",
    }]);
  });
});

describe("a dispatcher tool's ask under the escalate policy", () => {
  const SQL = "DELETE FROM users WHERE id = 7";

  it("the user's yes: judged again under the lock, run once; the record says consented", async () => {
    const params: Record<string, unknown>[] = [];
    const h = await start({ verdict: () => ASK }, { policy: "escalate" });
    const s = await h.x.session({ elicit: (_m, p) => (params.push(p), { action: "accept", content: { approve: true } }) });
    const r = await s.call("query", { sql: SQL });
    expect(r.isError, textOf(r)).not.toBe(true);
    expect(h.ran).toEqual([SQL]);
    expect(h.judged).toHaveLength(2);
    expect(params).toHaveLength(1);
    expect(params[0]).toMatchObject({
      mode: "form",
      requestedSchema: { type: "object", properties: { approve: { type: "boolean", title: "Run query", description: "Yes runs exactly this statement, once." } }, required: ["approve"] },
    });
    expect(String(params[0].message)).toContain(ASK.message);
    expect(String(params[0].message)).toContain(SQL);
    expect(metaOf(r)).toEqual({ dispatcher: "sql", action: "ask", reason: "needs_consent", message: ASK.message, consented: true });
    expect(h.observed).toEqual([["ask", "ran"]]);
    const rec = { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: SQL, action: "ask", reason: "needs_consent", decisions: [{ seq: 3 }], consented: true, detail: null };
    expect(h.records).toEqual([{ ...rec, outcome: "pending" }, { ...rec, outcome: "ran" }]);
  });

  it("allowed outright when judged again: it runs, not as consented", async () => {
    let n = 0;
    const h = await start({ verdict: () => (n++ === 0 ? ASK : ALLOW) }, { policy: "escalate" });
    const s = await h.x.session({ elicit: () => ({ action: "accept", content: { approve: true } }) });
    const r = await s.call("query", { sql: SQL });
    expect(h.ran).toEqual([SQL]);
    expect(metaOf(r)).toMatchObject({ action: "allow" });
    expect(metaOf(r).consented).toBeUndefined();
    expect(h.records.map((x) => [x.action, x.outcome, x.consented])).toEqual([["allow", "pending", undefined], ["allow", "ran", undefined]]);
  });

  const refusedWith = async (answer: () => ElicitResult | Promise<ElicitResult>, verdict: Script["verdict"] = () => ASK) => {
    const h = await start({ verdict }, { policy: "escalate" });
    const s = await h.x.session({ elicit: answer });
    const r = await s.call("query", { sql: SQL });
    expect(r.isError).toBe(true);
    expect(h.ran).toEqual([]);
    expect(h.records).toHaveLength(1);
    expect(h.records[0]).toMatchObject({ action: "ask", outcome: "refused" });
    return { text: textOf(r), detail: h.records[0].detail, h };
  };

  it("a no, an approve that is not true, a dismissal: not run, each said", async () => {
    expect(await refusedWith(() => ({ action: "decline" }))).toMatchObject({ text: `${CONSENT} The user declined.`, detail: "declined" });
    expect(await refusedWith(() => ({ action: "accept", content: { approve: false } }))).toMatchObject({ text: `${CONSENT} The user declined.`, detail: "declined" });
    expect(await refusedWith(() => ({ action: "cancel" }))).toMatchObject({ text: `${CONSENT} The user dismissed the request without answering.`, detail: "cancelled" });
  });

  it("asking that fails: not run, the failure said", async () => {
    const r = await refusedWith(() => {
      throw new McpError(ErrorCode.InternalError, "the client crashed");
    });
    expect(r.text.startsWith(`${CONSENT} Asking failed (`)).toBe(true);
    expect(r.text).toMatch(/the client crashed\)\.$/);
    expect(r.detail).toMatch(/^failed: .*the client crashed$/);
  });

  it("the guard answers otherwise when judged again: the yes no longer covers it", async () => {
    let n = 0;
    const denied = await refusedWith(() => ({ action: "accept", content: { approve: true } }), () => (n++ === 0 ? ASK : DENY));
    expect(denied.text).toBe(`${CONSENT} The user agreed, but the guard now refuses it (${DENY.message}) before it could run, so the approval no longer covers it. Ask again if it is still wanted.`);
    expect(denied.detail).toBe(`stale: the guard now refuses it (${DENY.message})`);
    let m = 0;
    const other = { ...ASK, message: "DELETE FROM users loses 2 rows: run it?" };
    const changed = await refusedWith(() => ({ action: "accept", content: { approve: true } }), () => (m++ === 0 ? ASK : other));
    expect(changed.detail).toBe(`stale: the guard now asks something else (${other.message})`);
    let k = 0;
    const otherReason = { ...ASK, reason: "bound_violated" };
    expect((await refusedWith(() => ({ action: "accept", content: { approve: true } }), () => (k++ === 0 ? ASK : otherReason))).detail).toMatch(/^stale: the guard now asks something else/);
  });

  it("judged again, the judge fails: refused as the judge's failure", async () => {
    let n = 0;
    const h = await start({ verdict: () => { if (n++ === 0) return ASK; throw new Error("lost the connection"); } }, { policy: "escalate" });
    const s = await h.x.session({ elicit: () => ({ action: "accept", content: { approve: true } }) });
    const r = await s.call("query", { sql: SQL });
    expect(textOf(r)).toBe(`${REFUSED}the sql guard failed (lost the connection)`);
    expect(h.ran).toEqual([]);
  });

  it("a client without elicitation, and a statement too large to show whole: refused without asking", async () => {
    const h = await start({ verdict: () => ASK }, { policy: "escalate" });
    const s = await h.x.session();
    expect(textOf(await s.call("query", { sql: SQL }))).toMatch(/Consent could not be asked: this MCP client does not support elicitation/);
    const asked: string[] = [];
    const s2 = await h.x.session({ elicit: (m) => (asked.push(m), { action: "accept", content: { approve: true } }) });
    const big = `DELETE FROM users WHERE id IN (${"7, ".repeat(2000)}7)`;
    const r = await s2.call("query", { sql: big });
    expect(textOf(r)).toMatch(/It was not put to the user: .*consent is only asked for a call the user can see entirely/);
    expect(h.records.at(-1)!.detail).toMatch(/^unshowable: /);
    // A url-only client cannot answer a form.
    const s3 = await h.x.session({ elicit: () => ({ action: "accept", content: { approve: true } }), capabilities: { elicitation: { url: {} } } });
    expect(textOf(await s3.call("query", { sql: SQL }))).toMatch(/does not support elicitation/);
    expect(asked).toEqual([]);
    expect(h.ran).toEqual([]);
  });
});

describe("a dispatcher tool fails closed", () => {
  it("without its string, or with a string argument that is not a string: refused, never judged", async () => {
    const h = await start({ verdict: () => ALLOW });
    const s = await h.x.session();
    const missing = await s.call("query", {});
    expect(textOf(missing)).toBe(`${REFUSED}the sql string argument \`sql\` is missing`);
    expect(metaOf(missing)).toEqual({ dispatcher: "sql", action: "deny", reason: "malformed_call", message: "the sql string argument `sql` is missing" });
    const number = await s.call("query", { sql: 7 });
    expect(textOf(number)).toBe(`${REFUSED}the sql string argument \`sql\` is not a string`);
    expect(h.judged).toEqual([]);
    expect(h.ran).toEqual([]);
    expect(h.records).toEqual([
      { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "", action: "deny", reason: "malformed_call", decisions: [], outcome: "refused", detail: "the sql string argument `sql` is missing" },
      { format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "", action: "deny", reason: "malformed_call", decisions: [], outcome: "refused", detail: "the sql string argument `sql` is not a string" },
    ]);
  });

  it("a judge that cannot be made refuses the call; the next call tries again", async () => {
    const h = await start({ verdict: () => ALLOW, createFails: 1 });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "SELECT 1" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`${REFUSED}the sql guard is not available (no database)`);
    expect(metaOf(r)).toMatchObject({ action: "deny", reason: "internal_error" });
    expect(h.records[0]).toMatchObject({ text: "SELECT 1", action: "deny", reason: "internal_error", outcome: "refused", detail: "the sql guard is not available (no database)" });
    expect(h.ran).toEqual([]);
    const again = await s.call("query", { sql: "SELECT 1" });
    expect(textOf(again)).toBe("ok: SELECT 1");
    expect(h.created).toBe(2);
    expect(h.records.map((x) => x.outcome)).toEqual(["refused", "pending", "ran"]);
  });

  it("a judge that throws, or answers in a wrong shape: refused", async () => {
    const wrong: unknown[] = [null, [], "allow", { action: "maybe", reason: "r", message: "m" }, { action: "allow", reason: "r" }, { action: "allow", message: "m" }, { action: "allow", reason: 1, message: "m" }];
    let i = 0;
    const h = await start({ verdict: () => { if (i === 0) { i++; throw new Error("parser crashed"); } return wrong[i++ - 1]; } });
    const s = await h.x.session();
    expect(textOf(await s.call("query", { sql: "x" }))).toBe(`${REFUSED}the sql guard failed (parser crashed)`);
    for (let k = 0; k < wrong.length; k++) {
      const r = await s.call("query", { sql: "x" });
      expect(textOf(r), JSON.stringify(wrong[k])).toBe(`${REFUSED}the sql guard answered in a wrong shape`);
    }
    expect(h.ran).toEqual([]);
    expect(h.records.map((x) => [x.action, x.reason, x.outcome])).toEqual(Array(wrong.length + 1).fill(["deny", "internal_error", "refused"]));
    // A thrown value that is not an Error is said as it is.
    const h2 = await start({ verdict: () => { throw "no parse"; } });
    expect(textOf(await (await h2.x.session()).call("query", { sql: "x" }))).toBe(`${REFUSED}the sql guard failed (no parse)`);
  });

  it("the server answers an error result: said as failed, not journalled", async () => {
    const h = await start({ verdict: () => ALLOW });
    h.x.overrides.set("query", { kind: "answer", fn: () => ({ content: [{ type: "text", text: "no such table" }], isError: true }) });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DELETE FROM nope" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("no such table");
    expect(metaOf(r)).toMatchObject({ action: "allow" });
    expect(h.observed).toEqual([]);
    expect(h.records.map((x) => [x.outcome, x.detail])).toEqual([["pending", null], ["failed", null]]);
  });

  it("the server answers a JSON-RPC error: failed, not journalled, the error passed on", async () => {
    const h = await start({ verdict: () => ALLOW });
    h.x.overrides.set("query", { kind: "answer", fn: () => { throw new McpError(ErrorCode.InvalidParams, "bad statement"); } });
    const s = await h.x.session();
    await expect(s.call("query", { sql: "DELETE FROM t" })).rejects.toThrow(/bad statement/);
    expect(h.observed).toEqual([]);
    expect(h.records.map((x) => [x.action, x.outcome])).toEqual([["allow", "pending"], ["allow", "failed"]]);
    expect(h.records[1].detail).toMatch(/^MCP error -32602: .*bad statement$/);
  });

  it("sent and never answered: it may have run, journalled and recorded as unknown", async () => {
    const h = await start({ verdict: () => ALLOW }, { timeoutMs: 200 });
    h.x.overrides.set("query", { kind: "hang" });
    const s = await h.x.session();
    await expect(s.call("query", { sql: "DELETE FROM t" })).rejects.toThrow(/timed out/i);
    expect(h.observed).toEqual([["allow", "unknown"]]);
    expect(h.records.map((x) => [x.outcome, x.consented])).toEqual([["pending", undefined], ["unknown", undefined]]);
    expect(h.records[1].detail).toMatch(/timed out/i);
  });

  it("a journal that cannot be written: it ran, said in the result, never silently", async () => {
    const h = await start({ verdict: () => ALLOW, observe: "throws" });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DELETE FROM t" });
    expect(textOf(r)).toBe("ok: DELETE FROM t");
    expect(metaOf(r).journal).toBe("not journalled: journal is read-only (polar undo will not list it)");
    expect(metaOf(r).audit).toBeUndefined();
    expect(h.records.map((x) => x.outcome)).toEqual(["pending", "ran"]);
  });

  it("a decision that cannot be written to the audit log is not run; a refusal that cannot be is said in the result", async () => {
    const h = await start({ verdict: () => ALLOW }, { recordThrows: true });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DELETE FROM t" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`${REFUSED}its decision could not be written to the audit log (audit disk full), and a call whose decision is not in the log is not run`);
    expect(metaOf(r)).toEqual({
      dispatcher: "sql", action: "deny", reason: "internal_error",
      message: "its decision could not be written to the audit log (audit disk full), and a call whose decision is not in the log is not run",
      audit: "not recorded: audit disk full",
    });
    expect(h.ran).toEqual([]);
    expect(h.observed).toEqual([]);
    const refused = await s.call("query", {});
    expect(metaOf(refused).audit).toBe("not recorded: audit disk full");
  });

  it("the outcome's record that cannot be written: it ran, said in the result; the decision is in the log", async () => {
    const h = await start({ verdict: () => ALLOW });
    const s = await h.x.session();
    // The sink fails after the decision is written.
    h.records.push = function (this: DispatchRecord[], ...items: DispatchRecord[]): number {
      if (items.some((x) => x.outcome !== "pending")) throw new Error("audit disk full");
      return Array.prototype.push.apply(this, items);
    };
    const r = await s.call("query", { sql: "DELETE FROM t" });
    expect(textOf(r)).toBe("ok: DELETE FROM t");
    expect(metaOf(r).audit).toBe("not recorded: audit disk full");
    expect(h.records.map((x) => x.outcome)).toEqual(["pending"]);
  });

  it("without an audit sink: the results are the same, nothing recorded", async () => {
    const h = await start({ verdict: () => DENY }, { noRecord: true });
    const s = await h.x.session();
    const r = await s.call("query", { sql: "DROP TABLE users" });
    expect(textOf(r)).toBe(`${REFUSED}${DENY.message}`);
    expect(metaOf(r).audit).toBeUndefined();
  });
});

describe("a read-only tool that takes an SQL string, not configured as a dispatcher tool", () => {
  it("is refused unjudged, never forwarded, from one tools/list per session; a malformed entry hides no other", async () => {
    f = await fake({
      tools: [
        { name: "read_graph", inputSchema: { type: "object", properties: {} } },
        { name: "bad name!", inputSchema: { type: "object", properties: { sql: { type: "string" } } } },
        { name: "search_nodes", inputSchema: { type: "object", properties: { query: { type: "string", description: "an SQL statement to run" } }, required: ["query"] } },
      ],
    });
    const s = await f.session();
    const r = await s.call("search_nodes", { query: "DELETE FROM entities" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("Not run: `search_nodes` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: it takes an SQL statement in `query`, so what it does depends on that string, not on its name; the ontology's `read_only(search_nodes)` cannot be trusted for it. What would make it safe: the operator configures `search_nodes` as a dispatcher tool (`polar mcp --dispatch search_nodes=sql:query`), so each statement is judged.");
    await s.call("search_nodes", { query: "x" });
    const read = await s.call("read_graph", {});
    expect(read.isError).not.toBe(true);
    expect(f.requests.filter((q) => q === "tools/list")).toHaveLength(1);
    expect(f.requests).not.toContain("tools/call:search_nodes");
    expect(f.requests).toContain("tools/call:read_graph");
  });

  it("a shell command is said as one", async () => {
    f = await fake({ tools: [{ name: "search_nodes", inputSchema: { type: "object", properties: { query: { type: "string", description: "a bash command line" } }, required: ["query"] } }] });
    const s = await f.session();
    expect(textOf(await s.call("search_nodes", { query: "rm -rf /" }))).toMatch(/it takes a shell command in `query`.*--dispatch search_nodes=shell:query/);
  });
});

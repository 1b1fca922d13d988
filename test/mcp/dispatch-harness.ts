// A dispatcher tool in front of ./fake-upstream.ts for the gateway's in-process tests: a `query` tool
// whose `sql` string a scripted judge answers, every polar-dispatch/1 record the gateway writes, what the
// judge was asked and journalled, and the statements the server ran.
import { fake, type Fake } from "./fake-upstream.js";
import { DECISION_META_KEY, type DispatcherTool, type DispatchJudge, type DispatchVerdict } from "../../src/mcp/gateway.js";
import type { DispatchRecord } from "../../src/audit/dispatch-record.js";
import type { ToolCall } from "../../src/core/types.js";
import type { Guard } from "../../src/guard/index.js";

export const ALLOW: DispatchVerdict = { action: "allow", reason: "restore_point", message: "runs under a restore point", meta: { tier: "T2", restorePoint: "rp1" }, audit: { decisions: [{ seq: 1 }] } };
export const DENY: DispatchVerdict = { action: "deny", reason: "irreversible", message: "DROP TABLE users loses 3 rows", audit: { decisions: [{ seq: 2 }] } };
export const ASK: DispatchVerdict = { action: "ask", reason: "needs_consent", message: "DELETE FROM users loses 1 row: run it?", audit: { decisions: [{ seq: 3 }] } };
export const REFUSED = "Not run: `query` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: ";

export interface Script {
  /** The verdict for a statement (may throw). */
  verdict: (text: string, call: ToolCall) => unknown;
  /** `create` throws this many times first. */
  createFails?: number;
  /** What `observe` does (default: journals it). */
  observe?: "throws" | "none";
}

export interface DispatchHarness {
  x: Fake;
  /** The sessions given to `create` (one per judge made, failed or not). */
  createdFor: Array<{ guard: Guard }>;
  /** Every statement the judge was asked about. */
  judged: Array<{ call: ToolCall; text: string }>;
  observed: Array<[string, string]>;
  records: DispatchRecord[];
  /** The statements the server ran. */
  ran: string[];
}

export interface HarnessOptions {
  policy?: "veto" | "escalate";
  /** Which records the audit sink fails to write (default none); `null`: no audit sink at all. */
  recordFails?: ((r: DispatchRecord) => boolean) | null;
  timeoutMs?: number;
}

export async function dispatchHarness(script: Script, over: HarnessOptions = {}): Promise<DispatchHarness> {
  const h: DispatchHarness = { x: undefined as unknown as Fake, createdFor: [], judged: [], observed: [], records: [], ran: [] };
  const tool: DispatcherTool = {
    kind: "sql",
    argument: "sql",
    create: (session) => {
      h.createdFor.push(session);
      if (h.createdFor.length <= (script.createFails ?? 0)) throw new Error("no database");
      const judge: DispatchJudge = {
        judge: (call, text) => {
          h.judged.push({ call, text });
          return script.verdict(text, call) as DispatchVerdict;
        },
      };
      if (script.observe !== "none") {
        judge.observe = (v, outcome) => {
          h.observed.push([v.action, outcome]);
          if (script.observe === "throws") throw new Error("journal is read-only");
        };
      }
      return judge;
    },
  };
  const fails = over.recordFails;
  h.x = await fake({
    policy: over.policy ?? "veto",
    gateway: {
      dispatchers: new Map([["query", tool]]),
      ...(fails === null ? {} : {
        recordDispatch: (_guard, record) => {
          if (fails?.(record)) throw new Error("audit disk full");
          h.records.push(record);
        },
      }),
      ...(over.timeoutMs === undefined ? {} : { timeoutMs: over.timeoutMs }),
    },
  });
  h.x.overrides.set("query", { kind: "answer", fn: (a) => (h.ran.push(String(a.sql)), { content: [{ type: "text", text: `ok: ${String(a.sql)}` }] }) });
  return h;
}

export const metaOf = (r: { _meta?: Record<string, unknown> }): Record<string, unknown> => r._meta?.[DECISION_META_KEY] as Record<string, unknown>;

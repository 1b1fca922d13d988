// Checking an MCP gateway dispatcher tool's record (`polar-dispatch/1`, ./dispatch-record.ts) in
// `verifyAuditLog` (pass it as `dispatchRecords`; `polar audit verify` does). Apart from ./verify.ts so
// the default bundle does not carry it.
import { DECISION_FORMAT } from "../guard/decision.js";
import type { DispatchRecordCheck } from "./verify.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An MCP gateway dispatcher tool's record (src/mcp/gateway.ts): each core decision inside it is
 * replayed; it ran only if allowed (or asked and consented to), and `allow` follows from the decisions
 * (all approve, at least one) or from a read-only approval's evidence, re-derived. */
export const verifyDispatchRecord: DispatchRecordCheck = (rec, ctx) => {
  const miss = ctx.miss;
  if (typeof rec.tool !== "string" || typeof rec.text !== "string" || typeof rec.reason !== "string") miss("tool", "a tool, its judged text and a reason", { tool: rec.tool, text: rec.text, reason: rec.reason });
  if (rec.dispatcher !== "sql" && rec.dispatcher !== "shell") miss("dispatcher", "sql or shell", rec.dispatcher);
  const decisions = rec.decisions;
  if (!Array.isArray(decisions)) {
    miss("decisions", "a list of decision records", decisions);
    return;
  }
  decisions.forEach((d: unknown, i) => {
    if (!isRecord(d) || d.format !== DECISION_FORMAT) {
      miss(`decisions[${i}]`, "a decision record", d);
      return;
    }
    ctx.replay(d, `decisions[${i}]`);
  });
  if (!["allow", "ask", "deny"].includes(rec.action as string)) miss("action", "allow, ask or deny", rec.action);
  if (!["pending", "ran", "failed", "unknown", "refused"].includes(rec.outcome as string)) miss("outcome", "pending, ran, failed, unknown or refused", rec.outcome);
  const consented = rec.consented === true;
  if (rec.consented !== undefined && rec.consented !== true) miss("consented", "true or absent", rec.consented);
  const sent = rec.outcome !== "refused";
  if (sent && rec.action !== "allow" && !(rec.action === "ask" && consented)) miss("outcome", "refused (the call was not allowed)", rec.outcome);
  if (consented && rec.action !== "ask") miss("consented", "only on an asked call", rec.action);
  if (rec.action === "allow") {
    const all = decisions.length > 0 && decisions.every((d) => isRecord(d) && d.approved === true);
    const readOnly = !all && decisions.length === 0 && dispatchReadOnlyHolds(rec, ctx);
    if (!all && !readOnly) miss("action", "deny (no decision approves the call)", rec.action);
  }
  if (rec.action === "ask" && consented && sent) {
    const asked = decisions.length > 0 && decisions.every((d) => isRecord(d) && (d.approved === true || d.route === "ConsentEscalated"));
    if (!asked) miss("action", "deny (no decision asks for this call)", rec.action);
  }
};

function dispatchReadOnlyHolds(rec: Record<string, unknown>, ctx: Parameters<DispatchRecordCheck>[1]): boolean {
  const miss = ctx.miss;
  const ev = rec.readOnly;
  if (!isRecord(ev)) {
    miss("readOnly", "the evidence of a read-only approval", ev);
    return false;
  }
  if (rec.dispatcher === "shell") {
    // The shell guard's evidence, re-derived as the hooks' is (its command must be the judged text).
    const code = ev.creationOnly === true || rec.reason === "creation_only" ? "creation_only" : "read_only";
    return ctx.shellReadOnly(code, ev, rec.text as string);
  }
  const dialect = ev.dialect;
  if (typeof dialect !== "string") {
    miss("readOnly.dialect", "the statement's dialect", dialect);
    return false;
  }
  if (ctx.sqlReadOnly === undefined) {
    miss("readOnly", "an SQL checker to re-derive it (sqlReadOnly)", ev);
    return false;
  }
  const why = ctx.sqlReadOnly(rec.text as string, dialect);
  if (why !== null) {
    miss("readOnly", why, "read-only");
    return false;
  }
  return true;
}

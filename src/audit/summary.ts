// `polar audit summary`: what a decision log says, for a person. Its main use is shadow mode (a guard
// run with the Advisory policy in front of a live agent): every call ran, and each record still says
// what enforcement would have done. Under the Veto policy every call the verdict does not admit is
// refused; under Escalate the same calls are put to the user, except those the guard could not judge
// (unknown tool, malformed call, missing entity, internal error), which are refused outright. So both
// follow from the recorded `admissible` and `reason`, whatever policy wrote the log.
import { DISPATCH_RECORD_FORMAT } from "./dispatch-record.js";
import { HARD_FAIL_REASONS, type GuardReason } from "../policies/types.js";
import { splitJsonl } from "./jsonl.js";
import { OUTCOME_FORMAT, outcomeProblems } from "./outcome.js";

export interface LogSummary {
  /** Decision records read. */
  decisions: number;
  /** Records by route as logged. */
  routes: Record<string, number>;
  /** Records whose call was let run (approved) / was not. */
  ran: number;
  blocked: number;
  /** Calls the Veto policy would have refused: every record whose verdict does not admit the call. */
  wouldVeto: { total: number; byReason: Record<string, number>; byTool: Record<string, number> };
  /** Of those, the calls Escalate would have put to the user instead of refusing. */
  wouldAsk: { total: number; byTool: Record<string, number> };
  /** Outcome records (src/audit/outcome.ts) by outcome: what finally happened to approved calls. An
   * approved call whose outcome is `refused` did not run: it counts as blocked, not ran. */
  outcomes: Record<string, number>;
  /** Lines that are neither decision nor outcome records (line numbers, 1-based). */
  unreadable: number[];
  /** An MCP gateway's dispatcher tool calls (`polar-dispatch/1`), `dispatcher action outcome` → count
   * (present only when the log holds any). */
  dispatched?: Record<string, number>;
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (Object.prototype.hasOwnProperty.call(map, key) ? map[key] : 0) + 1;
}

function toolOf(record: Record<string, unknown>): string {
  const name = (record.call as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : "(no tool name)";
}

export function summarizeLog(text: string): LogSummary {
  const s: LogSummary = {
    decisions: 0,
    routes: Object.create(null),
    ran: 0,
    blocked: 0,
    wouldVeto: { total: 0, byReason: Object.create(null), byTool: Object.create(null) },
    wouldAsk: { total: 0, byTool: Object.create(null) },
    outcomes: Object.create(null),
    unreadable: [],
  };
  for (const { line, text: t } of splitJsonl(text)) {
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(t) as Record<string, unknown>;
    } catch {
      s.unreadable.push(line);
      continue;
    }
    if (typeof r === "object" && r !== null && r.format === DISPATCH_RECORD_FORMAT) {
      s.dispatched ??= {};
      bump(s.dispatched, `${String(r.dispatcher)} ${String(r.action)} ${String(r.outcome)}`);
      continue;
    }
    if (typeof r === "object" && r !== null && r.format === OUTCOME_FORMAT) {
      if (outcomeProblems(r).length > 0) s.unreadable.push(line);
      else {
        bump(s.outcomes, r.outcome as string);
        if (r.outcome === "refused") {
          s.ran--;
          s.blocked++;
        }
      }
      continue;
    }
    if (typeof r !== "object" || r === null || typeof r.route !== "string" || typeof r.admissible !== "boolean" || typeof r.reason !== "string") {
      s.unreadable.push(line);
      continue;
    }
    s.decisions++;
    bump(s.routes, r.route);
    if (r.approved === true) s.ran++;
    else s.blocked++;
    if (r.admissible) continue;
    const tool = toolOf(r);
    s.wouldVeto.total++;
    bump(s.wouldVeto.byReason, r.reason);
    bump(s.wouldVeto.byTool, tool);
    if (!HARD_FAIL_REASONS.has(r.reason as GuardReason)) {
      s.wouldAsk.total++;
      bump(s.wouldAsk.byTool, tool);
    }
  }
  return s;
}

function table(map: Record<string, number>): string[] {
  return Object.entries(map)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `    ${String(n).padStart(6)}  ${k}`);
}

export function formatSummary(s: LogSummary, log: string): string {
  const pct = (n: number) => (s.decisions === 0 ? "0%" : `${((100 * n) / s.decisions).toFixed(1)}%`);
  const out = [
    `${log}: ${s.decisions} decision${s.decisions === 1 ? "" : "s"}; ${s.ran} ran, ${s.blocked} blocked`,
    `  routes:`,
    ...table(s.routes),
    `  would have vetoed (policy veto): ${s.wouldVeto.total} (${pct(s.wouldVeto.total)})`,
  ];
  if (s.wouldVeto.total > 0) out.push(`  by reason:`, ...table(s.wouldVeto.byReason), `  by tool:`, ...table(s.wouldVeto.byTool));
  out.push(`  of which asked instead (policy escalate): ${s.wouldAsk.total}`);
  if (Object.keys(s.outcomes).length > 0) out.push(`  outcomes of approved calls (what finally happened):`, ...table(s.outcomes));
  if (s.wouldAsk.total > 0) out.push(...table(s.wouldAsk.byTool));
  if (s.dispatched !== undefined) out.push(`  dispatcher tool calls (dispatcher, verdict, outcome):`, ...table(s.dispatched));
  if (s.unreadable.length > 0) out.push(`  ${s.unreadable.length} line(s) are not decision or outcome records: ${s.unreadable.slice(0, 20).join(", ")}${s.unreadable.length > 20 ? ", …" : ""}`);
  return out.join("\n");
}

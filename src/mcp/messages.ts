// What the gateway tells the model instead of running a call: what was not done, why, and what would
// make it safe. Plain text inside an `isError: true` tool result, so any MCP client shows it to the
// model as the call's outcome. Deterministic (a function of the decision), like the library's refusals.
import type { Decision } from "../guard/decision.js";

const FIXED_ONE = 1_000_000;

function fmt(fixed: number): string {
  return String(Math.round((fixed / FIXED_ONE) * 1000) / 1000);
}

/** "what would make it safe", per reason. `ungrounded` is the domain's own advice (projection.json). */
function remedy(d: Decision, ungrounded: string | undefined, policy: string): string {
  switch (d.reason) {
    case "missing_entity":
      return ungrounded ?? "Check that the arguments name something that exists on the server: the guard could not read a state from which this call can be undone.";
    case "unknown_tool":
      return "This tool is not in the guard's ontology, so nothing about undoing it is known; an operator has to annotate it (`polar draft`, then review and `polar promote`).";
    case "malformed_call":
      return "Fix the arguments and call again.";
    case "unknown_state":
      return "Read the state again (e.g. list or read what it acts on) after checking what the earlier call did; in session scope the user or operator has to confirm the state, since the earlier call cannot be undone reliably.";
    case "internal_error":
      return "Nothing about this call is known to be unsafe, but the guard could not judge it; try again, and if it persists the operator has to look at the gateway's log.";
    case "external_side_effect":
    case "irreversibly_consumes":
      return policy === "escalate" ? "Only the user can approve it." : "Only the user can approve it: ask them, and the operator can run the gateway with `--policy escalate` so the gateway asks for consent.";
    default:
      return policy === "escalate"
        ? "Prefer a call whose effect can be undone, or ask the user to approve this one."
        : "Prefer a call whose effect can be undone (for example one that changes less at once), or ask the user; the operator can run the gateway with `--policy escalate` to have consent asked.";
  }
}

function why(d: Decision): string {
  const v = d.verdict;
  const bn = v?.bottleneck;
  switch (d.reason) {
    case "missing_entity":
      return "the server's state, read just before, is not one from which the guard knows how to undo it";
    case "unknown_tool":
      return "the guard does not know this tool";
    case "malformed_call":
      return `the call is malformed${d.detail ? ` (${d.detail})` : ""}`;
    case "unknown_state":
      return `an earlier call on what it touches may or may not have run (it was cancelled, timed out or its answer was lost)${d.detail ? ` (${d.detail})` : ""}, so the guard cannot say how to undo it`;
    case "internal_error":
      return `the guard failed while judging it${d.detail ? ` (${d.detail})` : ""}`;
    case "external_side_effect":
      return `its effect leaves the system${bn?.tool ? ` (\`${bn.tool}\`)` : ""} and cannot be recalled`;
    case "irreversibly_consumes":
      return "it consumes something that cannot be restored";
    case "below_threshold":
      return `the best way to undo it scores ${fmt(v?.phi ?? 0)}, below the required ${fmt(d.tau)}${bn?.annotation ? ` (annotation \`${bn.annotation}\`)` : ""}`;
    case "bound_violated":
      return `the condition under which it can be undone does not hold now${bn?.annotation ? ` (annotation \`${bn.annotation}\`)` : ""}`;
    case "no_candidate":
      return "no way to undo it applies in the current state";
    case "overlap_conflict":
      return "undoing it would conflict with undoing an earlier call of this session";
    case "depth_exceeded":
      return "too many calls would have to be undone together";
    default:
      return `reason \`${d.reason}\``;
  }
}

/** The refusal text for a call the guard did not let run. */
export function refusalText(name: string, d: Decision, ungrounded: string | undefined, policy: string): string {
  return `Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. ` +
    `Why: ${why(d)}. What would make it safe: ${remedy(d, ungrounded, policy)}`;
}

/** The refusal when consent was needed but could not be asked or was not given. */
export function consentRefusalText(name: string, question: string, outcome: "unsupported" | "declined" | "cancelled" | "stale" | "failed" | "unshowable", detail?: string): string {
  const head = `Not run: \`${name}\` was stopped by the POLAR guard, so nothing was changed. It needs the user's consent: ${question}`;
  switch (outcome) {
    case "unsupported":
      return `${head} Consent could not be asked: this MCP client does not support elicitation (form mode). Ask the user yourself; the operator can also approve it out of band.`;
    case "declined":
      return `${head} The user declined.`;
    case "cancelled":
      return `${head} The user dismissed the request without answering.`;
    case "stale":
      return `${head} The user agreed, but ${detail ?? "the state changed"} before it could run, so the approval no longer covers it. Ask again if it is still wanted.`;
    case "failed":
      return `${head} Asking failed${detail ? ` (${detail})` : ""}.`;
    case "unshowable":
      return `${head} It was not put to the user: ${detail ?? "it is too large to show whole"}, and consent is only asked for a call the user can see entirely. Split it into smaller calls.`;
  }
}

/** The largest call (its arguments as indented JSON, characters) put to the user whole; a larger one
 * is refused rather than shown in part: the user must see everything they approve. */
export const MAX_SHOWN_CALL = 4000;
/** Each value of what would be lost is previewed up to this many characters (with the length said). */
const MAX_PREVIEW = 300;

/** What a call acts on: its acts_on entity and key argument (null for a tool without a key). */
export interface ConsentTarget {
  entity: string;
  keyArg: string;
  key: unknown;
}

function preview(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length <= MAX_PREVIEW ? text : `${text.slice(0, MAX_PREVIEW)}… (${text.length} characters in all)`;
}

/**
 * The elicitation message: the guard's question, then always what the call acts on (the key argument,
 * first, in full), what the server holds there now (what would be lost if the call cannot be undone),
 * and the exact call with every argument. `ok: false` when that cannot be shown whole (the call's
 * JSON over MAX_SHOWN_CALL): the call is then refused, never put to the user in part.
 */
export function consentMessage(name: string, args: Record<string, unknown>, question: string, target: ConsentTarget | null, reads: readonly (readonly [string, string, string | null, unknown?])[] = []): { ok: true; message: string } | { ok: false; why: string } {
  const shown = JSON.stringify(args, null, 2);
  if (shown.length > MAX_SHOWN_CALL) {
    return { ok: false, why: `the call's arguments are ${shown.length} characters as JSON, more than the ${MAX_SHOWN_CALL} the user can be shown whole` };
  }
  const lines = [question, ""];
  if (target !== null) {
    lines.push(`It acts on: the ${target.entity} \`${target.keyArg}\` = ${JSON.stringify(target.key) ?? "(missing)"}.`);
    const held = reads.filter((r) => r[0] === target.entity && r[1] === String(target.key) && r[2] !== null && r.length > 3);
    if (held.length > 0) {
      lines.push("What is there now (what would be lost if it cannot be undone):");
      for (const r of held) lines.push(`  ${r[2]}: ${preview(r[3])}`);
    } else lines.push("What is there now: nothing the guard could read (it may not exist yet).");
  } else lines.push(`It acts on: not one named thing (\`${name}\` has no key argument); read every argument below.`);
  lines.push("", `The call: ${name}`, shown);
  return { ok: true, message: lines.join("\n") };
}

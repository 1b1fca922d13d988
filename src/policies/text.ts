// The words a policy shows instead of running a call. Deterministic (same input, same text) so an
// audit replay reproduces them exactly; they name the reason and the bottleneck so a user, an agent
// or an auditor can see why.
import { FIXED_ONE } from "../abi.js";
import type { EdgeTable, OntologyTables } from "../ontology/tables.js";
import type { PolicyInput } from "./types.js";

/** A fixed-point number as a short decimal: 800000 → "0.8", 1000000 → "1", 0 → "0". */
export function formatFixed(n: number): string {
  const sign = n < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(n));
  const whole = Math.floor(abs / FIXED_ONE);
  // The six fraction digits without their trailing zeros: the zeros divided off, the rest padded.
  let frac = abs % FIXED_ONE;
  if (frac === 0) return `${sign}${whole}`;
  let digits = 6;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  return `${sign}${whole}.${String(frac).padStart(digits, "0")}`;
}

const edgeIndex = new WeakMap<OntologyTables, Map<string, EdgeTable>>();

/** The annotation behind a verdict's bottleneck (ids are unique within an ontology). */
export function edgeById(tables: OntologyTables, id: string | null): EdgeTable | undefined {
  if (id === null) return undefined;
  let m = edgeIndex.get(tables);
  if (m === undefined) {
    m = new Map(tables.edges.map((e) => [e.id, e]));
    edgeIndex.set(tables, m);
  }
  return m.get(id);
}

function toolName(input: PolicyInput): string {
  return typeof input.call?.name === "string" ? input.call.name : "(malformed call)";
}

const HARD_WHY: Record<string, string> = {
  malformed_call: "the call is malformed",
  unknown_tool: "the guard has no reversibility annotation for this tool",
  missing_entity: "the record it acts on is not in the known state",
  internal_error: "the reversibility check failed",
  unrequested_mutation: "the request did not ask for a change",
  unknown_state: "the result of an earlier change to what it reads could not be read, so its state is unknown",
};

/** Where the verdict's weak point is: "bottleneck `id` on `tool` (line L)". */
function bottleneckText(input: PolicyInput): string {
  const b = input.verdict?.bottleneck;
  if (b === undefined || b === null) return "";
  const on = b.tool !== null ? `on \`${b.tool}\`` : null;
  if (b.annotation === null) return on === null ? "" : `; bottleneck ${on}`;
  const annotation = `annotation \`${b.annotation}\`${b.line !== null ? ` at line ${b.line}` : ""}`;
  return on === null ? `; bottleneck ${annotation}` : `; bottleneck ${annotation} ${on}`;
}

/** The static refusal of the Veto policy. */
export function refusalText(input: PolicyInput): string {
  const name = toolName(input);
  const hard = HARD_WHY[input.reason];
  if (hard !== undefined) return `I can't run \`${name}\`: ${hard} (reason \`${input.reason}\`${bottleneckText(input)}).`;
  const v = input.verdict;
  const score = v === null ? "" : v.complete ? `, φ = ${formatFixed(v.phi)} < τ = ${formatFixed(input.tau)}` : ", no complete undo path";
  return `I can't run \`${name}\`: it cannot be safely undone (reason \`${input.reason}\`${score}${bottleneckText(input)}).`;
}

/** An ontology name in words: `voucher_value` → "voucher value". */
function words(name: string): string {
  return name.replace(/[_-]+/gu, " ").trim();
}

/** What the call acts on, as the user knows it: "reservation `R1`" (the tool's entity and its key
 * argument or constant); null when the tool names no entity or the key has no plain value. */
function targetText(input: PolicyInput, name: string): string | null {
  const tool = input.tables.tools.find((t) => t.name === name);
  if (tool === undefined || tool.actsOn < 0) return null;
  const entity = input.tables.entities[tool.actsOn]?.name;
  if (entity === undefined) return null;
  let id: unknown = tool.keyConst;
  if (id === null && tool.keyArg !== null) {
    const args = input.call?.arguments as Record<string, unknown> | undefined;
    id = typeof args === "object" && args !== null && Object.prototype.hasOwnProperty.call(args, tool.keyArg) ? args[tool.keyArg] : null;
  }
  if (typeof id !== "string" && typeof id !== "number") return null;
  const text = String(id);
  return `${words(entity)} \`${text.length > 80 ? `${text.slice(0, 79)}…` : text}\``;
}

/**
 * The deterministic consent question of the Escalate policy: what the call does to what (the tool and
 * the record it acts on), what would be lost and why, in words (no reason codes), then the question.
 * The sink or resource is the bottleneck's, which in a multi-call sequence may belong to an earlier
 * call than the candidate. A call that can be undone, only not reliably enough (φ below τ), is never
 * said to be impossible to undo.
 */
export function consentQuestion(input: PolicyInput): string {
  const name = toolName(input);
  const v = input.verdict;
  const edge = edgeById(input.tables, v?.bottleneck.annotation ?? null);
  const culprit = v?.bottleneck.tool ?? name;
  const target = targetText(input, name);
  const call = `\`${name}\`${target === null ? "" : ` on ${target}`}`;
  const lead = culprit === name ? `Running ${call}` : `Running ${call} after the earlier \`${culprit}\``;
  const subject = culprit === name ? "it" : `\`${culprit}\``;
  const bottleneck = v?.bottleneck.reason ?? input.reason;
  let why: string;
  if (bottleneck === "external_side_effect" && edge !== undefined && edge.sink >= 0) {
    const sink = input.tables.sinks[edge.sink];
    why = `${subject} sends its effect to ${sink.external ? "the external sink" : "the sink"} \`${sink.name}\`, which cannot be recalled once sent`;
  } else if (bottleneck === "irreversibly_consumes" && edge !== undefined) {
    const slot = edge.slot >= 0 ? input.tables.slots[edge.slot] : undefined;
    const resource = slot === undefined ? "a resource" : `the ${words(input.tables.entities[slot.entity].name)}'s ${words(slot.name)}`;
    const loss = edge.lossClass >= 0 ? ` (what is lost: ${words(input.tables.lossClasses[edge.lossClass].name)})` : "";
    why = `${subject} consumes ${resource} for good${loss}, and that cannot be restored`;
  } else if (v !== null && v.complete && v.phi > 0) {
    why = `it can be undone, but not reliably enough: the best way back is rated ${formatFixed(v.phi)} out of 1, below the ${formatFixed(input.tau)} required`;
  } else if (bottleneck === "bound_violated") {
    const missing = v?.bottleneck.missingArguments ?? [];
    why =
      missing.length > 0
        ? `the way to undo it needs ${missing.map((a) => `\`${a}\``).join(", ")}, which the call does not give, so it could not be undone`
        : "the way to undo it does not apply here (a condition of the undo, such as a deadline or a limit, does not hold now), so it could not be undone";
  } else if (bottleneck === "overlap_conflict") {
    why = "together with the earlier calls of this conversation that change the same records, it could not be undone reliably";
  } else if (bottleneck === "no_candidate") {
    why = "there is no known way to undo it";
  } else if (bottleneck === "depth_exceeded") {
    why = "working out how to undo it took more steps than the guard allows, so it is treated as not undoable";
  } else if (bottleneck === "unrequested_mutation") {
    why = "the request did not ask for a change";
  } else {
    why = "it could not be undone reliably";
  }
  return `${lead}: ${why}. Do you confirm? (yes/no)`;
}

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
  const frac = String(abs % FIXED_ONE).padStart(6, "0").replace(/0+$/u, "");
  return frac === "" ? `${sign}${whole}` : `${sign}${whole}.${frac}`;
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
  const parts: string[] = [];
  if (b.annotation !== null) parts.push(`annotation \`${b.annotation}\`${b.line !== null ? ` at line ${b.line}` : ""}`);
  if (b.tool !== null) parts.push(`on \`${b.tool}\``);
  return parts.length === 0 ? "" : `; bottleneck ${parts.join(" ")}`;
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

/** The deterministic, sink-aware consent question of the Escalate policy. The sink or resource is the
 * bottleneck's, which in a multi-call sequence may belong to an earlier call than the candidate. */
export function consentQuestion(input: PolicyInput): string {
  const name = toolName(input);
  const v = input.verdict;
  const edge = edgeById(input.tables, v?.bottleneck.annotation ?? null);
  const culprit = v?.bottleneck.tool ?? name;
  const lead = culprit === name ? `\`${name}\`` : `Running \`${name}\` after the earlier \`${culprit}\`: \`${culprit}\``;
  if (v !== null && v.bottleneck.reason === "external_side_effect" && edge !== undefined && edge.sink >= 0) {
    const sink = input.tables.sinks[edge.sink];
    const where = sink.external ? "the external sink" : "the sink";
    return `${lead} sends its effect to ${where} \`${sink.name}\`, which cannot be recalled once sent. Do you confirm? (yes/no)`;
  }
  if (v !== null && v.bottleneck.reason === "irreversibly_consumes" && edge !== undefined) {
    const slot = edge.slot >= 0 ? input.tables.slots[edge.slot] : undefined;
    const resource = slot === undefined ? "a resource" : `\`${input.tables.entities[slot.entity].name}.${slot.name}\``;
    const loss = edge.lossClass >= 0 ? ` (loss: \`${input.tables.lossClasses[edge.lossClass].name}\`)` : "";
    return `${lead} irreversibly consumes ${resource}${loss}, which cannot be restored. Do you confirm? (yes/no)`;
  }
  return `\`${name}\` cannot be safely undone by me (reason \`${input.reason}\`). Do you confirm? (yes/no)`;
}

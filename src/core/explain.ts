// A verdict as readable text: the inverse sequence with its arguments, the score, and the bottleneck
// with the annotation and its source line. Used by `polar verdict` and by logs; not on the hot path.
import { FIXED_ONE } from "../abi.js";
import type { Verdict, VerdictStep } from "./types.js";

/** A fixed-point integer as a decimal: 855000 → "0.855", 1000000 → "1", 0 → "0". */
export function fixedToDecimal(fixed: number): string {
  const sign = fixed < 0 ? "-" : "";
  const abs = Math.abs(fixed);
  const whole = Math.floor(abs / FIXED_ONE);
  const frac = String(abs % FIXED_ONE).padStart(6, "0").replace(/0+$/, "");
  return frac === "" ? `${sign}${whole}` : `${sign}${whole}.${frac}`;
}

const REASON_TEXT: Record<Verdict["reason"], string> = {
  ok: "reversible: a complete inverse sequence reaches the threshold",
  no_candidate: "no admissible inverse for a call",
  external_side_effect: "a call emits to an external sink",
  irreversibly_consumes: "a call consumes a resource beyond recovery",
  bound_violated: "an inverse exists but its condition does not hold (its bound or `when` is not true, or a required argument has no value)",
  unknown_tool: "a call's tool is not in the ontology",
  overlap_conflict: "calls conflict: a later inverse does not restore an entity an earlier inverse needs",
  depth_exceeded: "the search bound was exceeded",
  below_threshold: "the best inverse sequence scores below the threshold",
};

function sourceLine(source: string | undefined, line: number | null): string | null {
  if (source === undefined || line === null || line < 1) return null;
  const text = source.split(/\r?\n/)[line - 1];
  return text === undefined ? null : text.trim();
}

function stepLine(s: VerdictStep, k: number): string {
  const head = `  ${k + 1}. undo call ${s.call} (${s.forwardTool})`;
  const action = s.tool === null ? "no inverse (fail-closed)" : `${s.tool}(${JSON.stringify(s.arguments ?? {})})`;
  const extra = [s.lossClass !== null ? `loss class ${s.lossClass}` : null, s.sink !== null ? `sink ${s.sink}` : null]
    .filter((x) => x !== null)
    .join(", ");
  return `${head}: ${action}  [${s.tier} ${s.annotation} @${s.line}:${s.col}, φ = ${fixedToDecimal(s.phi)}, loss = ${fixedToDecimal(s.loss)}${extra ? `, ${extra}` : ""}]`;
}

/** The readable explanation of `verdict`; with the ontology `source`, the bottleneck's line is quoted. */
export function explainVerdict(verdict: Verdict, source?: string): string {
  const lines: string[] = [];
  lines.push(`verdict: ${verdict.reason} — ${REASON_TEXT[verdict.reason]}`);
  if (verdict.complete) {
    lines.push(`score: φ = ${fixedToDecimal(verdict.phi)}, cumulative loss = ${fixedToDecimal(verdict.loss)}`);
    if (verdict.steps.length === 0) lines.push("inverse sequence: empty (no mutating call)");
    else {
      lines.push(`inverse sequence (most recent call first, ${verdict.steps.length} step${verdict.steps.length === 1 ? "" : "s"}):`);
      verdict.steps.forEach((s, k) => lines.push(stepLine(s, k)));
    }
  } else {
    lines.push("no complete inverse sequence");
  }
  const b = verdict.bottleneck;
  if (b.call >= 0 || b.annotation !== null) {
    const where = b.call >= 0 ? `call ${b.call}${b.tool !== null ? ` (${b.tool})` : ""}` : "the sequence";
    lines.push(`bottleneck: ${where}${b.annotation !== null ? `, annotation ${b.annotation} at line ${b.line}:${b.col}` : ""}`);
    const quoted = sourceLine(source, b.line);
    if (quoted !== null) lines.push(`  ${b.line} | ${quoted}`);
    if (b.missingArguments !== undefined) lines.push(`  the inverse call lacks a value for: ${b.missingArguments.join(", ")}`);
  }
  lines.push(`search: ${verdict.nodes} node${verdict.nodes === 1 ? "" : "s"} visited`);
  return lines.join("\n");
}

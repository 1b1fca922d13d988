// What the compiler refuses to build, so a hostile or runaway source costs bounded time and memory.
import { MAX_PROGRAM_LEN } from "../abi.js";

export interface CompileLimits {
  /** Source size in UTF-8 bytes (`source-too-large`). */
  sourceBytes: number;
  /** Declared tools, read-only ones included. */
  tools: number;
  /** Annotations (edges). */
  edges: number;
  /** Instructions in one compiled bound program (the core's own cap is MAX_PROGRAM_LEN). */
  programInstructions: number;
  /** Entries in the string pool. */
  strings: number;
  /** Nesting depth of one expression: brackets, `not`, function calls and operator chains. */
  expressionDepth: number;
  /** Operands the host must supply for one tool's bounds. */
  operandsPerTool: number;
  /** Diagnostics reported before the compiler stops listing them. */
  diagnostics: number;
}

export const DEFAULT_LIMITS: Readonly<CompileLimits> = Object.freeze({
  sourceBytes: 4 * 1024 * 1024,
  tools: 20_000,
  edges: 100_000,
  programInstructions: MAX_PROGRAM_LEN,
  strings: 1_000_000,
  expressionDepth: 256,
  operandsPerTool: 256,
  diagnostics: 1000,
});

/** The defaults overridden by `partial` (a value that is not a non-negative integer keeps its default),
 * with the program length clamped to what the core accepts. */
export function resolveLimits(partial: Partial<CompileLimits> | undefined): CompileLimits {
  const limits: CompileLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof CompileLimits)[]) {
    const v = partial?.[key];
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) limits[key] = v;
  }
  limits.programInstructions = Math.min(limits.programInstructions, MAX_PROGRAM_LEN);
  return limits;
}

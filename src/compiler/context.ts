// State shared by the checker passes: the source (for spans), the diagnostics list, the limits and the
// string pool the blob will carry.
import type { Span } from "../ontology/tables.js";
import type { Node } from "./ast.js";
import { makeDiagnostic, type DiagnosticCode, type DiagnosticList } from "./diagnostics.js";
import type { CompileLimits } from "./limits.js";
import type { SourceText } from "./source.js";

/** Strings in order of first use: the order is a pure function of the source, so the pool is
 * deterministic, and interned ids of bound literals index it directly. */
export class StringPool {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  intern(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

export class Context {
  readonly pool = new StringPool();

  constructor(
    readonly src: SourceText,
    readonly diags: DiagnosticList,
    readonly limits: CompileLimits,
  ) {}

  span(node: Node): Span {
    return this.src.span(node.start, Math.max(node.end, node.start + 1));
  }

  report(code: DiagnosticCode, message: string, node: Node, help?: string): void {
    this.diags.push(makeDiagnostic(code, message, this.span(node), help));
  }
}

/** The closest known name within two edits, for a "did you mean" help. */
export function suggest(name: string, known: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    if (Math.abs(k.length - name.length) >= bestDistance) continue;
    const d = editDistance(name, k, bestDistance);
    if (d < bestDistance) { best = k; bestDistance = d; }
  }
  return best;
}

function editDistance(a: string, b: string, cap: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= cap) return cap;
    prev = cur;
  }
  return prev[b.length];
}

/** Help text with a suggestion when there is one. */
export function didYouMean(name: string, known: Iterable<string>, fallback: string): string {
  const s = suggest(name, known);
  return s === null ? fallback : `did you mean \`${s}\`? ${fallback}`;
}

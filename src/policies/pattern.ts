// Regular expressions built when first used. Building the consent detector's patterns (Unicode
// property classes) at import cost ~3 ms of a cold start that a guard whose policy never reads consent
// need not pay (bench: cold-node).

/** What the detector asks of a pattern (a RegExp, or one built on first use). */
export interface Pattern {
  readonly source: string;
  exec(text: string): RegExpExecArray | null;
  test(text: string): boolean;
}

class LazyPattern implements Pattern {
  private re: RegExp | null = null;
  constructor(readonly source: string, private readonly flags: string) {}

  private get regExp(): RegExp {
    return (this.re ??= new RegExp(this.source, this.flags));
  }

  exec(text: string): RegExpExecArray | null {
    return this.regExp.exec(text);
  }

  test(text: string): boolean {
    return this.regExp.test(text);
  }
}

const made: LazyPattern[] = [];

/** `new RegExp(source, flags)`, built on its first exec or test. */
export function pattern(source: string, flags: string): Pattern {
  const p = new LazyPattern(source, flags);
  made.push(p);
  return p;
}

/** Builds every pattern made so far (a broken one throws here): for tests, and for a service that
 * wants the cost at startup rather than at its first consent answer. */
export function compilePatterns(): void {
  for (const p of made) p.test("");
}

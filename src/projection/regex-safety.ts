// Bounding the work of a rules author's regular expression on text the model controls (tool arguments,
// tool results). JavaScript's engine backtracks: `(a+)+$` on 30 `a`s and a `b` takes seconds, on 40
// hours, and nothing can interrupt a running match. So a pattern is judged once, when the rules are
// parsed, and a match may only start on input whose worst case fits a fixed budget of steps:
//
// - refused outright (a rules issue `unsafe-regex`): backreferences (matching them is NP-hard), a
//   quantifier that repeats more than once applied to a group that itself holds a quantifier or an
//   alternation (`(a+)+`, `(a|a)*`, `(a?){30}`: the backtracking is exponential in the input), and
//   patterns whose fixed branching alone (bounded repeats, alternatives) exceeds the budget;
// - bounded by input length: with no such nesting, a backtracking match costs at most about
//   F · n^d steps for input length n, where d counts the unbounded quantifiers (plus one for the start
//   positions of a pattern not anchored with `^`) and F the fixed branching. The longest input a match
//   may start on is the largest n with F · n^d ≤ REGEX_STEP_BUDGET (and at most REGEX_MAX_INPUT);
//   longer text is not matched, and the expression's value is missing, as for a non-string.
//
// The scan below follows the ECMAScript pattern grammar far enough to find groups, quantifiers,
// alternations, classes and escapes; a pattern it cannot follow is refused (it was compiled by the
// engine first, so that is only a shape this scan does not know).

/** Worst-case steps one match may take (about 0.1–0.5 s of CPU in V8 at the most). */
export const REGEX_STEP_BUDGET = 1e8;
/** Longest text (UTF-16 code units) any regex is run on. */
export const REGEX_MAX_INPUT = 1 << 20;
/** A bounded repeat spanning more than this many counts is costed as unbounded. */
const SMALL_SPAN = 16;

export type RegexVerdict = { ok: true; maxInput: number } | { ok: false; reason: string };

interface Frame {
  quantified: boolean; // holds a quantifier
  alternation: boolean; // holds a `|`
  alternatives: number;
}

/** Judges a pattern (already accepted by `new RegExp(pattern, flags)`). */
export function judgeRegex(pattern: string, flags: string): RegexVerdict {
  let degree = 0;
  let fixed = 1;
  const stack: Frame[] = [{ quantified: false, alternation: false, alternatives: 1 }];
  // What a following quantifier applies to: null (nothing quantifiable), an atom, or a closed group.
  let last: null | { group: Frame | null } = null;
  const n = pattern.length;
  let i = 0;
  const bail = (reason: string): RegexVerdict => ({ ok: false, reason });
  while (i < n) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return bail("the pattern ends in `\\`");
      if (/[1-9]/u.test(next) || (next === "k" && pattern[i + 2] === "<")) {
        return bail("backreferences (`\\1`, `\\k<name>`) can take exponential time; match without them");
      }
      if ((next === "u" || next === "p" || next === "P") && pattern[i + 2] === "{") {
        const close = pattern.indexOf("}", i + 3);
        if (close < 0) return bail("an unterminated `{` escape");
        i = close + 1;
      } else if (next === "c") i += 3;
      else if (next === "x") i += 4;
      else if (next === "u") i += 6;
      else i += 2;
      // `\b`, `\B` are assertions: nothing to repeat (the engine refuses a quantifier there in `u`
      // mode; without it, treating them as atoms only over-counts).
      last = { group: null };
      continue;
    }
    if (ch === "[") {
      let j = i + 1;
      if (pattern[j] === "^") j++;
      if (pattern[j] === "]") j++; // `[]` is empty; `[]]` outside `u` mode: harmless to skip either way
      while (j < n && pattern[j] !== "]") j += pattern[j] === "\\" ? 2 : 1;
      if (j >= n) return bail("an unterminated character class");
      i = j + 1;
      last = { group: null };
      continue;
    }
    if (ch === "(") {
      if (pattern.startsWith("(?=", i) || pattern.startsWith("(?!", i)) i += 3;
      else if (pattern.startsWith("(?<=", i) || pattern.startsWith("(?<!", i)) i += 4;
      else if (pattern.startsWith("(?<", i)) {
        const close = pattern.indexOf(">", i);
        if (close < 0) return bail("an unterminated group name");
        i = close + 1;
      } else if (pattern.startsWith("(?", i)) {
        // `(?:`, and modifier groups `(?i:`, `(?-i:`
        const colon = pattern.indexOf(":", i);
        if (colon < 0 || !/^\(\?[a-z-]*$/u.test(pattern.slice(i, colon))) return bail("a group form this check does not know");
        i = colon + 1;
      } else i += 1;
      stack.push({ quantified: false, alternation: false, alternatives: 1 });
      last = null;
      continue;
    }
    if (ch === ")") {
      if (stack.length < 2) return bail("an unbalanced `)`");
      const g = stack.pop()!;
      fixed *= g.alternatives;
      const parent = stack[stack.length - 1];
      parent.quantified ||= g.quantified;
      parent.alternation ||= g.alternation;
      last = { group: g };
      i += 1;
      continue;
    }
    if (ch === "|") {
      const top = stack[stack.length - 1];
      top.alternation = true;
      top.alternatives += 1;
      last = null;
      i += 1;
      continue;
    }
    const q = quantifierAt(pattern, i);
    if (q !== null) {
      if (last === null) {
        i = q.end; // `{` as a literal outside `u` mode, or a quantifier on an assertion: nothing repeats
        continue;
      }
      const repeats = q.max > 1;
      if (repeats && last.group !== null && (last.group.quantified || last.group.alternation)) {
        return bail(
          `a repeated group holding ${last.group.quantified ? "a quantifier" : "an alternation"} (like \`(a+)+\` or \`(a|b)*\`) can take exponential time; use a character class or one quantifier`,
        );
      }
      stack[stack.length - 1].quantified = true;
      if (q.max === Infinity || q.max - q.min > SMALL_SPAN) degree += 1;
      else fixed *= q.max - q.min + 1;
      if (fixed > REGEX_STEP_BUDGET) return bail("its bounded repeats and alternatives branch too much");
      last = null;
      i = q.end;
      continue;
    }
    // `^`, `$`, `.` and literal characters
    last = ch === "^" || ch === "$" ? null : { group: null };
    i += 1;
  }
  if (stack.length !== 1) return bail("an unbalanced `(`");
  fixed *= stack[0].alternatives;
  if (fixed > REGEX_STEP_BUDGET) return bail("its bounded repeats and alternatives branch too much");
  // Every start position is tried unless the pattern is anchored at the text's start.
  const anchored = pattern.startsWith("^") && !flags.includes("m") && stack[0].alternatives === 1;
  if (!anchored) degree += 1;
  const room = REGEX_STEP_BUDGET / fixed;
  const maxInput = degree === 0 ? REGEX_MAX_INPUT : Math.min(REGEX_MAX_INPUT, Math.floor(Math.pow(room, 1 / degree)));
  return { ok: true, maxInput };
}

function quantifierAt(p: string, i: number): { min: number; max: number; end: number } | null {
  const ch = p[i];
  let min: number, max: number, end: number;
  if (ch === "*") [min, max, end] = [0, Infinity, i + 1];
  else if (ch === "+") [min, max, end] = [1, Infinity, i + 1];
  else if (ch === "?") [min, max, end] = [0, 1, i + 1];
  else if (ch === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/u.exec(p.slice(i, i + 40));
    if (m === null) return null;
    min = Number(m[1]);
    max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    end = i + m[0].length;
  } else return null;
  if (p[end] === "?") end += 1; // lazy: same worst case
  return { min, max, end };
}

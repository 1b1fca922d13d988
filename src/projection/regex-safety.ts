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
// alternations, classes and escapes (the engine compiled the pattern first, so it is well formed).

/** Worst-case steps one match may take (about 0.1–0.5 s of CPU in V8 at the most). */
export const REGEX_STEP_BUDGET = 1e8;
/** Longest text (UTF-16 code units) any regex is run on. */
export const REGEX_MAX_INPUT = 1 << 20;
/** A bounded repeat spanning more than this many counts is costed as unbounded. */
const SMALL_SPAN = 16;

export type RegexVerdict = { ok: true; maxInput: number } | { ok: false; reason: string };

// One token of a pattern: a backreference, an escape, a class, a group opening (plain, `(?:`,
// lookaround, named, modifiers), `)`, `|`, a quantifier (lazy or not), or one character.
const TOKEN = /\\(?:[1-9]|k<)|\\[upP]\{[^}]*\}|\\c.|\\x..|\\u.{4}|\\.|\[\^?\]?(?:\\.|[^\]\\])*\]|\((?:\?(?:<?[=!]|<[^>]*>|[a-z-]*:))?|[*+?]\??|\{(\d+)(,(\d*))?\}\??|[^]/gsy;

/** Judges a pattern (already accepted by `new RegExp(pattern, flags)`). A group frame is
 * [holds a quantifier, holds an alternation, its alternatives]. */
export function judgeRegex(pattern: string, flags: string): RegexVerdict {
  let degree = 0;
  let fixed = 1;
  const stack: [boolean, boolean, number][] = [[false, false, 1]];
  // What a following quantifier repeats: nothing (null), an atom (false) or a closed group.
  let last: null | false | [boolean, boolean, number] = null;
  const refuse = (what: string): RegexVerdict => ({ ok: false, reason: `${what} can take exponential time` });
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(pattern); m !== null && m[0] !== ""; m = TOKEN.exec(pattern)) {
    const t = m[0];
    const top = stack[stack.length - 1];
    const c = t[0];
    if (/^\\(?:[1-9]|k<)/u.test(t)) return refuse("a backreference");
    if (c === "(") {
      stack.push([false, false, 1]);
      last = null;
    } else if (c === ")") {
      if (stack.length < 2) return refuse("a shape this check cannot follow");
      const g = stack.pop()!;
      fixed *= g[2];
      stack[stack.length - 1][0] ||= g[0];
      stack[stack.length - 1][1] ||= g[1];
      last = g;
    } else if (c === "|") {
      top[1] = true;
      top[2]++;
      last = null;
    } else if ("*+?{".includes(c) && (c !== "{" || m[1] !== undefined)) {
      const min = c === "{" ? Number(m[1]) : c === "+" ? 1 : 0;
      const max = c === "?" ? 1 : c !== "{" || m[3] === "" ? Infinity : m[2] === undefined ? min : Number(m[3]);
      if (last === null) continue; // a quantifier on an assertion: nothing repeats
      if (max > 1 && last !== false && (last[0] || last[1])) {
        return refuse("a repeated group holding a quantifier or an alternation");
      }
      top[0] = true;
      if (max - min > SMALL_SPAN) degree++;
      else fixed *= max - min + 1;
      last = null;
    } else last = c === "^" || c === "$" ? null : false;
    if (fixed > REGEX_STEP_BUDGET) return refuse("so many branches");
  }
  if (stack.length !== 1) return refuse("a shape this check cannot follow");
  fixed *= stack[0][2];
  if (fixed > REGEX_STEP_BUDGET) return refuse("so many branches");
  // Every start position is tried unless the pattern is anchored at the text's start.
  if (!(pattern[0] === "^" && !flags.includes("m") && stack[0][2] === 1)) degree++;
  return { ok: true, maxInput: degree === 0 ? REGEX_MAX_INPUT : Math.min(REGEX_MAX_INPUT, Math.floor((REGEX_STEP_BUDGET / fixed) ** (1 / degree))) };
}

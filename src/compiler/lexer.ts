// Tokens of the Layer A language. A qualified name (`entity.slot`, `call.a.b`) is one token, so the
// statement-ending `.` is never confused with the dot inside a name: a dot continues a name only when
// an identifier character follows it directly.
import { makeDiagnostic, q, type DiagnosticList } from "./diagnostics.js";
import type { SourceText } from "./source.js";

export type TokenKind = "ident" | "path" | "number" | "string" | "punct" | "eof";

export interface Token {
  kind: TokenKind;
  text: string; // identifier / path / number text as written, punctuation itself, decoded string value
  parts: string[]; // path parts; empty for every other kind
  start: number; // offsets into the source text, end exclusive
  end: number;
  lineStart: boolean; // first token on its line (error recovery resynchronises on these)
  bad: boolean; // a lexical error was reported inside this token
}

const NO_PARTS: string[] = [];
const PUNCT1 = "(),.={}[]:@<>+-*";

export function lex(src: SourceText, diags: DiagnosticList): Token[] {
  const text = src.text;
  const tokens: Token[] = [];
  let i = 0;
  let lineStart = true;
  // The token after unexpected characters is marked bad: the parser then does not pile a second error
  // for the same mistake onto that statement.
  let afterJunk = false;
  const push = (kind: TokenKind, t: string, start: number, end: number, parts: string[] = NO_PARTS, bad = false) => {
    tokens.push({ kind, text: t, parts, start, end, lineStart, bad: bad || afterJunk });
    lineStart = false;
    afterJunk = false;
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 10) { lineStart = true; i++; continue; }
    if (c === 32 || c === 9 || c === 13) { i++; continue; }
    if (c === 37 /* % */ || (c === 47 /* / */ && text.charCodeAt(i + 1) === 47)) {
      i = skipLine(text, i);
      continue;
    }
    if (isIdentStart(c)) {
      const end = scanName(text, i);
      const word = text.slice(i, end);
      if (word.includes(".")) push("path", word, i, end, word.split("."));
      else push("ident", word, i, end);
      i = end;
      continue;
    }
    if (isDigit(c)) {
      const end = scanNumber(text, i);
      push("number", text.slice(i, end), i, end);
      i = end;
      continue;
    }
    if (c === 34 /* " */) {
      const s = scanString(text, i, src, diags);
      push("string", s.value, i, s.end, [], s.bad);
      i = s.end;
      continue;
    }
    if (text.charCodeAt(i + 1) === 61 /* = */ && (c === 61 || c === 33 || c === 60 || c === 62)) { // == != <= >=
      push("punct", text.slice(i, i + 2), i, i + 2);
      i += 2;
      continue;
    }
    if (PUNCT1.includes(text[i])) {
      push("punct", text[i], i, i + 1);
      i++;
      continue;
    }
    const end = scanUnexpected(text, i);
    const run = text.slice(i, end);
    const what = [...run].length === 1 ? "character" : "characters";
    diags.push(makeDiagnostic("syntax-error", `unexpected ${what} ${q(run)}`, src.span(i, end)));
    afterJunk = true;
    i = end;
  }
  tokens.push({ kind: "eof", text: "", parts: [], start: text.length, end: text.length, lineStart: true, bad: false });
  return tokens;
}

/** A run of characters that start no token: reported once, not once per character. */
function scanUnexpected(text: string, i: number): number {
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c <= 32 || isIdentStart(c) || isDigit(c) || c === 34 || c === 37 || c === 47 || PUNCT1.includes(text[j]) || text[j] === "!") break;
    j += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return Math.max(j, i + 1);
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isIdentChar(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function skipLine(text: string, i: number): number {
  const nl = text.indexOf("\n", i);
  return nl < 0 ? text.length : nl;
}

function scanName(text: string, i: number): number {
  let j = i;
  for (;;) {
    while (j < text.length && isIdentChar(text.charCodeAt(j))) j++;
    // A part after a dot may be a list index (`call.payment_methods.0.amount`).
    if (text.charCodeAt(j) === 46 /* . */ && isIdentChar(text.charCodeAt(j + 1))) j++;
    // `entity.*` (a residue naming every slot): the wildcard ends the name.
    else if (text.charCodeAt(j) === 46 /* . */ && text.charCodeAt(j + 1) === 42 /* * */) return j + 2;
    else return j;
  }
}

function scanNumber(text: string, i: number): number {
  let j = i;
  while (isDigit(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 46 && isDigit(text.charCodeAt(j + 1))) {
    j++;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

interface ScannedString { value: string; end: number; bad: boolean }

/** A string literal on one line. An unterminated string ends at the end of its line. */
function scanString(text: string, start: number, src: SourceText, diags: DiagnosticList): ScannedString {
  let j = start + 1;
  let value = "";
  let bad = false;
  while (j < text.length) {
    const c = text[j];
    if (c === '"') return { value, end: j + 1, bad };
    if (c === "\n" || c === "\r") break;
    if (c !== "\\") { value += c; j++; continue; }
    if (j + 1 >= text.length || text[j + 1] === "\n" || text[j + 1] === "\r") { j++; break; }
    const esc = scanEscape(text, j);
    if (esc.value === null) {
      bad = true;
      diags.push(makeDiagnostic("invalid-escape", `invalid escape ${q(text.slice(j, esc.end))} in a string`,
        src.span(j, esc.end)));
    } else value += esc.value;
    j = esc.end;
  }
  diags.push(makeDiagnostic("unterminated-string", "unterminated string", src.span(start, j)));
  return { value, end: j, bad: true };
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", t: "\t" };

/** One escape at `j` (the backslash). Lone surrogates are refused: the string pool must be UTF-8. */
function scanEscape(text: string, j: number): { value: string | null; end: number } {
  const c = text[j + 1];
  if (c !== undefined && c in SIMPLE_ESCAPES) return { value: SIMPLE_ESCAPES[c], end: j + 2 };
  if (c !== "u") return { value: null, end: Math.min(text.length, j + 2) };
  const hi = hex4(text, j + 2);
  if (hi < 0) return { value: null, end: j + 2 };
  if (hi >= 0xdc00 && hi <= 0xdfff) return { value: null, end: j + 6 };
  if (hi < 0xd800 || hi > 0xdbff) return { value: String.fromCharCode(hi), end: j + 6 };
  const lo = text.slice(j + 6, j + 8) === "\\u" ? hex4(text, j + 8) : -1;
  if (lo < 0xdc00 || lo > 0xdfff) return { value: null, end: j + 6 };
  return { value: String.fromCharCode(hi, lo), end: j + 12 };
}

function hex4(text: string, at: number): number {
  const h = text.slice(at, at + 4);
  return /^[0-9A-Fa-f]{4}$/.test(h) ? parseInt(h, 16) : -1;
}

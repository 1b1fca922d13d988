// The source text as the compiler sees it: decoded from UTF-8 (strictly: a byte that is not UTF-8 is a
// diagnostic, never a silent U+FFFD), with a line index that turns offsets into 1-based line:column
// spans. Columns count UTF-16 code units of the line, like JavaScript strings and most editors.
import type { Span } from "../ontology/tables.js";

export class SourceText {
  readonly text: string;
  private readonly lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    }
  }

  /** 1-based line and column of a string offset. */
  position(offset: number): { line: number; col: number } {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.lineStarts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: at - this.lineStarts[lo] + 1 };
  }

  /** A one-character span at `offset` that stays on its line (for "something is missing here"). */
  point(offset: number): Span {
    const a = this.position(offset);
    return { line: a.line, col: a.col, endLine: a.line, endCol: a.col + 1 };
  }

  /** The span of offsets [start, end): end is exclusive, so `endCol` is one past the last character. */
  span(start: number, end: number): Span {
    const a = this.position(start);
    const b = this.position(Math.max(start, end));
    return { line: a.line, col: a.col, endLine: b.line, endCol: b.col };
  }
}

export type Decoded = { ok: true; text: string } | { ok: false; byteOffset: number; text: string };

const BOM = 0xfeff;

/** Strict UTF-8 decoding. On failure reports the offset of the first bad byte and the text before it
 * (enough to place the diagnostic). A leading byte-order mark is dropped. */
export function decodeUtf8(bytes: Uint8Array): Decoded {
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    return { ok: false, byteOffset: bad, text: stripBom(new TextDecoder().decode(bytes.subarray(0, bad))) };
  }
  return { ok: true, text: stripBom(new TextDecoder().decode(bytes)) };
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === BOM ? text.slice(1) : text;
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) need = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c === 0xe0) lo = 0xa0; // overlong
    if (c === 0xed) hi = 0x9f; // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c === 0xf0) lo = 0x90; // overlong
    if (c === 0xf4) hi = 0x8f; // above U+10FFFF
  } else return 0;
  if (i + need >= b.length) return 0; // truncated sequence
  const first = b[i + 1];
  if (first === undefined || first < lo || first > hi) return 0;
  for (let k = 2; k <= need; k++) {
    const x = b[i + k];
    if (x === undefined || x < 0x80 || x > 0xbf) return 0;
  }
  return need + 1;
}

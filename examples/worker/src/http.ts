// JSON in, JSON out. Every refusal is a 4xx with `{ error: { code, message } }`; a request that cannot
// be understood is never passed on to the guard, so it can never come back as an approval.

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Bytes of the body as sent (UTF-8), not UTF-16 units: a 1 MiB limit is a megabyte on the wire. */
export const MAX_BODY = 1 << 20;
/** JSON values (objects, arrays and leaves) in a body. A megabyte of `{"a":0,…}` holds ~150,000; the
 * walk that counts them stops at the first one over, so a wide object costs no more than this. */
export const MAX_VALUES = 200_000;
/** Nesting depth of a request body. The body is passed to the session's Durable Object by RPC, whose
 * serializer recurses: a 4000-deep array overflowed its stack (a 500). The guard itself reads no
 * deeper than 64. */
export const MAX_DEPTH = 256;

/** What is wrong with a parsed body's shape: nesting deeper than `maxDepth`, or more than `maxValues`
 * values; null when neither. Iterative (depth costs no stack), and keys are counted as they are walked
 * (`for…in`), so a two-million-key object stops at the budget instead of being listed first. */
export function shapeProblem(value: unknown, maxDepth: number, maxValues: number): "too-deep" | "too-wide" | null {
  // Two parallel stacks and indexed reads, no [value, depth] pairs: array destructuring runs the
  // iterator protocol, which costs the most while the function still runs in the interpreter (a
  // fresh isolate's first request walks a whole session document here).
  const values: unknown[] = [value];
  const depths: number[] = [0];
  let count = 0;
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop()!;
    if (++count > maxValues) return "too-wide";
    if (typeof v !== "object" || v === null) continue;
    if (d >= maxDepth) return "too-deep";
    if (Array.isArray(v)) {
      if (count + v.length > maxValues) return "too-wide";
      for (let i = 0; i < v.length; i++) {
        values.push(v[i]);
        depths.push(d + 1);
      }
    } else {
      let keys = 0;
      for (const k in v) {
        if (++keys + count > maxValues) return "too-wide";
        values.push((v as Record<string, unknown>)[k]);
        depths.push(d + 1);
      }
    }
  }
  return null;
}

/** UTF-8 length of a string without encoding it (lone surrogates count 3, as TextEncoder writes U+FFFD). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Whether a content type is JSON: exactly `application/json`, with parameters (`; charset=utf-8`). */
export function isJsonContentType(type: string): boolean {
  return type.split(";", 1)[0].trim().toLowerCase() === "application/json";
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

export function errorResponse(err: HttpError): Response {
  return json({ error: { code: err.code, message: err.message } }, err.status);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The body's bytes, refused with 413 `body-too-large` as soon as they exceed `limit`: a declared
 * `Content-Length` over it before a byte is read, and otherwise counted while the body streams in, so
 * an oversized (or endless) body is never held in memory whole. What was not read is cancelled. */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () => new HttpError(413, "body-too-large", `the body exceeds ${limit} bytes`);
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/u.test(declared.trim()) && Number(declared.trim()) > limit) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

/** The request body as a JSON object (an empty body is `{}`). */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type");
  if (type !== null && !isJsonContentType(type)) {
    throw new HttpError(415, "unsupported-media-type", `content type \`${type}\` is not application/json`);
  }
  const bytes = await readLimited(request, MAX_BODY);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new HttpError(400, "bad-json", "the body is not valid utf-8");
  }
  if (text.trim() === "") return {};
  if (type === null) throw new HttpError(415, "unsupported-media-type", "a body needs the content type application/json");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "bad-json", "the body is not valid json");
  }
  if (!isObject(value)) throw new HttpError(400, "bad-body", "the body must be a json object");
  const problem = shapeProblem(value, MAX_DEPTH, MAX_VALUES);
  if (problem === "too-deep") throw new HttpError(400, "body-too-deep", `the body nests deeper than ${MAX_DEPTH} levels`);
  if (problem === "too-wide") throw new HttpError(413, "body-too-wide", `the body holds more than ${MAX_VALUES} json values`);
  return value;
}

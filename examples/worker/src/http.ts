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

export const MAX_BODY = 1 << 20;
/** Nesting depth of a request body. The body is passed to the session's Durable Object by RPC, whose
 * serializer recurses: a 4000-deep array overflowed its stack (a 500). The guard itself reads no
 * deeper than 64. */
export const MAX_DEPTH = 256;

/** Whether a parsed JSON value nests deeper than `max` (iterative, so depth costs no stack). */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (d >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return false;
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

/** The request body as a JSON object (an empty body is `{}`). */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type");
  if (type !== null && !type.toLowerCase().startsWith("application/json")) {
    throw new HttpError(415, "unsupported-media-type", `content type \`${type}\` is not application/json`);
  }
  // Read before refusing: answering while the client still sends would reset its connection.
  const text = await request.text();
  if (text.length > MAX_BODY) throw new HttpError(413, "body-too-large", `the body exceeds ${MAX_BODY} bytes`);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "bad-json", "the body is not valid json");
  }
  if (!isObject(value)) throw new HttpError(400, "bad-body", "the body must be a json object");
  if (nestsDeeper(value, MAX_DEPTH)) throw new HttpError(400, "body-too-deep", `the body nests deeper than ${MAX_DEPTH} levels`);
  return value;
}

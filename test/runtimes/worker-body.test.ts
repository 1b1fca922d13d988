// Issue 21 item 17: the Worker example checks its 1 MiB body limit while reading, not after: a declared
// Content-Length over the limit is refused before a byte is read, and a body without one (or lying in
// it) is counted as it streams in and cancelled at the limit, so an oversized or endless body is never
// held whole. In Node, on the example's own request reader (examples/worker/src/http.ts).
import { describe, expect, it } from "vitest";
import { HttpError, MAX_BODY, readBody, readLimited } from "../../examples/worker/src/http.js";

const CHUNK = 64 * 1024;

/** A body of `total` bytes served in 64 KiB chunks on demand, counting what the reader pulled. */
function counted(total: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= total) return controller.close();
      const n = Math.min(CHUNK, total - seen.pulled);
      seen.pulled += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function post(body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}): Request {
  return new Request("https://worker.example/sessions/s/check", { method: "POST", body, headers: { "content-type": "application/json", ...headers }, duplex: "half" } as RequestInit);
}

async function refusal(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    return e as HttpError;
  }
  throw new Error("expected a refusal");
}

describe("the Worker example reads at most 1 MiB of a body", () => {
  it("a 64 MiB body without Content-Length is refused at the limit: read no further than one chunk past it, the rest cancelled", async () => {
    const { stream, seen } = counted(64 * 1024 * 1024);
    const e = await refusal(readBody(post(stream)));
    expect([e.status, e.code]).toEqual([413, "body-too-large"]);
    expect(seen.pulled).toBeLessThanOrEqual(MAX_BODY + 2 * CHUNK);
    expect(seen.cancelled).toBe(true);
  });

  it("a declared Content-Length over the limit is refused before a byte is read", async () => {
    const { stream, seen } = counted(2 * MAX_BODY);
    const e = await refusal(readLimited(post(stream, { "content-length": String(2 * MAX_BODY) }), MAX_BODY));
    expect([e.status, e.code]).toEqual([413, "body-too-large"]);
    expect(seen.pulled).toBe(0);
  });

  it("a body that declares less than it sends is still cut at the limit", async () => {
    const { stream, seen } = counted(8 * MAX_BODY);
    const e = await refusal(readLimited(post(stream, { "content-length": "10" }), MAX_BODY));
    expect(e.code).toBe("body-too-large");
    expect(seen.pulled).toBeLessThanOrEqual(MAX_BODY + 2 * CHUNK);
  });

  it("a body of exactly the limit, in many chunks, is read whole", async () => {
    const json = JSON.stringify({ call: { name: "x", arguments: { pad: "" } } });
    const pad = MAX_BODY - json.length;
    const text = JSON.stringify({ call: { name: "x", arguments: { pad: "y".repeat(pad) } } });
    expect(new TextEncoder().encode(text).length).toBe(MAX_BODY);
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= bytes.length) return c.close();
        c.enqueue(bytes.slice(at, at + 1000));
        at += 1000;
      },
    });
    const body = await readBody(post(stream));
    expect((body.call as { arguments: { pad: string } }).arguments.pad.length).toBe(pad);
    expect(await readBody(post(""))).toEqual({});
  });
});

// polar-guard over HTTP (Cloudflare Workers). Routes:
//   GET  /                          the service and its domains
//   POST /sessions                  { domain, document? | state?, policy?, scope?, config? } → 201 { session, … }
//   POST /sessions/:id/check        { call: { name, arguments }, context? }  → { decision }
//   POST /sessions/:id/observe      { call, result, failed? }                → { report }
//   POST /sessions/:id/checkpoint                                            → { ok }
//   POST /sessions/:id/batch        { ops: [{ op: "check" | "observe" | "checkpoint", … }] } → { results }
//   GET  /sessions/:id/log          → { decisions }     GET /sessions/:id/state → { state, sequence }
// Each session is its own Durable Object (its Layer B, sequence and log). Bad requests get a 4xx JSON error.
import { VERSION } from "polar-guard";
import { DOMAINS } from "./domains.js";
import { HttpError, errorResponse, json, readBody } from "./http.js";
import type { Env } from "./session.js";

export { GuardSession } from "./session.js";

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACTIONS: Record<string, "GET" | "POST"> = { check: "POST", observe: "POST", checkpoint: "POST", batch: "POST", log: "GET", state: "GET" };

function allow(request: Request, method: "GET" | "POST"): void {
  if (request.method !== method) throw new HttpError(405, "method-not-allowed", `use ${method}`);
}

async function route(request: Request, env: Env): Promise<Response> {
  const parts = new URL(request.url).pathname.split("/").filter((p) => p !== "");
  if (parts.length === 0) {
    allow(request, "GET");
    return json({ service: "polar-guard", version: VERSION, domains: Object.keys(DOMAINS) });
  }
  if (parts[0] !== "sessions" || parts.length > 3) throw new HttpError(404, "not-found", "no such route");
  if (parts.length === 1) {
    allow(request, "POST");
    const body = await readBody(request);
    const session = crypto.randomUUID();
    return env.SESSIONS.get(env.SESSIONS.idFromName(session)).create(session, body);
  }
  const [, session, action] = parts;
  if (!SESSION_ID.test(session)) throw new HttpError(400, "bad-session-id", "a session id is a lower-case uuid");
  if (action === undefined || !Object.prototype.hasOwnProperty.call(ACTIONS, action)) throw new HttpError(404, "not-found", "no such route");
  allow(request, ACTIONS[action]);
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(session));
  switch (action) {
    case "check":
      return stub.check(await readBody(request));
    case "observe":
      return stub.observe(await readBody(request));
    case "checkpoint":
      return stub.checkpoint();
    case "batch":
      return stub.batch(await readBody(request));
    case "log":
      return stub.log();
    default:
      return stub.state();
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      return await route(request, env);
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err);
      return json({ error: { code: "internal-error", message: err instanceof Error ? err.message : String(err) } }, 500);
    }
  },
} satisfies ExportedHandler<Env>;

// One guard session per Durable Object: its Layer B, its forward sequence and its decision log live
// here and nowhere else. Storage holds the creation request (with the initial Layer B as JSON in place
// of a document: build.ts, storedMeta), a journal of every operation, the decision log as it was
// written, hash-chained (each record carries the previous one's hash), the log's head, the guard's
// snapshot and Layer B as a base and the deltas since; an evicted object resumes its guard from the
// snapshot on that Layer B and goes on with the chain from the stored head (./journal.ts).
// A request is atomic: its operations run, then are journaled with their log records, the new head,
// snapshot and delta in one storage transaction; if any operation throws or the write fails, the
// in-memory guard is dropped and the next request rebuilds it from storage, so nothing of the failed
// request remains anywhere.
import { DurableObject } from "cloudflare:workers";
import { GuardError, ProjectionError, RuntimeError, type Decision, type Guard, type PolicyName, type Scope, type ToolCall } from "polar-guard";
import { buildGuard, sha256, storedMeta, type Meta } from "./build.js";
import { DOMAINS, READY, isReady } from "./domains.js";
import { HttpError, errorResponse, isObject, json, utf8Length } from "./http.js";
import { CommitError, JournalError, SessionJournal, type JournalStore, type Op, type Resume } from "./journal.js";
import type { TrackedLayerB } from "./layer.js";

export interface Env {
  SESSIONS: DurableObjectNamespace<GuardSession>;
}

const POLICIES: readonly string[] = ["veto", "escalate", "advisory"];
const SCOPES: readonly string[] = ["turn", "session"];
/** Verdict settings a client may choose; everything else (projection, log, models) is the Worker's. */
const CONFIG_KEYS: readonly string[] = ["tau", "tiers", "failClosed", "now", "maxDepth", "maxNodes"];

const MAX_BATCH = 100;
/** One journaled operation, as JSON, in UTF-8 bytes: well under what one stored value may hold, so an
 * accepted operation and its decision record can always be written (a larger one is refused before it
 * runs). */
const MAX_OP_BYTES = 128 * 1024;
const PUT_LIMIT = 128;

function parseMeta(body: Record<string, unknown>): Meta {
  const domain = body.domain;
  if (typeof domain !== "string" || !Object.prototype.hasOwnProperty.call(DOMAINS, domain)) {
    throw new HttpError(400, "unknown-domain", `unknown domain \`${String(domain)}\`: one of ${Object.keys(DOMAINS).join(", ")}`);
  }
  const policy = body.policy ?? "veto";
  if (typeof policy !== "string" || !POLICIES.includes(policy)) {
    throw new HttpError(400, "bad-policy", `unknown policy \`${String(policy)}\`: one of ${POLICIES.join(", ")}`);
  }
  const scope = body.scope ?? "session";
  if (typeof scope !== "string" || !SCOPES.includes(scope)) {
    throw new HttpError(400, "bad-scope", `unknown scope \`${String(scope)}\`: one of ${SCOPES.join(", ")}`);
  }
  const config = body.config ?? {};
  if (!isObject(config)) throw new HttpError(400, "bad-config", "`config` must be an object");
  const unknown = Object.keys(config).filter((k) => !CONFIG_KEYS.includes(k));
  if (unknown.length > 0) throw new HttpError(400, "bad-config", `unknown config key \`${unknown[0]}\`: one of ${CONFIG_KEYS.join(", ")}`);
  if (body.document !== undefined && body.state !== undefined) {
    throw new HttpError(400, "bad-state", "give the initial state as `document` (projected) or `state` (layer b json), not both");
  }
  if (body.document !== undefined && !isObject(body.document)) {
    throw new HttpError(400, "bad-state", "`document` must be a json object (the domain's state, e.g. τ²-bench's db.json)");
  }
  return { domain, document: body.document, state: body.state, policy: policy as PolicyName, scope: scope as Scope, config };
}

function parseCall(value: unknown, what: string): ToolCall {
  if (!isObject(value) || typeof value.name !== "string" || value.name === "" || !isObject(value.arguments)) {
    throw new HttpError(400, "bad-call", `\`${what}\` must be \`{ "name": string, "arguments": object }\``);
  }
  return { name: value.name, arguments: value.arguments };
}

function parseContext(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new HttpError(400, "bad-context", "`context` must be an object");
  const { userMessages, turnCalls } = value;
  if (userMessages !== undefined && (!Array.isArray(userMessages) || !userMessages.every((m) => typeof m === "string"))) {
    throw new HttpError(400, "bad-context", "`context.userMessages` must be an array of strings");
  }
  if (turnCalls !== undefined) {
    if (!Array.isArray(turnCalls)) throw new HttpError(400, "bad-context", "`context.turnCalls` must be an array of calls");
    turnCalls.forEach((c, i) => parseCall(c, `context.turnCalls[${i}]`));
  }
  return { userMessages, turnCalls };
}

function parseOp(kind: string, body: Record<string, unknown>, at: string): Op {
  const op = parseOpShape(kind, body, at);
  if (utf8Length(JSON.stringify(op)) > MAX_OP_BYTES) {
    throw new HttpError(413, "operation-too-large", `\`${at}call\` with its context or result exceeds ${MAX_OP_BYTES} bytes as JSON`);
  }
  return op;
}

function parseOpShape(kind: string, body: Record<string, unknown>, at: string): Op {
  if (kind === "check") return { op: "check", call: parseCall(body.call, `${at}call`), context: parseContext(body.context) };
  if (kind === "checkpoint") return { op: "checkpoint" };
  if (kind !== "observe") throw new HttpError(400, "bad-batch", `\`${at}op\` must be check, observe or checkpoint`);
  const call = parseCall(body.call, `${at}call`);
  if (!("result" in body)) throw new HttpError(400, "bad-result", `\`${at}result\` is missing (use null for a call without one)`);
  if (body.failed !== undefined && typeof body.failed !== "boolean") throw new HttpError(400, "bad-result", `\`${at}failed\` must be a boolean`);
  return { op: "observe", call, result: body.result, failed: body.failed === true };
}

/** Library errors caused by what the client sent (a bad state document, a bad setting). */
function clientError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof GuardError || err instanceof ProjectionError || err instanceof RuntimeError) {
    return new HttpError(400, err.code, err.message);
  }
  return null;
}

export class GuardSession extends DurableObject<Env> {
  private meta: Meta | null = null;
  private readonly sessionJournal = new SessionJournal(this.durableStore(), (log, resume) => this.buildStored(log, resume), { sha256 });

  /** Durable Object storage as the journal's store: one transaction per commit (put() alone takes at
   * most 128 pairs). */
  private durableStore(): JournalStore {
    return {
      get: (key) => this.ctx.storage.get(key),
      list: (prefix, start) => this.ctx.storage.list(start === undefined ? { prefix } : { prefix, start }),
      commit: (entries) =>
        this.ctx.storage.transaction(async (txn) => {
          const keys = Object.keys(entries);
          for (let i = 0; i < keys.length; i += PUT_LIMIT) {
            await txn.put(Object.fromEntries(keys.slice(i, i + PUT_LIMIT).map((k) => [k, entries[k]])));
          }
        }),
    };
  }

  /** Runs one operation and answers with JSON; every failure becomes an error response, so RPC never
   * throws to the Worker. */
  private async reply(run: () => Promise<{ status: number; body: unknown }>): Promise<Response> {
    try {
      const { status, body } = await run();
      return json(body, status);
    } catch (err) {
      const known = clientError(err);
      if (known !== null) return errorResponse(known);
      // Storage the session cannot account for: no verdict, a typed error.
      if (err instanceof JournalError) return json({ error: { code: err.code, message: err.message } }, 500);
      return json({ error: { code: "internal-error", message: err instanceof Error ? err.message : String(err) } }, 500);
    }
  }

  async create(session: string, body: Record<string, unknown>): Promise<Response> {
    return this.reply(async () => {
      if ((await this.ctx.storage.get("meta")) !== undefined) throw new HttpError(409, "session-exists", "the session already exists");
      const meta = parseMeta(body);
      this.meta = meta;
      let guard: Guard;
      try {
        guard = await this.sessionJournal.start();
        const stored = storedMeta(meta, guard);
        await this.ctx.storage.put("meta", stored);
        this.meta = stored;
      } catch (err) {
        // Nothing stored (or nothing usable): no session in memory either.
        this.meta = null;
        this.sessionJournal.forget();
        throw err;
      }
      return {
        status: 201,
        body: { session, domain: meta.domain, policy: guard.policy, scope: guard.scope, ontologyHash: guard.ontologyHash, configHash: guard.configHash },
      };
    });
  }

  async check(body: Record<string, unknown>): Promise<Response> {
    return this.reply(async () => ({ status: 200, body: (await this.run([parseOp("check", body, "")]))[0] }));
  }

  async observe(body: Record<string, unknown>): Promise<Response> {
    return this.reply(async () => ({ status: 200, body: (await this.run([parseOp("observe", body, "")]))[0] }));
  }

  async checkpoint(): Promise<Response> {
    return this.reply(async () => ({ status: 200, body: (await this.run([{ op: "checkpoint" }]))[0] }));
  }

  /** Several operations in order, e.g. the calls of one assistant message: all are validated before
   * any runs, so a bad one refuses the whole batch; and the batch is atomic (./journal.ts). */
  async batch(body: Record<string, unknown>): Promise<Response> {
    return this.reply(async () => {
      const ops = body.ops;
      if (!Array.isArray(ops) || ops.length === 0 || ops.length > MAX_BATCH) {
        throw new HttpError(400, "bad-batch", `\`ops\` must be an array of 1 to ${MAX_BATCH} operations`);
      }
      const parsed = ops.map((op, i) => {
        if (!isObject(op) || typeof op.op !== "string") throw new HttpError(400, "bad-batch", `\`ops[${i}].op\` must be check, observe or checkpoint`);
        return parseOp(op.op, op, `ops[${i}].`);
      });
      return { status: 200, body: { results: await this.run(parsed) } };
    });
  }

  async log(): Promise<Response> {
    return this.reply(async () => {
      await this.sessionJournal.ready();
      const entries = await this.ctx.storage.list<Decision>({ prefix: "log:" });
      return { status: 200, body: { decisions: [...entries.values()] } };
    });
  }

  async state(): Promise<Response> {
    return this.reply(async () => {
      const guard = await this.sessionJournal.ready();
      return { status: 200, body: { state: (guard.state as TrackedLayerB).toJSON(), sequence: guard.sequence() } };
    });
  }

  private async run(ops: Op[]): Promise<unknown[]> {
    try {
      return await this.sessionJournal.run(ops);
    } catch (err) {
      if (err instanceof CommitError) throw new HttpError(413, "record-too-large", err.message);
      throw err;
    }
  }

  /** The session's guard from its stored creation request (after an eviction) or the one in hand. */
  private async buildStored(log: (d: Decision) => void, resume?: Resume): Promise<Guard> {
    const meta = this.meta ?? (await this.ctx.storage.get<Meta>("meta"));
    if (meta === undefined) throw new HttpError(404, "unknown-session", "no such session");
    this.meta = meta;
    return this.build(meta, log, resume);
  }

  private async build(meta: Meta, log: (d: Decision) => void, resume?: Resume): Promise<Guard> {
    const domain = READY[meta.domain];
    if (!isReady(domain)) throw new HttpError(503, domain.code, `the \`${meta.domain}\` domain could not be loaded: ${domain.message}`);
    return buildGuard(domain, meta, log, resume);
  }
}

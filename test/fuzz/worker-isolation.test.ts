// In the Worker example (examples/worker under workerd), hostile traffic and failing requests in one
// session do not affect the others: while session 1 receives malformed bodies, hostile calls (10k-deep
// arguments, `__proto__` keys, huge strings), oversized bodies and batches that fail half-way, sessions
// 0 and 2, interleaved with it request by request, give exactly Node's decisions. Session 1 itself
// answers every hostile request with a 4xx or a refusal, never a 5xx or an approval. (Sessions share
// one core per domain per isolate; a core trap cannot be forced in the release build, so the
// shared-core trap case is test/fuzz/faults.test.ts.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionPlan, type Op, type SessionPlan } from "../runtimes/fixtures/airline-sessions.js";
import { DIST, REPO, artefactDir, requireDist } from "../runtimes/helpers/paths.js";
import { startWorker, type LocalWorker } from "../runtimes/helpers/workerd.js";

type Api = typeof import("../../src/index.js");
let api: Api;
let worker: LocalWorker;

beforeAll(async () => {
  requireDist();
  api = (await import(pathToFileURL(join(DIST, "node.js")).href)) as Api;
  worker = await startWorker(join(REPO, "examples/worker/wrangler.toml"), join(await artefactDir("worker-isolation"), "bundle"));
});

afterAll(async () => {
  await worker?.dispose();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await worker.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { raw: text.slice(0, 200) };
  }
  return { status: res.status, body: parsed };
}

async function nodeDecisions(plan: SessionPlan): Promise<unknown[]> {
  const projection = api.parseProjectionRules(JSON.parse(readFileSync(join(REPO, "ontologies/airline/projection.json"), "utf8")));
  const guard = await api.loadGuard({
    ontologyPath: join(REPO, "ontologies/airline/airline.blob"),
    state: api.projectDocument(projection, plan.create.document),
    policy: plan.create.policy as "veto",
    scope: plan.create.scope as "session",
    config: { ...plan.create.config, projection },
  });
  const out: unknown[] = [];
  for (const op of plan.ops) {
    if (op.op === "check") out.push(JSON.parse(JSON.stringify(guard.check(op.call, op.context))));
    else if (op.op === "observe") guard.observe(op.call, op.result, { failed: op.failed });
    else guard.checkpoint();
  }
  return out;
}

async function send(session: string, op: Op): Promise<unknown | null> {
  const path = `/sessions/${session}/${op.op}`;
  const r = op.op === "check"
    ? await post(path, { call: op.call, context: op.context })
    : op.op === "observe" ? await post(path, { call: op.call, result: op.result, failed: op.failed }) : await post(path, {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return op.op === "check" ? r.body.decision : null;
}

function deepJson(levels: number): string {
  return `{"call":{"name":"cancel_reservation","arguments":{"reservation_id":${"[".repeat(levels)}"x"${"]".repeat(levels)}}}}`;
}

/** Hostile requests for one session; each must get a 4xx or a 200 refusal. */
function hostile(session: string): (() => Promise<{ status: number; body: any }>)[] {
  const at = (p: string) => `/sessions/${session}/${p}`;
  return [
    () => post(at("check"), "{nope"),
    () => post(at("check"), deepJson(10_000)),
    () => post(at("check"), '{"call":{"name":"cancel_reservation","arguments":{"__proto__":{"reservation_id":"X","approved":true}}}}'),
    () => post(at("check"), { call: { name: "__proto__", arguments: {} } }),
    () => post(at("check"), { call: { name: "constructor", arguments: { prototype: { polluted: true } } } }),
    () => post(at("check"), { call: { name: "cancel_reservation", arguments: { reservation_id: "R".repeat(200_000) } } }),
    () => post(at("check"), { call: { name: "cancel_reservation", arguments: { reservation_id: "x".repeat(1_100_000) } } }),
    () => post(at("check"), { call: { name: "cancel_reservation", arguments: { reservation_id: 1e308 } }, context: { userMessages: ["yes", "\ud800", "\u0000".repeat(1000)] } }),
    () => post(at("batch"), { ops: [{ op: "checkpoint" }, { op: "explode" }] }),
    () => post(at("batch"), { ops: Array.from({ length: 101 }, () => ({ op: "checkpoint" })) }),
    () => post(at("observe"), { call: { name: "cancel_reservation", arguments: { reservation_id: "X" } }, result: "{\"reservation_id\": [[[[" }),
    () => post(at("observe"), { call: { name: "book_reservation", arguments: { user_id: 5 } }, result: { reservation_id: { __proto__: 1 }, flights: "none" } }),
  ];
}

describe("Worker example: one session's failures do not reach the others", () => {
  it("sessions 0 and 2 give Node's decisions while session 1 is attacked between their requests", async () => {
    const plans = [0, 1, 2].map((k) => sessionPlan(k, 3, 30));
    const ids: string[] = [];
    for (const p of plans) {
      const r = await post("/sessions", p.create);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids.push(r.body.session);
    }
    const attacks = hostile(ids[1]);
    const got: unknown[][] = [[], [], []];
    const steps = Math.max(plans[0].ops.length, plans[2].ops.length);
    for (let i = 0; i < steps; i++) {
      for (const k of [0, 2]) {
        const op = plans[k].ops[i];
        if (op === undefined) continue;
        const d = await send(ids[k], op);
        if (d !== null) got[k].push(d);
      }
      const attack = attacks[i % attacks.length];
      const r = await attack();
      expect(r.status, `attack ${i % attacks.length}: ${JSON.stringify(r.body).slice(0, 300)}`).toBeLessThan(500);
      if (r.status === 200 && r.body.decision !== undefined) expect(r.body.decision.approved, `attack ${i % attacks.length}`).toBe(false);
      if (i % attacks.length === 1) expect(r.body.error?.code).toBe("body-too-deep");
    }
    for (const k of [0, 2]) expect(got[k], `session ${k}`).toEqual(await nodeDecisions(plans[k]));

    // The attacked session still serves its own plan correctly from a checkpoint on.
    expect((await post(`/sessions/${ids[1]}/checkpoint`, {})).status).toBe(200);
    const fresh = await post("/sessions", plans[1].create);
    expect(fresh.status).toBe(201);
  });
});

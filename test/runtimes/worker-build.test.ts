// The Worker example's session construction (examples/worker/src/build.ts) and its startup warm-up
// (warmup.ts), in Node with the built package: a session is stored with its initial Layer B in place of
// its document and rebuilt from it to the same state and the same verdicts; the warm-up session walks
// the session path (approved and vetoed mutating calls, an observed result, a replay).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LayerB, loadCore, parseProjectionRules, prepareOntologyAsync, type Decision } from "polar-guard";
import { buildGuard, storedMeta, type Meta, type ReadyDomain } from "../../examples/worker/src/build.js";
import { MAX_DEPTH, MAX_VALUES, shapeProblem } from "../../examples/worker/src/http.js";
import { AIRLINE_WARMUP, warmUp } from "../../examples/worker/src/warmup.js";
import { sessionPlan } from "./fixtures/airline-sessions.js";
import { REPO, requireDist } from "./helpers/paths.js";

let domain: ReadyDomain;

beforeAll(async () => {
  requireDist();
  domain = {
    core: loadCore(),
    ontology: await prepareOntologyAsync(readFileSync(join(REPO, "ontologies/airline/airline.blob"))),
    projection: parseProjectionRules(JSON.parse(readFileSync(join(REPO, "ontologies/airline/projection.json"), "utf8"))),
  };
});

const noLog = (): void => undefined;

describe("the Worker example's stored session", () => {
  const plan = sessionPlan(2, 12, 20);
  const meta: Meta = { domain: "airline", document: plan.create.document, state: undefined, policy: plan.create.policy as "veto", scope: plan.create.scope as "session", config: plan.create.config };

  it("keeps the initial Layer B as JSON in place of the document", async () => {
    const guard = await buildGuard(domain, meta, noLog);
    const stored = storedMeta(meta, guard);
    expect(stored.document).toBeUndefined();
    expect(stored.state).toEqual((guard.state as LayerB).toJSON());
    // A session created from Layer B JSON is stored as it came.
    expect(storedMeta(stored, await buildGuard(domain, stored, noLog))).toBe(stored);
  });

  it("rebuilt from it, gives the same state and the same decisions as from the document", async () => {
    const fromDocument = await buildGuard(domain, meta, noLog);
    const stored = structuredClone(storedMeta(meta, fromDocument));
    const logs: Decision[][] = [[], []];
    const guards = [await buildGuard(domain, meta, (d) => logs[0].push(d)), await buildGuard(domain, stored, (d) => logs[1].push(d))];
    for (const op of plan.ops) {
      for (const g of guards) {
        if (op.op === "check") g.check(op.call, op.context as never);
        else if (op.op === "observe") g.observe(op.call, op.result, { failed: op.failed === true });
        else g.checkpoint();
      }
    }
    expect(logs[1].length).toBe(20);
    expect(JSON.parse(JSON.stringify(logs[1]))).toEqual(JSON.parse(JSON.stringify(logs[0])));
    expect((guards[1].state as LayerB).toJSON()).toEqual((guards[0].state as LayerB).toJSON());
  });

  it("a stored Layer B that is not Layer B JSON is refused, never a guard", async () => {
    await expect(buildGuard(domain, { ...meta, document: undefined, state: { entities: [] } }, noLog)).rejects.toMatchObject({ code: "bad-state" });
  });
});

describe("the Worker example's startup warm-up", () => {
  it("walks the session path: approved and vetoed mutating calls, an observed result, a replay, two policies", async () => {
    const runs = await warmUp("airline", domain, AIRLINE_WARMUP);
    expect(runs).toHaveLength(4);
    const decisions = runs.flat().flatMap((r) => ((r as { decision?: Decision }).decision ? [(r as { decision: Decision }).decision] : []));
    const reasons = new Set(decisions.map((d) => `${d.approved}:${d.reason}`));
    expect(reasons.has("true:ok"), [...reasons].join(", ")).toBe(true); // an approved mutating call
    expect(reasons.has("true:read_only")).toBe(true);
    expect(decisions.some((d) => !d.approved && d.reason !== "unknown_tool")).toBe(true);
    expect(decisions.some((d) => d.reason === "unknown_tool")).toBe(false);
    const applied = runs.flat().some((r) => ((r as { report?: { applied?: { changes?: unknown[] } } }).report?.applied?.changes?.length ?? 0) > 0);
    expect(applied).toBe(true);
  });
});

describe("the Worker example's body shape check", () => {
  const nest = (n: number, leaf: unknown = 0): unknown => {
    let v = leaf;
    for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { d: v };
    return v;
  };

  it("passes a session document and refuses a body nested past the limit or with too many values", () => {
    expect(shapeProblem(sessionPlan(0, 12, 20).create, MAX_DEPTH, MAX_VALUES)).toBeNull();
    // A leaf may sit at the limit; a container there may not.
    expect(shapeProblem(nest(8), 8, 1000)).toBeNull();
    expect(shapeProblem(nest(8, {}), 8, 1000)).toBe("too-deep");
    expect(shapeProblem(nest(MAX_DEPTH + 1), MAX_DEPTH, MAX_VALUES)).toBe("too-deep");
    expect(shapeProblem(Array.from({ length: 11 }, () => 0), 8, 10)).toBe("too-wide");
    expect(shapeProblem(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 0])), 8, 10)).toBe("too-wide");
    expect(shapeProblem({ a: [1, 2, { b: [3, 4] }] }, 8, 8)).toBeNull(); // 8 values: the root, a, 1, 2, {b}, b, 3, 4
    expect(shapeProblem({ a: [1, 2, { b: [3, 4] }] }, 8, 7)).toBe("too-wide");
  });
});

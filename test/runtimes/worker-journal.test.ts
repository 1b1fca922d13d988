// The Worker example's session journal (examples/worker/src/journal.ts) over an in-memory store, with
// the built package: the log's head, the guard's snapshot and the Layer B delta are stored with every
// commit; a woken session resumes from the snapshot (no replay, no record hashed again) with the
// decisions of a session that never slept; a head, snapshot, base or delta that disagrees with the
// rest is refused (a typed error, never a verdict).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createGuard, loadCore, parseProjectionRules, projectDocument, recordHash, type CoreInstance, type Decision, type GuardSnapshot } from "polar-guard";
import { verifyAuditLog } from "polar-guard/audit";
import { BASE_KEY, HEAD_KEY, JournalError, REBASE_EVERY, SNAPSHOT_KEY, SessionJournal, type JournalStore, type Op, type Resume } from "../../examples/worker/src/journal.js";
import { TrackedLayerB } from "../../examples/worker/src/layer.js";
import { sessionPlan } from "./fixtures/airline-sessions.js";
import { REPO, requireDist } from "./helpers/paths.js";

const blob = new Uint8Array(readFileSync(join(REPO, "ontologies/airline/airline.blob")));
const projection = parseProjectionRules(JSON.parse(readFileSync(join(REPO, "ontologies/airline/projection.json"), "utf8")));
const plan = sessionPlan(0, 12, 20);
const ops = plan.ops as Op[];
/** The same session, longer (the same creation request, the same first operations), with observes
 * that change Layer B at 20, 28, 33, 43, 52, 56 and 64. */
const longOps = sessionPlan(0, 12, 60).ops as Op[];
let core: CoreInstance;

beforeAll(async () => {
  requireDist();
  core = await loadCore();
});

const sha256 = (d: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(d).digest());

interface MemoryStore extends JournalStore {
  data: Map<string, unknown>;
  failNext: boolean;
  /** The prefixes listed, in order (a woken session that resumes lists no `op:`). */
  listed: string[];
}

function memoryStore(): MemoryStore {
  const store: MemoryStore = {
    data: new Map(),
    failNext: false,
    listed: [],
    get: async (key) => structuredClone(store.data.get(key)),
    list: async (prefix, start = "") => {
      store.listed.push(prefix);
      return new Map([...store.data.entries()].filter(([k]) => k.startsWith(prefix) && k >= start).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, structuredClone(v)]));
    },
    commit: async (entries) => {
      if (store.failNext) {
        store.failNext = false;
        throw new Error("storage refused the write");
      }
      for (const [k, v] of Object.entries(entries)) store.data.set(k, structuredClone(v));
    },
  };
  return store;
}

/** The session's creation state, tracked (what the Worker's build.ts gives a guard). */
const initial = (): TrackedLayerB => projectDocument(projection, plan.create.document, new TrackedLayerB()) as TrackedLayerB;

/** How many guards were built resumed from a snapshot. */
let resumed = 0;

function journal(store: JournalStore, hash = sha256, ops: readonly Op[] = []): SessionJournal {
  return new SessionJournal(
    store,
    async (log: (d: Decision) => void, resume?: Resume) => {
      if (resume !== undefined) resumed++;
      return createGuard({
        ontology: blob,
        backend: (_t, b) => core.load(b!),
        state: resume === undefined ? initial() : resume.state(initial),
        policy: plan.create.policy as "veto",
        scope: plan.create.scope as "session",
        config: { ...plan.create.config, projection, log: { append: log } },
        resume: resume?.snapshot as GuardSnapshot | undefined,
      });
    },
    { sha256: hash },
  );
}

function storedLog(store: MemoryStore): unknown[] {
  return [...store.data.keys()].filter((k) => k.startsWith("log:")).sort().map((k) => store.data.get(k));
}

/** Runs the plan's operations in requests of `size`, forgetting the guard before every `evictEvery`th. */
async function runPlan(j: SessionJournal, size: number, evictEvery = 0): Promise<void> {
  for (let i = 0, n = 0; i < ops.length; i += size, n++) {
    if (evictEvery > 0 && n > 0 && n % evictEvery === 0) j.forget();
    await j.run(ops.slice(i, i + size));
  }
}

describe("the Worker example's session journal", () => {
  it("stores the log head with every commit: the last record's index and hash, and the journal's length", async () => {
    const store = memoryStore();
    const j = journal(store);
    await j.start();
    await j.run(ops.slice(0, 3));
    const log = storedLog(store);
    expect(log.length).toBeGreaterThan(0);
    expect(store.data.get(HEAD_KEY)).toEqual({ index: log.length, hash: recordHash(log[log.length - 1]), ops: 3 });
  });

  it("a woken journal replays without hashing a record, then goes on with the stored chain", async () => {
    let hashes = 0;
    const counting = (d: Uint8Array | string): Uint8Array => {
      hashes++;
      return sha256(d);
    };
    const store = memoryStore();
    const first = journal(store, counting);
    await first.start();
    await first.run(ops.slice(0, 12));
    const before = storedLog(store).length;
    expect(before).toBeGreaterThan(5);

    const woken = journal(store, counting);
    hashes = 0;
    await woken.ready();
    expect(hashes).toBe(0);
    await woken.run(ops.slice(12));
    const log = storedLog(store);
    expect(hashes).toBe(log.length - before);

    // The same log as one uninterrupted session's, and it verifies.
    const straight = memoryStore();
    const s = journal(straight);
    await s.start();
    await s.run(ops);
    expect(log).toEqual(storedLog(straight));
    const report = verifyAuditLog(log.map((d) => JSON.stringify(d)), { ontologies: [blob] });
    expect(report.ok, JSON.stringify(report.mismatches?.slice(0, 2))).toBe(true);
  });

  it("evictions between requests give the log of a session that never slept", async () => {
    const evicted = memoryStore();
    const j = journal(evicted);
    await j.start();
    await runPlan(j, 2, 1);
    const straight = memoryStore();
    const s = journal(straight);
    await s.start();
    await runPlan(s, 2);
    expect(storedLog(evicted)).toEqual(storedLog(straight));
    expect(evicted.data.get(HEAD_KEY)).toEqual(straight.data.get(HEAD_KEY));
  });

  it("a failed commit leaves the stored head as it was", async () => {
    const store = memoryStore();
    const j = journal(store);
    await j.start();
    await j.run(ops.slice(0, 4));
    const head = store.data.get(HEAD_KEY);
    store.failNext = true;
    await expect(j.run(ops.slice(4, 8))).rejects.toThrow(/not stored/);
    expect(store.data.get(HEAD_KEY)).toEqual(head);
    await j.run(ops.slice(4, 8));
    expect((store.data.get(HEAD_KEY) as { ops: number }).ops).toBe(8);
  });

  it("a journal stored before heads (and snapshots) were kept is replayed, from its log's last record", async () => {
    const store = memoryStore();
    const j = journal(store);
    await j.start();
    await j.run(ops.slice(0, 10));
    for (const k of [...store.data.keys()]) if (k === HEAD_KEY || k === SNAPSHOT_KEY || k.startsWith("delta:")) store.data.delete(k);
    const woken = journal(store);
    await woken.run(ops.slice(10));
    const straight = memoryStore();
    const s = journal(straight);
    await s.start();
    await s.run(ops);
    expect(storedLog(store)).toEqual(storedLog(straight));
  });

  it("a request during which the session was reset stores nothing and is refused", async () => {
    const store = memoryStore();
    let reset = false;
    let j: SessionJournal;
    j = new SessionJournal(
      store,
      async (log: (d: Decision) => void, resume?: Resume) =>
        createGuard({
          ontology: blob,
          backend: (_t, b) => core.load(b!),
          state: resume === undefined ? initial() : resume.state(initial),
          resume: resume?.snapshot as GuardSnapshot | undefined,
          policy: plan.create.policy as "veto",
          scope: plan.create.scope as "session",
          config: {
            ...plan.create.config,
            projection,
            log: {
              append: (d) => {
                log(d);
                // What a concurrent failing request does: drop the in-memory session (after the
                // request's last decision was logged).
                if (reset) {
                  reset = false;
                  j.forget();
                }
              },
            },
          },
        }),
      { sha256 },
    );
    await j.start();
    await j.run(ops.slice(0, 4));
    const keys = [...store.data.keys()].sort();
    const check = ops.slice(4).find((o) => o.op === "check")!;
    reset = true;
    await expect(j.run([check])).rejects.toBeInstanceOf(JournalError);
    expect([...store.data.keys()].sort()).toEqual(keys);
    await j.run(ops.slice(4));
    const straight = memoryStore();
    const s = journal(straight);
    await s.start();
    await s.run(ops);
    expect(storedLog(store)).toEqual(storedLog(straight));
  });

  describe("a head that disagrees with the journal is refused: a typed error, nothing runs", () => {
    const cases: [string, (head: { index: number; hash: string; ops: number }) => unknown][] = [
      ["a head that is not an object", () => "head"],
      ["a head that is an array", (h) => [h.index, h.hash, h.ops]],
      ["a head without its operation count", (h) => ({ index: h.index, hash: h.hash })],
      ["a head with an extra key", (h) => ({ ...h, approved: true })],
      ["an index that is a string", (h) => ({ ...h, index: String(h.index) })],
      ["a negative index", (h) => ({ ...h, index: -1 })],
      ["a hash that is not 64 lower-case hex digits", (h) => ({ ...h, hash: h.hash.toUpperCase() })],
      ["an operation count the snapshot is not at", (h) => ({ ...h, ops: h.ops + 1 })],
      ["an index the snapshot does not reach", (h) => ({ ...h, index: h.index + 1 })],
      ["an index behind the snapshot", (h) => ({ ...h, index: h.index - 1 })],
    ];
    for (const [what, corrupt] of cases) {
      it(what, async () => {
        const store = memoryStore();
        const j = journal(store);
        await j.start();
        await j.run(ops.slice(0, 6));
        store.data.set(HEAD_KEY, corrupt(store.data.get(HEAD_KEY) as { index: number; hash: string; ops: number }));
        const keys = [...store.data.keys()].sort();
        const woken = journal(store);
        const err = await woken.run(ops.slice(6, 8)).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(JournalError);
        expect((err as JournalError).code).toBe("journal-corrupt");
        expect([...store.data.keys()].sort()).toEqual(keys);
      });
    }
  });

  it("a woken session resumes from its snapshot: it reads no journal, replays nothing, and decides as one that never slept", async () => {
    const store = memoryStore();
    const j = journal(store);
    await j.start();
    const half = Math.floor(ops.length / 2);
    await j.run(ops.slice(0, half));
    expect(store.data.get(SNAPSHOT_KEY)).toMatchObject({ ops: half, base: 0 });
    store.listed = [];
    const before = resumed;
    const woken = journal(store);
    const guard = await woken.ready();
    expect(resumed).toBe(before + 1);
    expect(store.listed).toEqual(["delta:"]);
    const results = await woken.run(ops.slice(half));

    const straight = memoryStore();
    const s = journal(straight);
    const g = await s.start();
    const all = await s.run(ops);
    expect(JSON.stringify(results)).toBe(JSON.stringify(all.slice(half)));
    expect(storedLog(store)).toEqual(storedLog(straight));
    expect(store.data.get(HEAD_KEY)).toEqual(straight.data.get(HEAD_KEY));
    expect(store.data.get(SNAPSHOT_KEY)).toEqual(straight.data.get(SNAPSHOT_KEY));
    expect((guard.state as TrackedLayerB).toJSON()).toEqual((g.state as TrackedLayerB).toJSON());
  });

  it("Layer B is stored as deltas, and as a whole base every REBASE_EVERY of them; woken between any two requests, the same session", async () => {
    // Many small requests that change Layer B: the plan's observes, again and again.
    const observes = longOps.filter((o) => o.op === "observe");
    expect(observes.length).toBeGreaterThan(2);
    const long: Op[] = [];
    for (let i = 0; long.length < REBASE_EVERY * 2 + 10; i++) long.push(observes[i % observes.length], ops.find((o) => o.op === "check")!);
    const requests = long.length / 2;
    const straight = memoryStore();
    const s = journal(straight);
    await s.start();
    const evicted = memoryStore();
    const e = journal(evicted);
    await e.start();
    for (let r = 0; r < requests; r++) {
      const request = long.slice(r * 2, r * 2 + 2);
      const a = await s.run(request);
      if (r % 7 === 3) e.forget();
      const b = await e.run(request);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    }
    const snap = evicted.data.get(SNAPSHOT_KEY) as { ops: number; base: number; deltas: number };
    expect(snap.base).toBeGreaterThan(0);
    expect(snap.deltas).toBeLessThanOrEqual(REBASE_EVERY);
    expect(evicted.data.get(BASE_KEY)).toMatchObject({ ops: snap.base });
    expect(storedLog(evicted)).toEqual(storedLog(straight));
    // Woken from the base and deltas: the Layer B of the session that never slept.
    const woken = await journal(evicted).ready();
    const live = await s.ready();
    expect((woken.state as TrackedLayerB).toJSON()).toEqual((live.state as TrackedLayerB).toJSON());
  });

  describe("a snapshot, base or delta that is missing, malformed or disagrees with the head is refused: journal-corrupt, nothing runs", () => {
    type Stored = { ops: number; base: number; deltas: number; guard: GuardSnapshot };
    const cases: [string, (store: MemoryStore, snap: Stored) => void][] = [
      ["a missing snapshot", (st) => st.data.delete(SNAPSHOT_KEY)],
      ["a snapshot that is not an object", (st) => st.data.set(SNAPSHOT_KEY, "snapshot")],
      ["a snapshot with an extra key", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, approved: true })],
      ["a snapshot after another operation count", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, ops: sn.ops - 1 })],
      ["a guard snapshot at another decision", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, guard: { ...sn.guard, seq: sn.guard.seq - 1 } })],
      ["a guard snapshot of a wrong shape", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, guard: { ...sn.guard, executions: "none" } })],
      ["a guard snapshot of an unknown format", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, guard: { ...sn.guard, format: "polar-guard-snapshot/9" } })],
      ["a guard snapshot of another policy", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, guard: { ...sn.guard, policy: "advisory" } })],
      ["a guard snapshot of another ontology", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, guard: { ...sn.guard, ontologyHash: "0".repeat(64) } })],
      ["a missing delta", (st) => st.data.delete([...st.data.keys()].filter((k) => k.startsWith("delta:")).sort()[0])],
      ["a delta with a malformed entry", (st) => {
        const k = [...st.data.keys()].filter((x) => x.startsWith("delta:")).sort()[0];
        st.data.set(k, { ...(st.data.get(k) as object), entities: [["reservation", 7, {}]] });
      }],
      ["a delta past the head", (st, sn) => {
        const k = [...st.data.keys()].filter((x) => x.startsWith("delta:")).sort()[0];
        st.data.set(k, { ...(st.data.get(k) as object), ops: sn.ops + 1 });
      }],
      ["a base the snapshot names that is missing", (st, sn) => st.data.set(SNAPSHOT_KEY, { ...sn, base: 1 })],
    ];
    for (const [what, corrupt] of cases) {
      it(what, async () => {
        const store = memoryStore();
        const j = journal(store);
        await j.start();
        await j.run(longOps.slice(0, 25));
        await j.run(longOps.slice(25, 30));
        const snap = store.data.get(SNAPSHOT_KEY) as Stored;
        expect(snap.deltas).toBe(2);
        corrupt(store, structuredClone(snap));
        const keys = [...store.data.keys()].sort();
        const woken = journal(store);
        const err = await woken.run(longOps.slice(30, 32)).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(JournalError);
        expect((err as JournalError).code).toBe("journal-corrupt");
        expect([...store.data.keys()].sort()).toEqual(keys);
      });
    }
  });
});

// The Worker example's session journal (examples/worker/src/journal.ts) over an in-memory store, with
// the built package: the log's head is stored with every commit, a woken session goes on from it
// without hashing the replayed records again, and a head that disagrees with the journal is refused
// (a typed error, never a verdict).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createGuard, loadCore, parseProjectionRules, projectDocument, recordHash, verifyAuditLog, type CoreInstance, type Decision } from "polar-guard";
import { HEAD_KEY, JournalError, SessionJournal, type JournalStore, type Op } from "../../examples/worker/src/journal.js";
import { sessionPlan } from "./fixtures/airline-sessions.js";
import { REPO, requireDist } from "./helpers/paths.js";

const blob = new Uint8Array(readFileSync(join(REPO, "ontologies/airline/airline.blob")));
const projection = parseProjectionRules(JSON.parse(readFileSync(join(REPO, "ontologies/airline/projection.json"), "utf8")));
const plan = sessionPlan(0, 12, 20);
const ops = plan.ops as Op[];
let core: CoreInstance;

beforeAll(async () => {
  requireDist();
  core = await loadCore();
});

const sha256 = (d: Uint8Array | string): Uint8Array => new Uint8Array(createHash("sha256").update(d).digest());

interface MemoryStore extends JournalStore {
  data: Map<string, unknown>;
  failNext: boolean;
}

function memoryStore(): MemoryStore {
  const store: MemoryStore = {
    data: new Map(),
    failNext: false,
    get: async (key) => structuredClone(store.data.get(key)),
    list: async (prefix) => new Map([...store.data.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, structuredClone(v)])),
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

function journal(store: JournalStore, hash = sha256): SessionJournal {
  return new SessionJournal(
    store,
    async (log: (d: Decision) => void) =>
      createGuard({
        ontology: blob,
        backend: (_t, b) => core.load(b!),
        state: projectDocument(projection, plan.create.document),
        policy: plan.create.policy as "veto",
        scope: plan.create.scope as "session",
        config: { ...plan.create.config, projection, log: { append: log } },
      }),
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

  it("a journal stored before heads were kept wakes from its log's last record", async () => {
    const store = memoryStore();
    const j = journal(store);
    await j.start();
    await j.run(ops.slice(0, 10));
    store.data.delete(HEAD_KEY);
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
      async (log: (d: Decision) => void) =>
        createGuard({
          ontology: blob,
          backend: (_t, b) => core.load(b!),
          state: projectDocument(projection, plan.create.document),
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
      ["an operation count the journal does not hold", (h) => ({ ...h, ops: h.ops + 1 })],
      ["an index the replay does not reach", (h) => ({ ...h, index: h.index + 1 })],
      ["an index behind the replay", (h) => ({ ...h, index: h.index - 1 })],
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
});

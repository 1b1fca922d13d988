// The runtime loaders from source: where the core and the ontology come from, the typed errors when
// they cannot be had, and guards sharing one core. (The built entries in the real runtimes are tested
// by conformance.test.ts, worker.test.ts and browser-example.test.ts.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as nodeEntry from "../../src/runtimes/node.js";
import * as portable from "../../src/loading/portable.js";
import { LayerB } from "../../src/projection/index.js";
import { RuntimeError } from "../../src/loading/shared.js";
import { REPO } from "./helpers/paths.js";
import { serveStatic, type StaticServer } from "./helpers/static-server.js";
import { CANCELLABLE_STATE } from "./fixtures/airline-cancellable.js";

const AIRLINE = join(REPO, "ontologies/airline/airline.blob");
const RETAIL = join(REPO, "ontologies/retail/retail.blob");
const CORE = join(REPO, "build/polar-core.wasm");
const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };
const state = (): LayerB => LayerB.fromJSON(CANCELLABLE_STATE);

async function rejection(p: Promise<unknown>): Promise<RuntimeError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RuntimeError);
  return err as RuntimeError;
}

let server: StaticServer;
beforeAll(async () => {
  server = await serveStatic({ "/ontologies/": join(REPO, "ontologies"), "/build/": join(REPO, "build") });
});
afterAll(async () => {
  await server.close();
});

describe("Node loader", () => {
  it("reads the ontology from a path, a file URL or bytes, with the same decision", async () => {
    const byPath = await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state: state() });
    const byUrl = await nodeEntry.loadGuard({ ontologyUrl: pathToFileURL(AIRLINE), state: state() });
    const byBytes = await nodeEntry.loadGuard({ blob: readFileSync(AIRLINE), state: state(), wasm: CORE });
    const decisions = [byPath, byUrl, byBytes].map((g) => g.check(cancel));
    expect(decisions[0].route).toBe("Approved");
    expect(decisions[1]).toEqual(decisions[0]);
    expect(decisions[2]).toEqual(decisions[0]);
  });

  it("refuses a missing, doubled or unreadable ontology with a typed error", async () => {
    expect((await rejection(nodeEntry.loadGuard({ state: state() }))).code).toBe("ontology-missing");
    expect((await rejection(nodeEntry.loadGuard({ ontologyPath: AIRLINE, blob: new Uint8Array(1), state: state() }))).code).toBe("ontology-ambiguous");
    const unreadable = await rejection(nodeEntry.loadGuard({ ontologyPath: join(REPO, "no/such.blob"), state: state() }));
    expect(unreadable.code).toBe("ontology-unreadable");
    expect(unreadable.message).toMatch(/^cannot read the ontology `.*no\/such\.blob`: ENOENT$/);
    expect((await rejection(nodeEntry.loadGuard({ ontologyUrl: `${server.url}/ontologies/none.blob`, state: state() }))).code).toBe("ontology-unreadable");
  });

  it("a core file that cannot be read is `core-unavailable`", async () => {
    expect((await rejection(nodeEntry.loadCore(join(REPO, "build/missing.wasm")))).code).toBe("core-unavailable");
  });

  it("a verifier on the packaged core gives the guard's verdict", async () => {
    const verifier = await nodeEntry.loadVerifier({ ontologyPath: AIRLINE });
    const guard = await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state: state(), scope: "session" });
    const verdict = verifier.verdict([cancel], state());
    expect(Buffer.from(verdict.bytes).toString("hex")).toBe(guard.check(cancel).verdict?.bytes);
  });
});

describe("portable (default) loader", () => {
  it("fetches the core and the ontology from URLs (streamed: served as application/wasm)", async () => {
    const core = await portable.loadCore(`${server.url}/build/polar-core.wasm`);
    const guard = await portable.loadGuard({ core, ontologyUrl: `${server.url}/ontologies/airline/airline.blob`, state: state() });
    expect(guard.check(cancel).route).toBe("Approved");
  });

  it("has no file system: `ontologyPath` is refused", async () => {
    const core = await portable.loadCore(readFileSync(CORE));
    const err = await rejection(portable.loadGuard({ core, ontologyPath: AIRLINE, state: state() }));
    expect(err.code).toBe("unsupported-source");
  });

  it("a core that cannot be fetched is `core-unavailable`", async () => {
    expect((await rejection(portable.loadCore(`${server.url}/build/missing.wasm`))).code).toBe("core-unavailable");
  });
});

describe("guards sharing a core", () => {
  it("many sessions on one core and ontology decide as if each had its own", async () => {
    const core = await nodeEntry.loadCore();
    const shared = await Promise.all([1, 2, 3].map(() => nodeEntry.loadGuard({ core, ontologyPath: AIRLINE, state: state() })));
    const alone = (await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state: state() })).check(cancel);
    for (const g of shared) expect(g.check(cancel)).toEqual(alone);
  });

  it("a second ontology on the same core does not leave the first guard stale", async () => {
    const core = await nodeEntry.loadCore();
    const airline = await nodeEntry.loadGuard({ core, ontologyPath: AIRLINE, state: state() });
    const before = airline.check(cancel);
    // Unobserved, the approved call stays pending and would join the next check's forward sequence.
    airline.release(before.execution!);
    await nodeEntry.loadGuard({ core, ontologyPath: RETAIL, state: new LayerB() });
    const after = airline.check(cancel);
    expect(after.route).toBe("Approved");
    // Same decision; only the record's place (seq) and the new execution's id move on.
    expect({ ...after, seq: 0, execution: null }).toEqual({ ...before, seq: 0, execution: null });
  });
});

describe("the Node platform's native hash", () => {
  it("is SHA-256, byte for byte the JavaScript one, and checks blobs and reads digests", async () => {
    const { nodePlatform } = await import("../../src/runtimes/node-platform.js");
    const { sha256 } = await import("../../src/util/sha256.js");
    expect(nodePlatform.sha256).toBeTypeOf("function");
    for (const text of ["", "abc", "x".repeat(1000), "τ²-bench"]) expect(nodePlatform.sha256!(text)).toEqual(Buffer.from(sha256(new TextEncoder().encode(text))));
    // A guard loaded through the Node entry decides exactly like one on the JavaScript hash.
    const state = new LayerB();
    const call = { name: "transfer_to_human_agents", arguments: { summary: "s" } };
    const native = await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state });
    const portableGuard = await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state, config: { sha256: (d) => sha256(typeof d === "string" ? new TextEncoder().encode(d) : d) } });
    expect(JSON.stringify(native.check(call))).toBe(JSON.stringify(portableGuard.check(call)));
  });
});

describe("core options through the loaders", () => {
  it("maxMemoryPages reaches the core: a bound too small for the blob is a typed refusal, the default loads", async () => {
    const state = new LayerB();
    await expect(nodeEntry.loadGuard({ ontologyPath: AIRLINE, state, coreOptions: { maxMemoryPages: 1 } })).rejects.toMatchObject({ code: "invalid-backend", cause: { code: "core-out-of-memory" } });
    await expect(nodeEntry.loadCore(undefined, { maxMemoryPages: 0 })).rejects.toMatchObject({ code: "core-bad-options" });
    const guard = await nodeEntry.loadGuard({ ontologyPath: AIRLINE, state, coreOptions: { maxMemoryPages: 1024 } });
    expect(guard.check({ name: "transfer_to_human_agents", arguments: { summary: "s" } }).reason).toBe("external_side_effect");
  });
});

// The gateway in front of the real @modelcontextprotocol/server-memory: every admitted call's inverse
// sequence π, executed through the gateway, puts the knowledge graph back (compared as sets: the
// server appends re-created items at the end, the declared `list_position` residue); every refusal
// leaves the graph untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MEMORY_ONTOLOGY, MEMORY_RULES, MEMORY_SERVER, decisionOf, gateway, runInverse, tempDir, textOf, type Connected } from "./helpers.js";

interface Graph {
  entities: Array<{ name: string; entityType: string; observations: string[] }>;
  relations: Array<{ from: string; to: string; relationType: string }>;
}

/** The graph as a set: entities and relations sorted, observations as multisets (sorted). */
function normal(g: Graph): unknown {
  const ents = g.entities.map((e) => ({ ...e, observations: [...e.observations].sort() })).sort((a, b) => a.name.localeCompare(b.name));
  const rels = g.relations.map((r) => `${r.from}\u0000${r.relationType}\u0000${r.to}`).sort();
  return { ents, rels };
}

let g: Connected;
let tmp: ReturnType<typeof tempDir>;

async function graph(): Promise<Graph> {
  const r = await g.call("read_graph", {});
  return r.structuredContent as unknown as Graph;
}

/** Runs `call`; it must be admitted; then runs its π and checks the graph is back as it was. */
async function admittedAndUndone(name: string, args: Record<string, unknown>): Promise<void> {
  const before = normal(await graph());
  const r = await g.call(name, args);
  expect(r.isError, textOf(r)).not.toBe(true);
  const d = decisionOf(r);
  expect(d.route).toBe("Approved");
  expect(d.inverse.length).toBeGreaterThan(0);
  expect(normal(await graph())).not.toEqual(before);
  await runInverse(g, d);
  expect(normal(await graph())).toEqual(before);
}

async function refusedAndUntouched(name: string, args: Record<string, unknown>, reason: string, says?: RegExp): Promise<string> {
  const before = await graph();
  const r = await g.call(name, args);
  expect(r.isError).toBe(true);
  const d = decisionOf(r);
  expect(d.route).toBe("Vetoed");
  expect(d.reason).toBe(reason);
  const text = textOf(r);
  expect(text).toMatch(/^Not run: /);
  expect(text).toMatch(/What would make it safe: /);
  if (says) expect(text).toMatch(says);
  expect(await graph()).toEqual(before);
  return text;
}

beforeAll(async () => {
  tmp = tempDir("memory");
  g = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(tmp.dir, "memory.jsonl") } });
  // A starting graph (creations are judged too: new names, so they are admitted).
  for (const [name, type, obs] of [["alice", "person", ["likes tea", "lives in Oslo"]], ["bob", "person", ["plays chess"]], ["acme", "company", []]] as const) {
    const r = await g.call("create_entities", { entities: [{ name, entityType: type, observations: [...obs] }] });
    expect(r.isError, textOf(r)).not.toBe(true);
  }
  const r = await g.call("create_relations", { relations: [{ from: "alice", to: "acme", relationType: "works at" }] });
  expect(r.isError, textOf(r)).not.toBe(true);
  // The server got the gateway's environment (MEMORY_FILE_PATH): the graph is in the temp dir.
  expect(existsSync(join(tmp.dir, "memory.jsonl"))).toBe(true);
}, 60_000);

afterAll(async () => {
  await g?.close();
  tmp?.cleanup();
});

describe("gateway in front of server-memory: admitted calls are undone by executing π", () => {
  it("create_entities (a batch of new names) is undone by delete_entities", () =>
    admittedAndUndone("create_entities", { entities: [{ name: "carol", entityType: "person", observations: ["new"] }, { name: "dave", entityType: "person", observations: [] }] }));

  it("delete_entities of an entity without relations is undone by re-creating it with its observations", () =>
    admittedAndUndone("delete_entities", { entityNames: ["bob"] }));

  it("create_relations of a new relation is undone by delete_relations", () =>
    admittedAndUndone("create_relations", { relations: [{ from: "bob", to: "acme", relationType: "works at" }] }));

  it("delete_relations is undone by re-creating the relations the server held (and only those)", () =>
    admittedAndUndone("delete_relations", { relations: [{ from: "alice", to: "acme", relationType: "works at" }, { from: "nobody", to: "acme", relationType: "owns" }] }));

  it("add_observations is undone by deleting only the contents that were new", () =>
    admittedAndUndone("add_observations", { observations: [{ entityName: "alice", contents: ["likes tea", "reads", "reads"] }] }));

  it("delete_observations is undone by adding back every copy that was deleted", () =>
    admittedAndUndone("delete_observations", { deletions: [{ entityName: "alice", observations: ["likes tea", "not there"] }] }));

  it("a session of calls is undone call by call, newest first", async () => {
    const before = normal(await graph());
    const d1 = decisionOf(await g.call("delete_relations", { relations: [{ from: "alice", to: "acme", relationType: "works at" }] }));
    const d2 = decisionOf(await g.call("delete_entities", { entityNames: ["alice"] }));
    expect([d1.route, d2.route]).toEqual(["Approved", "Approved"]);
    await runInverse(g, d2);
    await runInverse(g, d1);
    expect(normal(await graph())).toEqual(before);
  });
});

describe("parallel calls of one session", () => {
  it("are judged one at a time: each call's π comes from the state read for that call", async () => {
    const before = normal(await graph());
    const [a, b] = await Promise.all([
      g.call("add_observations", { observations: [{ entityName: "alice", contents: ["likes tea", "parallel b"] }] }),
      g.call("add_observations", { observations: [{ entityName: "alice", contents: ["parallel c"] }] }),
    ]);
    const [da, db] = [decisionOf(a), decisionOf(b)];
    expect(da.inverse[0].arguments).toEqual({ deletions: [{ entityName: "alice", observations: ["parallel b"] }] });
    expect(db.inverse[0].arguments).toEqual({ deletions: [{ entityName: "alice", observations: ["parallel c"] }] });
    await runInverse(g, db);
    await runInverse(g, da);
    expect(normal(await graph())).toEqual(before);
  });
});

describe("gateway in front of server-memory: refusals leave the graph untouched", () => {
  it("deleting an entity that has relations is refused, and the model is told to delete the relations first", async () => {
    await refusedAndUntouched("delete_entities", { entityNames: ["alice"] }, "missing_entity", /delete_relations/);
  });

  it("creating an entity whose name exists is refused (the server would skip it; deleting it would lose the old one)", async () => {
    await refusedAndUntouched("create_entities", { entities: [{ name: "alice", entityType: "robot", observations: [] }] }, "missing_entity", /names are new/);
  });

  it("creating a relation that exists is refused", async () => {
    await refusedAndUntouched("create_relations", { relations: [{ from: "alice", to: "acme", relationType: "works at" }] }, "missing_entity");
  });

  it("observations for an entity that does not exist are refused", async () => {
    await refusedAndUntouched("add_observations", { observations: [{ entityName: "zed", contents: ["x"] }] }, "missing_entity");
  });

  it("a batch of observations for two entities is refused (one entity per call)", async () => {
    await refusedAndUntouched("add_observations", { observations: [{ entityName: "alice", contents: ["x"] }, { entityName: "bob", contents: ["y"] }] }, "missing_entity", /one existing entity per call/);
  });

  it("an argument named like a derived one is refused as malformed", async () => {
    await refusedAndUntouched("delete_entities", { entityNames: ["bob"], entity_name: "acme" }, "malformed_call");
  });

  it("an empty batch is refused as malformed (no entity to judge)", async () => {
    await refusedAndUntouched("delete_entities", { entityNames: [] }, "malformed_call");
  });
});

describe("session scope: one π undoes every admitted call since the start", () => {
  it("π of the last call undoes the whole session, newest first, back to the empty graph", async () => {
    const t = tempDir("session");
    const s = await gateway({ ontology: MEMORY_ONTOLOGY, rules: MEMORY_RULES, server: [process.execPath, MEMORY_SERVER], scope: "session", env: { MEMORY_FILE_PATH: join(t.dir, "m.jsonl") } });
    try {
      const read = async (): Promise<unknown> => normal((await s.call("read_graph", {})).structuredContent as unknown as Graph);
      const empty = await read();
      for (const name of ["x", "y"]) await s.call("create_entities", { entities: [{ name, entityType: "t", observations: [`${name} obs`] }] });
      await s.call("create_relations", { relations: [{ from: "x", to: "y", relationType: "knows" }] });
      const full = await read();
      await s.call("delete_relations", { relations: [{ from: "x", to: "y", relationType: "knows" }] });
      const d = decisionOf(await s.call("delete_entities", { entityNames: ["x"] }));
      expect(d.route).toBe("Approved");
      // Five admitted calls, five steps: the inverse of each, most recent first.
      expect(d.inverse.map((x) => x.tool)).toEqual(["create_entities", "create_relations", "delete_relations", "delete_entities", "delete_entities"]);
      const [first, second, ...rest] = d.inverse;
      for (const step of [first, second]) expect((await s.call(step.tool!, step.arguments!)).isError).not.toBe(true);
      expect(await read()).toEqual(full); // the last two calls are undone
      for (const step of rest) expect((await s.call(step.tool!, step.arguments!)).isError).not.toBe(true);
      expect(await read()).toEqual(empty); // and the whole session
    } finally {
      await s.close();
      t.cleanup();
    }
  }, 60_000);
});

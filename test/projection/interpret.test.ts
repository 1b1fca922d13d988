import { describe, expect, it } from "vitest";
import {
  LayerB,
  applyAction,
  applyToolResult,
  parseProjectionRules,
  parseToolResult,
  projectDocument,
  ProjectionError,
} from "../../src/projection/index.js";
import { isOwnedJson } from "../../src/util/owned-json.js";

/** Rules with one entity `t` (all fields) whose derived slot `v` is `expr`; projects `rec` as `t/x`. */
function evalSlot(expr: unknown, rec: unknown, state?: LayerB, extra: Record<string, unknown> = {}): unknown {
  const rules = parseProjectionRules({
    format: "polar-projection/1",
    domain: "d",
    entities: { t: { fields: "*", slots: { v: expr } }, other: { fields: "*" } },
    documents: { db: [{ entity: "t", from: "items", id: "$key" }] },
    ...extra,
  });
  const out = projectDocument(rules, { items: { x: rec }, meta: { k: "m" } }, state ?? new LayerB());
  return out.slot("t", "x", "v");
}

describe("expressions", () => {
  const rec = {
    name: "n",
    n: 3,
    s: "12.5",
    list: [{ d: "2024-05-03", a: 5 }, { d: "2024-05-01", a: 7 }, { d: null, a: 1 }],
    nums: [4, 2, 9],
    obj: { b: 1, a: 2 },
    nested: { "dot.key": 1, deep: { x: "y" } },
    flag: true,
  };

  it.each([
    ["a path", "name", "n"],
    ["a nested path", "nested.deep.x", "y"],
    ["a list index", "list.1.d", "2024-05-01"],
    ["a negative index", "nums.-1", 9],
    ["a missing path", "nope.x", undefined],
    ["a path through a scalar", "name.x", undefined],
    ["`$` itself (copied whole)", { size: "$" }, 8],
    ["$key", "$key", "x"],
    ["$doc", "$doc.meta.k", "m"],
    ["path segments", { path: ["nested", "dot.key"] }, 1],
    ["const", { const: [1, "a"] }, [1, "a"]],
    ["size of a list", { size: "list" }, 3],
    ["size of an object", { size: "obj" }, 2],
    ["size of a string", { size: "name" }, 1],
    ["size of a number", { size: "n" }, undefined],
    ["min by, skipping null", { min: "list", by: "$item.d" }, "2024-05-01"],
    ["max of numbers", { max: "nums" }, 9],
    ["min of an empty list", { min: { const: [] } }, undefined],
    ["first", { first: "list", by: "$item.a" }, 5],
    ["first where", { first: "list", where: { gt: ["$item.a", { const: 5 }] }, by: "$index" }, 1],
    ["last", { last: "nums" }, 9],
    ["last with no match", { last: "nums", where: { const: false } }, undefined],
    ["sum by", { sum: "list", by: "$item.a" }, 13],
    ["sum of nothing", { sum: { const: [] } }, 0],
    ["count where", { count: "nums", where: { gt: ["$item", { const: 3 }] } }, 2],
    ["filter", { filter: "nums", where: { lt: ["$item", { const: 5 }] } }, [4, 2]],
    ["map", { map: "list", to: "$item.a" }, [5, 7, 1]],
    ["any", { any: "nums", where: { eq: ["$item", { const: 2 }] } }, true],
    ["all", { all: "nums", where: { gt: ["$item", { const: 2 }] } }, false],
    ["over an object's values", { sum: "obj" }, 3],
    ["keys", { keys: "obj" }, ["b", "a"]],
    ["values", { values: "obj" }, [1, 2]],
    ["get with computed keys", { get: ["list", { path: "n" }] }, undefined],
    ["get with literal keys", { get: ["nested", "deep", "x"] }, "y"],
    ["get with a number key", { get: ["nums", 0] }, 4],
    ["assoc", { assoc: "obj", keys: ["c", "d"], value: { const: 1 } }, { b: 1, a: 2, c: { d: 1 } }],
    ["assoc into a list", { assoc: "nums", keys: [1], value: { const: 0 } }, [4, 0, 9]],
    ["object", { object: { a: "name", b: { size: "nums" }, c: "nope" } }, { a: "n", b: 3 }],
    ["object per item", { map: "list", to: { object: { day: "$item.d" } } }, [{ day: "2024-05-03" }, { day: "2024-05-01" }, { day: null }]],
    ["append", { append: "nums", value: { const: 1 } }, [4, 2, 9, 1]],
    ["append to missing", { append: "none", value: { const: 1 } }, [1]],
    ["without", { without: "list", value: { const: { d: null, a: 1 } } }, [{ d: "2024-05-03", a: 5 }, { d: "2024-05-01", a: 7 }]],
    ["template", { template: "{name}-{n}/{flag}" }, "n-3/true"],
    ["template with a missing part", { template: "{name}-{nope}" }, undefined],
    ["concat", { concat: ["name", { const: ":" }, "n"] }, "n:3"],
    ["date", { date: { const: "2024-05-01 06:30" } }, "2024-05-01T06:30:00"],
    ["date of a day", { date: "list.0.d" }, "2024-05-03T00:00:00"],
    ["date of garbage", { date: "name" }, undefined],
    ["regex group", { regex: { const: "Mode is now ON." }, pattern: "now (ON|OFF)" }, "ON"],
    ["regex named group", { regex: { const: "a=5" }, pattern: "a=(?<v>\\d)", group: "v" }, "5"],
    ["regex whole match, case-insensitive", { regex: { const: "Success!" }, pattern: "success", group: 0, flags: "i" }, "Success"],
    ["regex no match", { regex: "name", pattern: "zzz" }, undefined],
    ["regex on a number", { regex: "n", pattern: "3" }, undefined],
    ["switch", { switch: { const: "OFF" }, cases: { ON: true, OFF: false } }, false],
    ["switch default", { switch: { const: "X" }, cases: { ON: true }, default: null }, null],
    ["switch on a bool", { switch: "flag", cases: { true: "yes" } }, "yes"],
    ["if", { if: "flag", then: { const: 1 }, else: { const: 2 } }, 1],
    ["if without else", { if: { not: "flag" }, then: { const: 1 } }, undefined],
    ["eq deep", { eq: ["obj", { const: { a: 2, b: 1 } }] }, true],
    ["ne", { ne: ["n", { const: 3 }] }, false],
    ["eq with missing is unknown", { eq: ["nope", { const: 1 }] }, undefined],
    ["lt strings", { lt: ["list.1.d", "list.0.d"] }, true],
    ["ge numbers", { ge: ["n", { const: 3 }] }, true],
    ["lt of mixed types is unknown", { lt: ["n", "name"] }, undefined],
    ["in", { in: "name", values: ["m", "n"] }, true],
    ["not of a non-bool", { not: "n" }, undefined],
    ["and (Kleene)", { and: [{ const: true }, "nope"] }, undefined],
    ["and false wins", { and: [{ const: false }, "nope"] }, false],
    ["or true wins", { or: ["nope", { const: true }] }, true],
    ["or all false", { or: [{ const: false }, { const: false }] }, false],
    ["exists", { exists: "list.2.d" }, false],
    ["coalesce", { coalesce: ["list.2.d", "nope", "name"] }, "n"],
    ["number from a string", { number: "s" }, 12.5],
    ["number from garbage", { number: "name" }, undefined],
    ["string", { string: "n" }, "3"],
    ["add", { add: ["n", "s"] }, 15.5],
    ["sub", { sub: ["n", { const: 1 }] }, 2],
    ["sub with missing", { sub: ["nope", { const: 1 }] }, undefined],
    ["$slots reads earlier slots", "$slots.name", "n"],
  ])("%s", (_name, expr, expected) => {
    expect(evalSlot(expr, rec)).toEqual(expected);
  });

  it("looks up entities already in Layer B", () => {
    const state = new LayerB();
    state.set("other", "o1", "status", "landed");
    expect(evalSlot({ entity: "other", id: { const: "o1" }, slot: "status" }, {}, state)).toBe("landed");
    expect(evalSlot({ entity: "other", id: { const: "o1" } }, {}, state)).toEqual(Object.assign(Object.create(null), { status: "landed" }));
    expect(evalSlot({ entity: "other", id: { const: "zz" }, slot: "status" }, {}, state)).toBeUndefined();
  });

  it("treats `__proto__` and inherited names as data, not prototype access", () => {
    const rec = JSON.parse('{"__proto__": {"x": 1}}');
    expect(evalSlot("__proto__.x", rec)).toBe(1);
    expect(evalSlot("constructor", {})).toBeUndefined();
    expect(evalSlot("toString", {})).toBeUndefined();
  });

  it("a template text used by several expressions builds each id from its own values, however many in a row", () => {
    // The same template in three derived slots over 20 items (more than a shared sub-expression
    // remembers per record), numbers, a -0, a boolean and a missing part among them: every id is its
    // item's.
    const items = Array.from({ length: 20 }, (_, i) => ({ a: i % 3 === 0 ? `f${i}` : i, b: i === 7 ? -0 : i === 9 ? true : i === 11 ? undefined : `d${i % 4}` }));
    const expected = items.map((x) => (x.b === undefined ? null : `${String(x.a)}/${String(x.b)}`));
    const ids = { map: "items", to: { template: "{$item.a}/{$item.b}" } };
    const rec = { items };
    const rules = parseProjectionRules({
      format: "polar-projection/1", domain: "d",
      entities: { t: { fields: [], slots: { one: ids, two: { map: "items", to: { template: "{$item.a}/{$item.b}" } }, back: { map: { const: [19, 3, 7, 0, 9, 11, 12] }, to: { template: "{$item}/{$item}" } } } } },
      documents: { db: [{ entity: "t", from: "recs", id: "$key" }] },
    });
    const out = projectDocument(rules, { recs: { x: rec, y: { items: items.slice().reverse() } } }, new LayerB());
    expect(out.slot("t", "x", "one")).toEqual(expected);
    expect(out.slot("t", "x", "two")).toEqual(expected);
    expect(out.slot("t", "y", "one")).toEqual(expected.slice().reverse());
    expect(out.slot("t", "x", "back")).toEqual(["19/19", "3/3", "7/7", "0/0", "9/9", "11/11", "12/12"]);
    expect(evalSlot({ template: "{n}:{n}" }, { n: -0 })).toBe("0:0");
  });

  it("count, any and all ask every item: an item that contradicts the rule is an error even after the answer is known", () => {
    const list = { const: [1, 2, "x"] };
    const bad = { gt: [{ sum: { const: ["$item"] } }, { const: 0 }] };
    expect(evalSlot({ count: { const: [1, 2, 3] }, where: { gt: ["$item", { const: 1 }] } }, {})).toBe(2);
    expect(evalSlot({ any: { const: [1, 2, 3] }, where: { gt: ["$item", { const: 2 }] } }, {})).toBe(true);
    expect(evalSlot({ all: { const: [1, 2, 3] }, where: { gt: ["$item", { const: 1 }] } }, {})).toBe(false);
    expect(evalSlot({ all: { const: [] }, where: { const: false } }, {})).toBe(true);
    expect(evalSlot({ sum: { const: [1, null, 2.5] } }, {})).toBe(3.5);
    expect(evalSlot({ sum: { const: [null] } }, {})).toBeUndefined();
    expect(evalSlot({ sum: { const: [] } }, {})).toBe(0);
    for (const op of ["count", "any", "all"]) expect(() => evalSlot({ [op]: list, where: bad }, {})).toThrow(/`sum` at .* met a string/);
  });

  it("fails with eval-error when the data contradicts the rule", () => {
    expect(() => evalSlot({ min: { const: [1, "a"] } }, {})).toThrow(/`min` at .* compares a string with a number/);
    expect(() => evalSlot({ sum: { const: [1, "a"] } }, {})).toThrow(ProjectionError);
    expect(() => evalSlot({ append: { const: 3 }, value: { const: 1 } }, {})).toThrow(/needs a list/);
    expect(() => evalSlot({ assoc: { const: [1] }, keys: [5], value: { const: 1 } }, {})).toThrow(/out of range/);
  });
});

describe("projectDocument", () => {
  const rules = parseProjectionRules({
    format: "polar-projection/1",
    domain: "d",
    entities: {
      user: { fields: ["name", "orders"], slots: { order_count: { size: "orders" } } },
      card: { fields: "*", exclude: ["secret"] },
      order: { fields: "*" },
      settings: { fields: "*" },
    },
    documents: {
      db: [
        { entity: "user", from: "users", id: "$key" },
        { entity: "card", from: "users.*.cards", id: "id", slots: { owner: "$1", owner_name: "$parent.name" } },
        { entity: "order", from: "orders", id: "order_id", where: { ne: ["status", { const: "draft" }] } },
      ],
      settings: [
        { entity: "settings", from: "", single: true, id: { const: "main" } },
        { entity: "user", from: "extra", id: "$key", merge: true },
      ],
    },
  });
  const doc = {
    users: {
      u1: { name: "Ann", orders: ["o1"], cards: [{ id: "c1", secret: "x", amount: 5 }] },
      u2: { name: "Bob", orders: [], cards: [] },
    },
    orders: [
      { order_id: "o1", status: "placed" },
      { order_id: 7, status: "placed" },
      { order_id: "o3", status: "draft" },
    ],
  };

  it("projects maps, lists, nested collections with captures, filters", () => {
    const b = projectDocument(rules, doc);
    expect(b.slot("user", "u1", "order_count")).toBe(1);
    expect(b.slot("user", "u1", "cards")).toBeUndefined();
    expect(b.entity("card", "c1")).toEqual(Object.assign(Object.create(null), { id: "c1", amount: 5, owner: "u1", owner_name: "Ann" }));
    expect(b.ids("order")).toEqual(["o1", "7"]);
    expect(b.size()).toBe(5);
  });

  it("projects a single record and merges into existing entities", () => {
    const b = projectDocument(rules, doc);
    projectDocument(rules, { theme: "dark", extra: { u1: { name: "Ann B" }, u9: { name: "New" } } }, b, { document: "settings" });
    expect(b.slot("settings", "main", "theme")).toBe("dark");
    expect(b.slot("user", "u1", "name")).toBe("Ann B");
    expect(b.slot("user", "u1", "order_count")).toBe(1);
    expect(b.slot("user", "u9", "name")).toBe("New");
  });

  it("a merge pass with `derive` derives only the named slots again, over the entity's slots as they are", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: {
        item: {
          fields: "*",
          slots: {
            // how many items come after this one in the collection: complete only once all exist
            later: { count: { const: ["a", "b", "c"] }, where: { and: [{ gt: ["$item", "$.id"] }, { exists: { entity: "item", id: "$item" } }] } },
            twice: { add: ["$slots.later", "$slots.later"] },
            v_seen: "v",
          },
        },
      },
      documents: {
        db: [
          { entity: "item", from: "items", id: "id" },
          { entity: "item", from: "items", id: "id", merge: true, derive: ["later", "twice"] },
        ],
        again: [{ entity: "item", from: "items", id: "id", merge: true, derive: ["later"] }],
      },
    });
    let copies = 0;
    class Counting extends LayerB {
      override entity(entity: string, id: string) {
        copies++;
        return super.entity(entity, id);
      }
    }
    const b = projectDocument(r, { items: [{ id: "a", v: 1 }, { id: "b", v: 2 }, { id: "c", v: 3 }] }, new Counting());
    expect([b.slot("item", "a", "later"), b.slot("item", "b", "later"), b.slot("item", "c", "later")]).toEqual([2, 1, 0]);
    // `$slots` of the second pass sees the slot derived again just before it (`twice` of the new `later`).
    expect([b.slot("item", "a", "twice"), b.slot("item", "b", "twice")]).toEqual([4, 2]);
    // The entity's slots are read where Layer B keeps them, not copied.
    expect(copies).toBe(0);
    // Only the named slots: the fields and the other slots keep their values.
    b.deleteEntity("item", "c");
    projectDocument(r, { items: [{ id: "a", v: 99 }] }, b, { document: "again" });
    expect(b.entity("item", "a")).toEqual(Object.assign(Object.create(null), { id: "a", v: 1, later: 1, twice: 4, v_seen: 1 }));
  });

  it("a `derive` pass leaves a slot whose expression gives nothing, and keeps a slot that holds the same JSON", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { item: { fields: "*", slots: { pair: { object: { a: "v" } }, maybe: "w" } } },
      documents: {
        db: [{ entity: "item", from: "items", id: "id" }],
        again: [{ entity: "item", from: "items", id: "id", merge: true, derive: ["pair", "maybe"] }],
      },
    });
    const b = projectDocument(r, { items: [{ id: "a", v: 1, w: "x" }] });
    const pair = b.slot("item", "a", "pair");
    projectDocument(r, { items: [{ id: "a", v: 1 }] }, b, { document: "again" });
    expect(b.slot("item", "a", "pair")).toBe(pair);
    expect(b.slot("item", "a", "maybe")).toBe("x");
    projectDocument(r, { items: [{ id: "a", v: 2, w: "y" }] }, b, { document: "again" });
    expect([b.slot("item", "a", "pair"), b.slot("item", "a", "maybe")]).toEqual([{ a: 2 }, "y"]);
  });

  it("a merge keeps a slot that holds the same JSON as Layer B's own copy, and replaces anything else", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { item: { fields: ["v"] } },
      documents: { db: [{ entity: "item", from: "items", id: "$key", merge: true }] },
    });
    const b = projectDocument(r, { items: { x: { v: { a: [1, 2] } }, y: { v: { a: 1 } } } });
    const kept = b.slot("item", "x", "v");
    expect(isOwnedJson(kept)).toBe(true);
    projectDocument(r, { items: { x: { v: { a: [1, 2] } }, y: { v: { a: 2 } } } }, b);
    expect(b.slot("item", "x", "v")).toBe(kept);
    expect(b.slot("item", "y", "v")).toEqual({ a: 2 });
    // A value Layer B kept as given (it was not JSON) is never taken for its own copy, even once the
    // caller made it JSON: the merge stores Layer B's own frozen copy.
    const given: Record<string, unknown> = { a: 1, f: () => 1 };
    b.set("item", "z", "v", given);
    expect(b.slot("item", "z", "v")).toBe(given);
    delete given.f;
    projectDocument(r, { items: { z: { v: { a: 1 } } } }, b);
    expect(b.slot("item", "z", "v")).not.toBe(given);
    expect(isOwnedJson(b.slot("item", "z", "v"))).toBe(true);
    expect(given).toEqual({ a: 1 });
    expect(Object.isFrozen(given)).toBe(false);
  });

  it("`exists` of an entity asks whether it exists, without copying its record", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { item: { fields: "*", slots: { has_next: { exists: { entity: "item", id: "$.next" } }, next_v: { entity: "item", id: "$.next", slot: "v" } } } },
      documents: { db: [{ entity: "item", from: "items", id: "id" }] },
    });
    let copies = 0;
    class Counting extends LayerB {
      override entity(entity: string, id: string) {
        copies++;
        return super.entity(entity, id);
      }
    }
    const b = projectDocument(r, { items: [{ id: "a", v: 1 }, { id: "b", v: 2, next: "a" }, { id: "c", next: "zz" }] }, new Counting());
    expect([b.slot("item", "a", "has_next"), b.slot("item", "b", "has_next"), b.slot("item", "c", "has_next")]).toEqual([false, true, false]);
    expect(b.slot("item", "b", "next_v")).toBe(1);
    expect(copies).toBe(0);
  });

  it("a merge pass over an entity that does not exist yet projects it whole, with `derive` or without", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { item: { fields: "*", slots: { n: { const: 1 }, m: { const: 2 } } } },
      documents: { db: [{ entity: "item", from: "items", id: "id", merge: true, derive: ["n"] }] },
    });
    const b = projectDocument(r, { items: [{ id: "a", v: 1 }] });
    expect(b.entity("item", "a")).toEqual(Object.assign(Object.create(null), { id: "a", v: 1, n: 1, m: 2 }));
  });

  it("replaces an entity when a source does not merge", () => {
    const b = new LayerB();
    b.set("user", "u1", "stale", true);
    projectDocument(rules, doc, b);
    expect(b.slot("user", "u1", "stale")).toBeUndefined();
  });

  it("ignores a missing collection", () => {
    expect(projectDocument(rules, {}).size()).toBe(0);
  });

  it("fails on a record without an id and on an unknown document", () => {
    expect(() => projectDocument(rules, { orders: [{ status: "placed" }] })).toThrow(/no entity id for order in `orders` at key `0`/);
    try {
      projectDocument(rules, {}, undefined, { document: "nope" });
    } catch (e) {
      expect((e as ProjectionError).code).toBe("bad-document");
      expect((e as ProjectionError).help).toBe("documents: db, settings");
    }
    expect(() => projectDocument(rules, {}, undefined, { document: "nope" })).toThrow(ProjectionError);
  });
});

describe("applyToolResult", () => {
  const rules = parseProjectionRules({
    format: "polar-projection/1",
    domain: "d",
    entities: {
      res: { fields: "*", slots: { n: { size: "items" } } },
      user: { fields: "*" },
      seat: { fields: "*" },
      device: { fields: "*" },
    },
    tools: {
      update_res: { entity: "res", id: "$args.id", record: "$result" },
      book: [
        { op: "create", entity: "res", id: "$result.id", record: "$result", set: { source: { const: "booked" } } },
        { entity: "user", id: "$args.user", set: { res: { append: "$before.res", value: "$result.id" } } },
        {
          forEach: "$result.items",
          when: { ne: ["$item", { const: "skip" }] },
          entity: "seat",
          id: "$item",
          set: { taken: { add: [{ coalesce: ["$before.taken", { const: 0 }] }, { const: 1 }] } },
        },
      ],
      cancel: { op: "delete", entity: "res", id: "$args.id" },
      toggle: {
        entity: "device",
        id: { const: "d" },
        set: { on: { switch: { regex: "$text", pattern: "now (ON|OFF)" }, cases: { ON: true, OFF: false } }, note: "$result.nope" },
      },
      by_result: { entity: "res", id: "$result.missing", set: { x: { const: 1 } } },
      rec_missing: { entity: "res", id: "$args.id", record: "$result.nothing" },
    },
    actions: { power_on: { entity: "device", id: { const: "d" }, set: { on: { const: true } } } },
  });

  it("re-projects a full record, replacing the entity's slots", () => {
    const b = new LayerB();
    b.set("res", "R1", "old", 1);
    const r = applyToolResult(rules, b, { name: "update_res", arguments: { id: "R1" } }, JSON.stringify({ id: "R1", items: ["a", "b"] }));
    expect(r).toEqual({ tool: "update_res", matched: true, changes: [{ op: "upsert", entity: "res", id: "R1", effective: true }], skipped: [] });
    expect(b.entity("res", "R1")).toEqual(Object.assign(Object.create(null), { id: "R1", items: ["a", "b"], n: 2 }));
  });

  it("creates, appends from $before, and loops with forEach/when", () => {
    const b = new LayerB();
    b.set("user", "u", "res", ["R0"]);
    b.set("seat", "a", "taken", 2);
    const r = applyToolResult(rules, b, { name: "book", arguments: { user: "u" } }, { id: "R9", items: ["a", "skip", "c"] });
    expect(r.changes).toEqual([
      { op: "create", entity: "res", id: "R9", effective: true },
      { op: "upsert", entity: "user", id: "u", effective: true },
      { op: "upsert", entity: "seat", id: "a", effective: true },
      { op: "upsert", entity: "seat", id: "c", effective: true },
    ]);
    expect(b.slot("res", "R9", "source")).toBe("booked");
    expect(b.slot("res", "R9", "n")).toBe(3);
    expect(b.slot("user", "u", "res")).toEqual(["R0", "R9"]);
    expect(b.slot("seat", "a", "taken")).toBe(3);
    expect(b.slot("seat", "c", "taken")).toBe(1);
    expect(b.hasEntity("seat", "skip")).toBe(false);
    // Creating over an existing entity replaces it and says it was not new.
    const again = applyToolResult(rules, b, { name: "book", arguments: { user: "u" } }, { id: "R9", items: [] });
    expect(again.changes[0]).toEqual({ op: "create", entity: "res", id: "R9", effective: false });
  });

  it("deletes", () => {
    const b = new LayerB();
    b.set("res", "R1", "x", 1);
    expect(applyToolResult(rules, b, { name: "cancel", arguments: { id: "R1" } }, "ok").changes).toEqual([{ op: "delete", entity: "res", id: "R1", effective: true }]);
    expect(b.hasEntity("res", "R1")).toBe(false);
    expect(applyToolResult(rules, b, { name: "cancel", arguments: { id: "R1" } }, "ok").changes[0].effective).toBe(false);
  });

  it("reads text results and leaves slots alone when a value is missing", () => {
    const b = new LayerB();
    b.set("device", "d", "note", "keep");
    applyToolResult(rules, b, { name: "toggle", arguments: {} }, "Airplane Mode is now ON.\nStatus Bar: ✈️");
    expect(b.slot("device", "d", "on")).toBe(true);
    expect(b.slot("device", "d", "note")).toBe("keep");
    applyToolResult(rules, b, { name: "toggle", arguments: {} }, "Something else");
    expect(b.slot("device", "d", "on")).toBe(true);
    applyToolResult(rules, b, { name: "toggle", arguments: {} }, "Airplane Mode is now OFF.");
    expect(b.slot("device", "d", "on")).toBe(false);
  });

  it("applies nothing for an errored call or an unknown tool", () => {
    const b = new LayerB();
    expect(applyToolResult(rules, b, { name: "cancel", arguments: { id: "R1" } }, "Error: x", { error: true })).toEqual({ tool: "cancel", matched: true, changes: [], skipped: [] });
    expect(applyToolResult(rules, b, { name: "get_res", arguments: {} }, "{}")).toEqual({ tool: "get_res", matched: false, changes: [], skipped: [] });
    expect(b.size()).toBe(0);
  });

  it("reports effects it cannot apply", () => {
    const b = new LayerB();
    expect(applyToolResult(rules, b, { name: "by_result", arguments: {} }, "{}").skipped).toEqual(["effect 0 of `by_result`: no entity id (got `undefined`)"]);
    expect(applyToolResult(rules, b, { name: "rec_missing", arguments: { id: "R" } }, "{}").skipped).toEqual(["effect 0 of `rec_missing`: `record` is not an object"]);
    expect(b.size()).toBe(0);
  });

  it("applies initialization actions", () => {
    const b = new LayerB();
    expect(applyAction(rules, b, { name: "power_on", arguments: {} }).matched).toBe(true);
    expect(b.slot("device", "d", "on")).toBe(true);
    expect(applyAction(rules, b, { name: "unknown_fn", arguments: {} }).matched).toBe(false);
  });

  it("`$before` is the target entity as it was before the effect, read (not copied) when an expression reads it", () => {
    const r = parseProjectionRules({
      format: "polar-projection/1",
      domain: "d",
      entities: { res: { fields: "*", slots: { was: "$before.v" } }, plain: { fields: "*" } },
      tools: {
        rec: { entity: "plain", id: "$args.id", record: "$result" },
        rec_before: { entity: "res", id: "$args.id", record: "$result" },
        set_before: [{ entity: "plain", id: "$args.id", when: { not: { exists: "$before" } }, set: { first: "$before.v", v: { add: ["$before.v", { const: 1 }] }, all: "$before" } }],
      },
    });
    let copies = 0;
    let kept = 0;
    class Counting extends LayerB {
      override entity(entity: string, id: string) {
        copies++;
        return super.entity(entity, id);
      }
      override keptRecord(entity: string, id: string) {
        kept++;
        return super.keptRecord(entity, id);
      }
    }
    const b = new Counting();
    b.set("plain", "p", "v", 1);
    b.set("res", "r", "v", 7);
    applyToolResult(r, b, { name: "rec", arguments: { id: "p" } }, { v: 2 });
    expect([copies, kept]).toEqual([0, 0]);
    expect(b.slot("plain", "p", "v")).toBe(2);
    // An entity rule's derived slot reads `$before`: the record as it was before the effect replaced it.
    applyToolResult(r, b, { name: "rec_before", arguments: { id: "r" } }, { v: 8 });
    expect([copies, kept]).toEqual([0, 1]);
    expect([b.slot("res", "r", "v"), b.slot("res", "r", "was")]).toEqual([8, 7]);
    // `when` runs before the target is known: `$before` is missing there, and read once afterwards. A
    // slot set to `$before` holds the record as it was (the write copied the record, not changed it).
    const before = b.keptRecord("plain", "p");
    kept = 0;
    applyToolResult(r, b, { name: "set_before", arguments: { id: "p" } }, {});
    expect([copies, kept]).toEqual([0, 1]);
    expect([b.slot("plain", "p", "first"), b.slot("plain", "p", "v")]).toEqual([2, 3]);
    expect(b.slot("plain", "p", "all")).toEqual(Object.assign(Object.create(null), { v: 2 }));
    expect(before).toEqual(Object.assign(Object.create(null), { v: 2 }));
    expect(b.keptRecord("plain", "p")).not.toBe(before);
  });

  it("the library's own values (ownCall): a slot that holds the same JSON keeps what Layer B holds", () => {
    const b = new LayerB();
    const own = (result: string, args: Record<string, unknown> = { id: "R1" }, name = "update_res") => {
      const call = Object.freeze({ name, arguments: Object.freeze(args) });
      applyToolResult(rules, b, call, result, { ownCall: true, parsed: parseToolResult(result) });
    };
    own(JSON.stringify({ id: "R1", items: ["a", "b"], meta: { k: 1 }, z: 0 }));
    const items = b.slot("res", "R1", "items");
    const meta = b.slot("res", "R1", "meta");
    expect(Object.isFrozen(items) && isOwnedJson(items) && isOwnedJson(meta)).toBe(true);
    // The same record again: the values held are kept (not replaced by equal new copies).
    own(JSON.stringify({ id: "R1", items: ["a", "b"], meta: { k: 1 }, z: 0 }));
    expect(b.slot("res", "R1", "items")).toBe(items);
    expect(b.slot("res", "R1", "meta")).toBe(meta);
    // A slot whose JSON differs (another value, another key order, -0 for 0) is replaced.
    own('{"id":"R1","items":["a","c"],"meta":{"k":1},"z":-0}');
    expect(b.slot("res", "R1", "items")).toEqual(["a", "c"]);
    expect(b.slot("res", "R1", "meta")).toBe(meta);
    expect(Object.is(b.slot("res", "R1", "z"), -0)).toBe(true);
    own('{"id":"R1","items":["a","c"],"meta":{"j":2,"k":1}}');
    const meta2 = b.slot("res", "R1", "meta");
    own('{"id":"R1","items":["a","c"],"meta":{"k":1,"j":2}}');
    expect(b.slot("res", "R1", "meta")).not.toBe(meta2);
    expect(Object.keys(b.slot("res", "R1", "meta") as object)).toEqual(["k", "j"]);
    // `set` of the same JSON leaves the slot and its record as they are (a record kept for a
    // `before` is not copied); another value is written as before.
    b.set("user", "u", "res", ["R0"]);
    const kept = b.keptRecord("user", "u")!;
    const held = kept.res;
    b.withOwnValues(() => b.set("user", "u", "res", Object.freeze(["R0"])));
    expect(b.keptRecord("user", "u")).toBe(kept);
    expect(b.slot("user", "u", "res")).toBe(held);
    b.withOwnValues(() => b.set("user", "u", "res", ["R1"]));
    expect(b.keptRecord("user", "u")).not.toBe(kept);
    expect([kept.res, b.slot("user", "u", "res")]).toEqual([["R0"], ["R1"]]);
  });

  it("the record an own call's effect re-projects becomes the entity's record (not copied); a caller's call is copied", () => {
    const handed: unknown[] = [];
    class Seeing extends LayerB {
      override replaceEntity(entity: string, id: string, slots: Readonly<Record<string, unknown>>) {
        handed.push(slots);
        super.replaceEntity(entity, id, slots);
      }
    }
    const b = new Seeing();
    const text = JSON.stringify({ id: "R1", items: ["a"] });
    applyToolResult(rules, b, Object.freeze({ name: "update_res", arguments: Object.freeze({ id: "R1" }) }), text, { ownCall: true, parsed: parseToolResult(text) });
    expect(b.keptRecord("res", "R1")).toBe(handed[0]);
    expect(Object.isFrozen(b.slot("res", "R1", "items"))).toBe(true);
    applyToolResult(rules, b, { name: "update_res", arguments: { id: "R1" } }, text);
    expect(b.keptRecord("res", "R1")).not.toBe(handed[1]);
    expect(b.entity("res", "R1")).toEqual(Object.assign(Object.create(null), { id: "R1", items: ["a"], n: 1 }));
  });
});

describe("parseToolResult", () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ["[1]", [1]],
    ["2.5", 2.5],
    ["-1", -1],
    ["true", true],
    ['"s"', "s"],
    ["Transfer successful", "Transfer successful"],
    ["{not json", "{not json"],
    ["", ""],
  ])("%s", (text, value) => {
    expect(parseToolResult(text).value).toEqual(value);
    expect(parseToolResult(text).text).toBe(text);
  });

  it("passes non-strings through", () => {
    expect(parseToolResult({ a: 1 })).toEqual({ value: { a: 1 }, text: undefined });
  });
});

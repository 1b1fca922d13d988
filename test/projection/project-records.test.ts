// Which records a document projects, under which ids and keys: a collection is a list or a map, never
// the characters of a string; a record that is not an object contributes no copied fields; an id is a
// non-empty string or a finite number, and anything else is a typed error naming where it was.
import { describe, expect, it } from "vitest";
import { LayerB, parseProjectionRules, projectDocument, ProjectionError } from "../../src/projection/index.js";

function rulesWith(sources: unknown[], entity: Record<string, unknown> = { fields: "*" }, extra: Record<string, unknown> = {}) {
  return parseProjectionRules({ format: "polar-projection/1", domain: "d", entities: { t: entity }, documents: { db: sources }, ...extra });
}

function errorOf(f: () => unknown): ProjectionError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProjectionError);
    return e as ProjectionError;
  }
  throw new Error("expected a ProjectionError");
}

/** The slot names of an entity, so a slot holding `undefined` is told apart from a missing one. */
const slotNames = (b: LayerB, id: string): string[] => Object.keys(b.entity("t", id) ?? {}).sort();

describe("collections", () => {
  it("a list's records get their index as `$key` (a number), a map's their key", () => {
    const rules = rulesWith([
      { entity: "t", from: "list", id: "name", slots: { k: "$key" } },
      { entity: "t", from: "map", id: "$key", slots: { k: "$key" } },
    ]);
    const b = projectDocument(rules, { list: [{ name: "a" }, { name: "b" }], map: { m: { x: 1 } } });
    expect(b.slot("t", "b", "k")).toBe(1);
    expect(b.slot("t", "m", "k")).toBe("m");
    expect(b.ids("t")).toEqual(["a", "b", "m"]);
  });

  it.each([
    ["a string", "abc"],
    ["a number", 7],
    ["null", null],
    ["true", true],
  ])("a collection path at %s projects no record (never the characters of a string)", (_what, value) => {
    const rules = rulesWith([{ entity: "t", from: "items", id: "$key" }]);
    let b: LayerB;
    try {
      b = projectDocument(rules, { items: value });
    } catch (e) {
      // Refusing the wrong shape with a typed error is as good as projecting nothing.
      expect(e).toBeInstanceOf(ProjectionError);
      return;
    }
    expect(b.size()).toBe(0);
  });

  it("`*` steps through every key of a map and every index of a list, capturing it as a string", () => {
    const rules = rulesWith([{ entity: "t", from: "groups.*.items", id: { template: "{$1}-{$key}" }, slots: { group: "$1" } }]);
    const fromMap = projectDocument(rules, { groups: { g: { items: { i: {} } } } });
    expect(fromMap.ids("t")).toEqual(["g-i"]);
    const fromList = projectDocument(rules, { groups: [{ items: { i: {} } }, { items: { j: {} } }] });
    expect(fromList.ids("t")).toEqual(["0-i", "1-j"]);
    expect(fromList.slot("t", "1-j", "group")).toBe("1");
  });

  /** Projects `doc`; a typed refusal of the wrong shape counts as projecting nothing. */
  const sizeOrRefused = (rules: ReturnType<typeof rulesWith>, doc: unknown): number => {
    try {
      return projectDocument(rules, doc).size();
    } catch (e) {
      expect(e).toBeInstanceOf(ProjectionError);
      return 0;
    }
  };

  it("`*` ending a `single` path over a string names no record (not one per character)", () => {
    const rules = rulesWith([{ entity: "t", from: "groups.*", single: true, id: { template: "g{$1}" } }]);
    expect(sizeOrRefused(rules, { groups: "ab" })).toBe(0);
    expect(projectDocument(rules, { groups: { x: { a: 1 } } }).ids("t")).toEqual(["gx"]);
  });

  it("`*` over a scalar or null matches nothing", () => {
    const rules = rulesWith([{ entity: "t", from: "groups.*.items", id: "$key" }]);
    for (const groups of ["ab", null, 3]) expect(sizeOrRefused(rules, { groups })).toBe(0);
    for (const b of ["xy", null]) expect(projectDocument(rules, { groups: { b, c: { items: { k: {} } } } }).ids("t")).toEqual(["k"]);
    expect(projectDocument(rules, { groups: { c: { items: { k: {} } } } }).ids("t")).toEqual(["k"]);
  });
});

describe("single records", () => {
  const rules = rulesWith([{ entity: "t", from: "config.main", single: true, id: "$key", slots: { parent_keys: { keys: "$parent" } } }]);

  it("a `single` path names one record: its key is the path's last segment, its parent the object holding it", () => {
    const b = projectDocument(rules, { config: { main: { theme: "dark" } }, theme: "light" });
    expect(b.ids("t")).toEqual(["main"]);
    expect(b.slot("t", "main", "theme")).toBe("dark");
    expect(b.slot("t", "main", "parent_keys")).toEqual(["main"]);
  });

  it("a `single` path that is absent projects nothing", () => {
    const constId = rulesWith([{ entity: "t", from: "config.main", single: true, id: { const: "main" } }]);
    expect(projectDocument(constId, { config: {} }).size()).toBe(0);
    expect(projectDocument(constId, {}).size()).toBe(0);
  });

  it("the whole document as one record is keyed by the empty string", () => {
    const whole = rulesWith([{ entity: "t", from: "", single: true, id: { const: "doc" }, slots: { k: "$key" } }]);
    expect(projectDocument(whole, { a: 1 }).entity("t", "doc")).toEqual(Object.assign(Object.create(null), { a: 1, k: "" }));
  });
});

describe("fields and slots of a record", () => {
  it.each([
    ["a string", "abc"],
    ["a list", ["x", "y"]],
    ["a number", 5],
    ["null", null],
  ])("a record that is %s copies no fields; derived slots still apply", (_what, rec) => {
    const rules = rulesWith([{ entity: "t", from: "items", id: "$key" }], { fields: "*", slots: { whole: "$" } });
    const b = projectDocument(rules, { items: { r: rec } });
    expect(slotNames(b, "r")).toEqual(["whole"]);
    expect(b.slot("t", "r", "whole")).toEqual(rec);
  });

  it("a slot whose expression yields nothing is absent, not present as undefined", () => {
    const rules = rulesWith([{ entity: "t", from: "items", id: "$key", slots: { from_source: "missing.path" } }], { fields: ["a", "b"], slots: { derived: "nope" } });
    const b = projectDocument(rules, { items: { r: { a: 1 } } });
    expect(slotNames(b, "r")).toEqual(["a"]);
  });
});

describe("entity ids", () => {
  it("a numeric id is the number's text", () => {
    const rules = rulesWith([{ entity: "t", from: "items", id: "id" }]);
    expect(projectDocument(rules, { items: [{ id: 123 }, { id: 0 }, { id: -2.5 }] }).ids("t")).toEqual(["123", "0", "-2.5"]);
  });

  it.each([
    ["an empty string", { id: "" }, '""'],
    ["null", { id: null }, "null"],
    ["a boolean", { id: true }, "true"],
    ["an object", { id: { a: 1 } }, '{"a":1}'],
    ["no id at all", {}, "undefined"],
  ])("%s is no id: a missing-id error naming the entity, the path and the key", (_what, rec, got) => {
    const rules = rulesWith([{ entity: "t", from: "a.items", id: "id" }]);
    const e = errorOf(() => projectDocument(rules, { a: { items: [rec] } }));
    expect(e.code).toBe("missing-id");
    expect(e.message).toBe(`no entity id for t in \`a.items\` at key \`0\`: got \`${got}\``);
    expect(e.help).toBe("the `id` expression must yield a non-empty string or a number");
  });

  it("an id that overflows to infinity is no id, shown as such", () => {
    const rules = rulesWith([{ entity: "t", from: "items", id: { add: [{ const: 1e308 }, { const: 1e308 }] } }]);
    expect(errorOf(() => projectDocument(rules, { items: [{}] })).message).toBe("no entity id for t in `items` at key `0`: got `Infinity`");
  });

  it("the document itself is named `(document)` in the error", () => {
    const rules = rulesWith([{ entity: "t", from: "", single: true, id: "id" }]);
    expect(errorOf(() => projectDocument(rules, {})).message).toBe("no entity id for t in `(document)` at key ``: got `undefined`");
  });
});

describe("documents", () => {
  it("an unknown document is a bad-document error naming the domain, the document and the known ones", () => {
    const e = errorOf(() => projectDocument(rulesWith([]), {}, undefined, { document: "user_db" }));
    expect(e.code).toBe("bad-document");
    expect(e.message).toBe("the rules of `d` have no document `user_db`");
    expect(e.help).toBe("documents: db");
    const none = parseProjectionRules({ format: "polar-projection/1", domain: "d", entities: { t: {} } });
    expect(errorOf(() => projectDocument(none, {})).help).toBe("documents: none");
  });
});

describe("a document of the wrong shape", () => {
  const shapeError = (sources: unknown[], doc: unknown) => errorOf(() => projectDocument(rulesWith(sources), doc));

  it.each<[string, unknown[], unknown, string]>([
    ["a document that is not an object", [{ entity: "t", from: "items", id: "$key" }], [1], "`(document)` in the document is an array, expected an object"],
    ["a document that is a number", [{ entity: "t", from: "items", id: "$key" }], 3, "`(document)` in the document is number `3`, expected an object"],
    ["a collection that is a string", [{ entity: "t", from: "a.items", id: "$key" }], { a: { items: "x" } }, "`a.items` in the document is a string, expected a collection of t records (an object or an array)"],
    ["a collection under `*` that is not one", [{ entity: "t", from: "g.*.items", id: "$key" }], { g: { a: { items: 1 } } }, "`g.a.items` in the document is number `1`, expected a collection of t records (an object or an array)"],
  ])("%s is a bad-document error naming where, what it is and what was expected", (_what, sources, doc, message) => {
    const e = shapeError(sources, doc);
    expect(e.code).toBe("bad-document");
    expect(e.message).toBe(message);
  });

  it("the help names the domain, the entity and the path the rules read", () => {
    expect(shapeError([{ entity: "t", from: "a.items", id: "$key" }], { a: { items: 1 } }).help).toBe("the rules of `d` read t records from `a.items`");
  });

  it("a whole-document source takes any object; an absent path is an empty collection", () => {
    expect(projectDocument(rulesWith([{ entity: "t", from: "", single: true, id: { const: "d" } }]), { a: 1 }).ids("t")).toEqual(["d"]);
    expect(projectDocument(rulesWith([{ entity: "t", from: "a.items", id: "$key" }]), { b: 1 }).size()).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseProjectionRules, safeParseProjectionRules, ProjectionError, type RuleIssue } from "../../src/projection/index.js";

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), "utf8"));

const base = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: "polar-projection/1",
  domain: "d",
  entities: { thing: { fields: "*" } },
  ...extra,
});

function issues(json: unknown): RuleIssue[] {
  const r = safeParseProjectionRules(json);
  if (r.ok) throw new Error("expected issues");
  return r.issues;
}

describe("parseProjectionRules", () => {
  it("accepts the shipped samples", () => {
    for (const f of ["airline.json", "telecom.json"]) {
      const rules = parseProjectionRules(fixture(f));
      expect(rules.entities.size).toBeGreaterThan(0);
    }
    const t = parseProjectionRules(fixture("telecom.json"));
    expect([...t.documents.keys()]).toEqual(["db", "user_db"]);
    expect(t.tools.get("toggle_airplane_mode")).toHaveLength(1);
    expect(t.actions.has("turn_data_saver_mode_on")).toBe(true);
  });

  it("throws invalid-rules listing every issue", () => {
    let err: unknown;
    try {
      parseProjectionRules({ format: "v0", entities: 3 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProjectionError);
    const pe = err as ProjectionError;
    expect(pe.code).toBe("invalid-rules");
    expect(pe.issues.map((i) => i.code)).toEqual(["bad-format", "bad-type", "bad-type"]);
    expect(pe.message).toMatch(/^invalid projection rules: .* \(and 2 more\)$/);
    expect(pe.help).toContain("/format");
  });

  it.each([
    ["not an object", [], "bad-type", ""],
    ["unknown top-level key", base({ extra: 1 }), "unknown-key", "/extra"],
    ["bad entity name", base({ entities: { "bad-name": {} } }), "bad-name", "/entities/bad-name"],
    ["bad fields", base({ entities: { t: { fields: 3 } } }), "bad-type", "/entities/t/fields"],
    ["unknown entity key", base({ entities: { t: { feilds: "*" } } }), "unknown-key", "/entities/t/feilds"],
    ["bad slot name", base({ entities: { t: { slots: { "a b": "x" } } } }), "bad-name", "/entities/t/slots/a b"],
    ["documents not a map", base({ documents: [] }), "bad-type", "/documents"],
    ["sources not a list", base({ documents: { db: {} } }), "bad-type", "/documents/db"],
    ["source of an undeclared entity", base({ documents: { db: [{ entity: "nope", from: "x", id: "$key" }] } }), "unknown-entity", "/documents/db/0/entity"],
    ["source without id", base({ documents: { db: [{ entity: "thing", from: "x" }] } }), "missing-key", "/documents/db/0"],
    ["empty path segment", base({ documents: { db: [{ entity: "thing", from: "a..b", id: "$key" }] } }), "bad-path", "/documents/db/0/from"],
    ["non-boolean single", base({ documents: { db: [{ entity: "thing", from: "a", id: "$key", single: "yes" }] } }), "bad-type", "/documents/db/0/single"],
    ["bad op", base({ tools: { t: { op: "merge", entity: "thing", id: "$args.id", record: "$result" } } }), "bad-op", "/tools/t/op"],
    ["delete with set", base({ tools: { t: { op: "delete", entity: "thing", id: "$args.id", set: { a: "x" } } } }), "bad-effect", "/tools/t"],
    ["upsert with nothing", base({ tools: { t: [{ entity: "thing", id: "$args.id" }] } }), "bad-effect", "/tools/t/0"],
    ["effect without id", base({ tools: { t: [{ entity: "thing", record: "$result" }] } }), "missing-key", "/tools/t/0"],
    ["number as expression", base({ entities: { t: { slots: { a: 3 } } } }), "bad-expression", "/entities/t/slots/a"],
    ["no operator", base({ entities: { t: { slots: { a: { foo: 1 } } } } }), "bad-expression", "/entities/t/slots/a"],
    ["two operators", base({ entities: { t: { slots: { a: { size: "x", min: "y" } } } } }), "bad-expression", "/entities/t/slots/a"],
    ["operator with a foreign key", base({ entities: { t: { slots: { a: { size: "x", by: "y" } } } } }), "unknown-key", "/entities/t/slots/a/by"],
    ["missing modifier", base({ entities: { t: { slots: { a: { filter: "x" } } } } }), "missing-key", "/entities/t/slots/a"],
    ["unknown variable", base({ entities: { t: { slots: { a: "$nope.x" } } } }), "bad-expression", "/entities/t/slots/a"],
    ["empty path", base({ entities: { t: { slots: { a: "a..b" } } } }), "bad-expression", "/entities/t/slots/a"],
    ["bad regex", base({ entities: { t: { slots: { a: { regex: "x", pattern: "(" } } } } }), "bad-expression", "/entities/t/slots/a/pattern"],
    ["bad regex flags", base({ entities: { t: { slots: { a: { regex: "x", pattern: "a", flags: "g" } } } } }), "bad-expression", "/entities/t/slots/a/pattern"],
    ["eq with one operand", base({ entities: { t: { slots: { a: { eq: ["x"] } } } } }), "bad-expression", "/entities/t/slots/a/eq"],
    ["entity without type", base({ entities: { t: { slots: { a: { entity: "", id: "x" } } } } }), "bad-expression", "/entities/t/slots/a/entity"],
    ["template not a string", base({ entities: { t: { slots: { a: { template: 1 } } } } }), "bad-expression", "/entities/t/slots/a/template"],
    ["switch without object cases", base({ entities: { t: { slots: { a: { switch: "x", cases: [] } } } } }), "bad-expression", "/entities/t/slots/a/cases"],
    ["actions not a map", base({ actions: 1 }), "bad-type", "/actions"],
    ["object not a map", base({ entities: { t: { slots: { a: { object: ["x"] } } } } }), "bad-expression", "/entities/t/slots/a/object"],
  ])("reports %s", (_name, json, code, path) => {
    const found = issues(json);
    expect(found.some((i) => i.code === code && i.path === path), JSON.stringify(found)).toBe(true);
    for (const i of found) {
      expect(i.message).toMatch(/^[a-z`]/);
      expect(i.message).not.toMatch(/\.$/);
    }
  });

  it("escapes JSON pointer paths", () => {
    const found = issues(base({ entities: { t: { slots: { "a/b~c": "x" } } } }));
    expect(found[0].path).toBe("/entities/t/slots/a~1b~0c");
  });

  it("keeps the source document", () => {
    const src = base();
    expect(parseProjectionRules(src).source).toBe(src);
  });
});

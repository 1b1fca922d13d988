// What the rules validator reports for each kind of bad rules document: the exact issues (code, JSON
// pointer, message, help), not just that one of them exists. A validator that loses an issue, reports
// it at the wrong place, or reports an issue that is not there misleads the author of the rules.
import { describe, expect, it } from "vitest";
import { parseProjectionRules, safeParseProjectionRules, ProjectionError, type RuleIssue } from "../../src/projection/index.js";
import { parseReadRules, safeParseReadRules } from "../../src/projection/reads.js";

const base = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: "polar-projection/1",
  domain: "d",
  entities: { thing: { fields: "*" } },
  ...extra,
});

/** The issues of the rules, or else of their `reads` (validated apart, outside the runtime bundle). */
function readIssues(json: unknown): RuleIssue[] {
  const r = safeParseProjectionRules(json);
  if (!r.ok) return r.issues;
  const reads = safeParseReadRules(r.rules);
  if (reads.ok) throw new Error("expected issues");
  return reads.issues;
}

function issues(json: unknown): RuleIssue[] {
  const r = safeParseProjectionRules(json);
  if (r.ok) throw new Error("expected issues");
  return r.issues;
}

const NAME_HELP = "identifiers match [A-Za-z_][A-Za-z0-9_]*";
const badName = (path: string, what: string, got: unknown): RuleIssue => ({
  code: "bad-name",
  path,
  message: `${what} must be an identifier, got \`${JSON.stringify(got)}\``,
  help: NAME_HELP,
});
const badType = (path: string, message: string): RuleIssue => ({ code: "bad-type", path, message });
const SOURCE = { entity: "thing", from: "items", id: "$key" };
const EFFECT = { entity: "thing", id: "$args.id", set: { a: "$result" } };

describe("the rules validator reports exactly the problems of a rules document", () => {
  it.each<[string, unknown, RuleIssue[]]>([
    ["null", null, [badType("", "projection rules must be a JSON object")]],
    ["a list", [], [badType("", "projection rules must be a JSON object")]],
    [
      "an unknown top-level key, with the allowed keys as help",
      base({ extra: 1 }),
      [{ code: "unknown-key", path: "/extra", message: "unknown key `extra`", help: "allowed here: format, domain, comment, entities, documents, tools, actions, reads" }],
    ],
    ["a wrong format", base({ format: "v0" }), [{ code: "bad-format", path: "/format", message: "`format` must be `polar-projection/1`, got `\"v0\"`" }]],
    ["an empty domain", base({ domain: "" }), [badType("/domain", "`domain` must be a non-empty string")]],
    ["a numeric domain", base({ domain: 7 }), [badType("/domain", "`domain` must be a non-empty string")]],
    ["entities that are not a map", base({ entities: null }), [badType("/entities", "`entities` must be an object from entity type to entity rule")]],
    ["a bad entity type name (its rule is not looked at)", base({ entities: { "bad-name": 3 } }), [badName("/entities/bad-name", "an entity type", "bad-name")]],
    ["an entity rule that is not an object", base({ entities: { t: 3 } }), [badType("/entities/t", "entity rule `t` must be an object")]],
    [
      "a source of an entity whose rule is broken (the entity is not declared)",
      base({ entities: { t: 3 }, documents: { db: [{ entity: "t", from: "x", id: "$key" }] } }),
      [
        badType("/entities/t", "entity rule `t` must be an object"),
        { code: "unknown-entity", path: "/documents/db/0/entity", message: "entity type `t` is not declared in `entities`" },
      ],
    ],
    ["fields with a non-string", base({ entities: { t: { fields: ["a", 3] } } }), [badType("/entities/t/fields", "`fields` must be `\"*\"` or a list of field names")]],
    ["a field that is not an identifier", base({ entities: { t: { fields: ["ok", "a-b"] } } }), [badName("/entities/t/fields/1", "a field copied as a slot", "a-b")]],
    ["exclude that is not a list", base({ entities: { t: { exclude: "a" } } }), [badType("/entities/t/exclude", "`exclude` must be a list of field names")]],
    ["exclude with a non-string", base({ entities: { t: { exclude: ["a", 1] } } }), [badType("/entities/t/exclude", "`exclude` must be a list of field names")]],
    ["slots that are not a map", base({ entities: { t: { slots: 3 } } }), [badType("/entities/t/slots", "`slots` must be an object from slot name to expression")]],
    ["a source that is not an object", base({ documents: { db: [3] } }), [badType("/documents/db/0", "a source must be an object")]],
    ["an entity given as a list", base({ documents: { db: [{ ...SOURCE, entity: ["thing"] }] } }), [badName("/documents/db/0/entity", "`entity`", ["thing"])]],
    ["an entity given as a number", base({ documents: { db: [{ ...SOURCE, entity: 3 }] } }), [badName("/documents/db/0/entity", "`entity`", 3)]],
    ["a path list with a number", base({ documents: { db: [{ ...SOURCE, from: ["a", 1] }] } }), [badType("/documents/db/0/from", "`from` must be a dotted path (use `*` for every key) or a list of keys")]],
    ["a path that is a number", base({ documents: { db: [{ ...SOURCE, from: 1 }] } }), [badType("/documents/db/0/from", "`from` must be a dotted path (use `*` for every key) or a list of keys")]],
    ["a source without id (no issue about the missing expression itself)", base({ documents: { db: [{ entity: "thing", from: "x" }] } }), [{ code: "missing-key", path: "/documents/db/0", message: "a source needs `id` (an expression; `\"$key\"` for the map key)" }]],
    ["a non-boolean merge", base({ documents: { db: [{ ...SOURCE, merge: 1 }] } }), [badType("/documents/db/0/merge", "`merge` must be a boolean")]],
    ["an unknown source key, with the allowed keys", base({ documents: { db: [{ ...SOURCE, frm: "x" }] } }), [{ code: "unknown-key", path: "/documents/db/0/frm", message: "unknown key `frm`", help: "allowed here: comment, entity, from, single, id, where, slots, merge, derive" }]],
    ["derive without merge", base({ entities: { thing: { fields: "*", slots: { n: { const: 1 } } } }, documents: { db: [{ ...SOURCE, derive: ["n"] }] } }), [badType("/documents/db/0/derive", "`derive` needs `merge: true` (it re-derives slots of an entity that exists)")]],
    ["derive that is not a list of names", base({ entities: { thing: { fields: "*", slots: { n: { const: 1 } } } }, documents: { db: [{ ...SOURCE, merge: true, derive: "n" }] } }), [badType("/documents/db/0/derive", "`derive` must be a non-empty list of slot names")]],
    ["derive of an empty list", base({ entities: { thing: { fields: "*", slots: { n: { const: 1 } } } }, documents: { db: [{ ...SOURCE, merge: true, derive: [] }] } }), [badType("/documents/db/0/derive", "`derive` must be a non-empty list of slot names")]],
    ["derive naming a field or an unknown slot", base({ entities: { thing: { fields: ["a"], slots: { n: { const: 1 } } } }, documents: { db: [{ ...SOURCE, merge: true, derive: ["n", "a", "zz"] }] } }), [{ code: "bad-name", path: "/documents/db/0/derive", message: "`derive` names `a`, `zz`, not a derived slot of `thing`" }]],
    ["an effect without id (no issue about the missing expression itself)", base({ tools: { t: { entity: "thing", set: { a: "$result" } } } }), [{ code: "missing-key", path: "/tools/t", message: "an effect needs `id` (an expression over `$args` / `$result`)" }]],
    ["an effect that is not an object", base({ tools: { t: [3] } }), [badType("/tools/t/0", "an effect must be an object")]],
    ["a bad tool name", base({ tools: { "a-b": EFFECT } }), [badName("/tools/a-b", "a tool name", "a-b")]],
    ["a bad action name", base({ actions: { "a-b": EFFECT } }), [badName("/actions/a-b", "an action name", "a-b")]],
    ["tools that are not a map", base({ tools: [] }), [badType("/tools", "`tools` must be an object from name to a list of effects")]],
    ["an effect of an undeclared entity", base({ tools: { t: { ...EFFECT, entity: "nope" } } }), [{ code: "unknown-entity", path: "/tools/t/entity", message: "entity type `nope` is not declared in `entities`" }]],
    ["a delete with a record", base({ tools: { t: { op: "delete", entity: "thing", id: "$args.id", record: "$result" } } }), [{ code: "bad-effect", path: "/tools/t", message: "a `delete` effect takes no `record` or `set`" }]],
    [
      "a create with nothing to write",
      base({ tools: { t: { op: "create", entity: "thing", id: "$args.id" } } }), [{ code: "bad-effect", path: "/tools/t", message: "a `create` effect needs `record` or `set`" }],
    ],
    ["an upsert with nothing to write", base({ tools: { t: { entity: "thing", id: "$args.id" } } }), [{ code: "bad-effect", path: "/tools/t", message: "an `upsert` effect needs `record` or `set`" }]],
  ])("%s", (_name, json, expected) => {
    expect(issues(json)).toStrictEqual(expected);
  });

  const STEP = { tool: "get_thing", arguments: { id: "$args.id" }, effects: [EFFECT] };
  it.each<[string, unknown, RuleIssue[]]>([
    ["reads that are not a map", base({ reads: [] }), [badType("/reads", "`reads` must be an object from tool name to a read rule")]],
    ["a read rule under a bad tool name", base({ reads: { "a-b": { steps: [STEP] } } }), [badName("/reads/a-b", "a tool name", "a-b")]],
    ["a read rule that is not an object", base({ reads: { t: 3 } }), [badType("/reads/t", "the read rule of `t` must be an object")]],
    ["a read rule with nothing to do", base({ reads: { t: { ungrounded: "say so" } } }), [{ code: "bad-effect", path: "/reads/t", message: "a read rule needs `derive` or `steps`" }]],
    ["an unknown read-rule key", base({ reads: { t: { steps: [STEP], then: 1 } } }), [{ code: "unknown-key", path: "/reads/t/then", message: "unknown key `then`", help: "allowed here: comment, derive, steps, finally, ungrounded" }]],
    ["derive that is not a map", base({ reads: { t: { derive: ["x"], steps: [STEP] } } }), [badType("/reads/t/derive", "`derive` must be an object from argument name to expression")]],
    ["ungrounded that is not text", base({ reads: { t: { steps: [STEP], ungrounded: 1 } } }), [badType("/reads/t/ungrounded", "`ungrounded` must be a string")]],
    ["steps that are not a list", base({ reads: { t: { derive: { k: "$args.id" }, steps: {} } } }), [badType("/reads/t/steps", "`steps` must be a list of read steps")]],
    ["a step that is not an object", base({ reads: { t: { derive: { k: "$args.id" }, steps: [3] } } }), [badType("/reads/t/steps/0", "a read step must be an object")]],
    ["a step without effects", base({ reads: { t: { steps: [{ tool: "get_thing" }] } } }), [{ code: "missing-key", path: "/reads/t/steps/0", message: "a read step needs `effects` (a list: how its result becomes Layer B)" }, { code: "bad-effect", path: "/reads/t", message: "a read rule needs `derive` or `steps`" }]],
    ["a step with a bad tool", base({ reads: { t: { derive: { k: "$args.id" }, steps: [{ ...STEP, tool: "a b" }] } } }), [badName("/reads/t/steps/0/tool", "`tool`", "a b")]],
    ["step arguments that are not a map", base({ reads: { t: { steps: [{ ...STEP, arguments: 1 }] } } }), [badType("/reads/t/steps/0/arguments", "`arguments` must be an object from argument name to expression")]],
    ["an unknown step key", base({ reads: { t: { steps: [{ ...STEP, args: {} }] } } }), [{ code: "unknown-key", path: "/reads/t/steps/0/args", message: "unknown key `args`", help: "allowed here: comment, tool, arguments, when, effects" }]],
    ["finally that is not a list", base({ reads: { t: { steps: [STEP], finally: EFFECT } } }), [badType("/reads/t/finally", "`finally` must be a list of effects")]],
    ["a bad effect in finally", base({ reads: { t: { steps: [STEP], finally: [3] } } }), [badType("/reads/t/finally/0", "an effect must be an object")]],
    ["a bad effect in a step", base({ reads: { t: { steps: [{ ...STEP, effects: [3] }] } } }), [badType("/reads/t/steps/0/effects/0", "an effect must be an object")]],
  ])("%s", (_name, json, expected) => {
    expect(readIssues(json)).toStrictEqual(expected);
  });

  it.each([
    ["a derived argument", { derive: { k: 3 } }, "/reads/t/derive/k"],
    ["a step argument", { steps: [{ ...STEP, arguments: { id: 3 } }] }, "/reads/t/steps/0/arguments/id"],
    ["a step's when", { steps: [{ ...STEP, when: 3 }] }, "/reads/t/steps/0/when"],
  ])("a bad expression in %s of a read rule is reported at its pointer", (_name, rule, path) => {
    expect(readIssues(base({ reads: { t: rule } })).map((i) => [i.code, i.path])).toEqual([["bad-expression", path]]);
  });

  it.each([
    ["a source's id", { documents: { db: [{ ...SOURCE, id: 3 }] } }, "/documents/db/0/id"],
    ["a source's where", { documents: { db: [{ ...SOURCE, where: 3 }] } }, "/documents/db/0/where"],
    ["a source's slot", { documents: { db: [{ ...SOURCE, slots: { s: 3 } }] } }, "/documents/db/0/slots/s"],
    ["an effect's id", { tools: { t: { ...EFFECT, id: 3 } } }, "/tools/t/id"],
    ["an effect's record", { tools: { t: { ...EFFECT, record: 3 } } }, "/tools/t/record"],
    ["an effect's set", { tools: { t: { ...EFFECT, set: { a: 3 } } } }, "/tools/t/set/a"],
    ["an effect's when", { tools: { t: { ...EFFECT, when: 3 } } }, "/tools/t/when"],
    ["an effect's forEach", { tools: { t: { ...EFFECT, forEach: 3 } } }, "/tools/t/forEach"],
    ["the second effect of a list", { tools: { t: [EFFECT, { ...EFFECT, when: 3 }] } }, "/tools/t/1/when"],
  ])("a bad expression in %s is reported at its own pointer", (_name, extra, path) => {
    expect(issues(base(extra)).map((i) => [i.code, i.path])).toEqual([["bad-expression", path]]);
  });
});

describe("parseProjectionRules' error", () => {
  it("names the first issue, at `/` for the document itself, and no count for a single issue", () => {
    const err = (() => {
      try {
        parseProjectionRules([]);
      } catch (e) {
        return e as ProjectionError;
      }
      throw new Error("expected a throw");
    })();
    expect(err).toBeInstanceOf(ProjectionError);
    expect(err.message).toBe("invalid projection rules: projection rules must be a JSON object at `/`");
    expect(err.help).toBe("/: projection rules must be a JSON object");
  });

  it("counts the other issues and lists each on its own line in the help", () => {
    let err: ProjectionError | undefined;
    try {
      parseProjectionRules(base({ domain: "", extra: 1 }));
    } catch (e) {
      err = e as ProjectionError;
    }
    expect(err?.message).toBe("invalid projection rules: unknown key `extra` at `/extra` (and 1 more)");
    expect(err?.help).toBe("/extra: unknown key `extra`\n/domain: `domain` must be a non-empty string");
  });
});

describe("what a valid rules document compiles to", () => {
  it("keeps `*` fields, no exclusions and no slots when none are given, and the slots in order", () => {
    const rules = parseProjectionRules(base({ entities: { thing: { fields: "*" }, other: { slots: { b: "x", a: "y" } } } }));
    const thing = rules.entities.get("thing")!;
    expect([thing.fields, [...thing.exclude], thing.slots]).toEqual(["*", [], []]);
    const other = rules.entities.get("other")!;
    expect([other.fields, other.slots.map(([k, ev]) => [k, typeof ev])]).toEqual([[], [["b", "function"], ["a", "function"]]]);
  });

  it("keeps a field list, an exclude set, dotted and listed paths, single and merge", () => {
    const rules = parseProjectionRules(
      base({
        comment: "c",
        entities: { thing: { comment: "e", fields: ["a", "b"], exclude: ["b"] } },
        documents: {
          db: [
            { comment: "s", entity: "thing", from: "a.*.b", id: "$key", single: false, merge: true },
            { entity: "thing", from: ["x.y", "z"], id: "$key", single: true },
            { entity: "thing", from: "", id: "$key", single: true },
          ],
        },
      }),
    );
    const thing = rules.entities.get("thing")!;
    expect(thing.fields).toEqual(["a", "b"]);
    expect([...thing.exclude]).toEqual(["b"]);
    const [a, b, c] = rules.documents.get("db")!;
    expect([a.from, a.single, a.merge]).toEqual([["a", "*", "b"], false, true]);
    expect([b.from, b.single, b.merge]).toEqual([["x.y", "z"], true, false]);
    expect(c.from).toEqual([]);
  });

  it("compiles read rules: derived arguments, steps with their arguments, when and effects, finally", () => {
    const rules = parseProjectionRules(
      base({
        reads: {
          t: {
            comment: "c",
            derive: { k: "$args.id" },
            steps: [{ comment: "s", tool: "get_thing", arguments: { id: "$args.id", n: { const: 1 } }, when: { exists: "$args.id" }, effects: [EFFECT] }],
            finally: [{ ...EFFECT, op: "delete", set: undefined }],
            ungrounded: "read it first",
          },
          u: { derive: { k: "$args.id" } },
        },
      }),
    );
    const reads = parseReadRules(rules);
    const t = reads.get("t")!;
    expect(t.derive.map(([k]) => k)).toEqual(["k"]);
    expect(t.steps.map((s) => [s.tool, s.arguments.map(([k]) => k), s.when !== undefined, s.effects.length])).toEqual([["get_thing", ["id", "n"], true, 1]]);
    expect(t.finally.map((e) => e.op)).toEqual(["delete"]);
    expect(t.ungrounded).toBe("read it first");
    const u = reads.get("u")!;
    expect([u.steps, u.finally, u.ungrounded]).toEqual([[], [], undefined]);
    expect(parseReadRules(parseProjectionRules(base())).size).toBe(0);
  });

  it("takes one effect or a list of effects, `upsert` by default, for tools and actions apart", () => {
    const rules = parseProjectionRules(
      base({ tools: { one: { comment: "x", ...EFFECT }, two: [EFFECT, { ...EFFECT, op: "create" }] }, actions: { act: { ...EFFECT, op: "delete", set: undefined } } }),
    );
    expect(rules.tools.get("one")!.map((e) => e.op)).toEqual(["upsert"]);
    expect(rules.tools.get("two")!.map((e) => e.op)).toEqual(["upsert", "create"]);
    expect(rules.actions.get("act")!.map((e) => e.op)).toEqual(["delete"]);
    expect(rules.tools.has("act")).toBe(false);
  });
});

// The projection rules' `reads` (src/projection/rules.ts, reads.ts) and `in` over an expression: how a
// read-only tool's answer becomes Layer B before a call is judged, with every rules problem reported.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { LayerB, applyToolResult, applyReadResult, applyReadsFinally, judgedCall, readArguments, safeParseProjectionRules, parseProjectionRules } from "../../src/projection/index.js";

const readsOf = (json: unknown) => parseProjectionRules(json).reads;
import { MEMORY_RULES, FS_RULES } from "./helpers.js";

const base = { format: "polar-projection/1", domain: "t", entities: { item: {} } };

describe("projection reads", () => {
  it("rules without `reads` parse as before (an empty table)", () => {
    for (const f of ["ontologies/airline/projection.json", "ontologies/retail/projection.json", "ontologies/telecom/projection.json"]) {
      expect(readsOf(JSON.parse(readFileSync(f, "utf8"))).size).toBe(0);
    }
  });

  it("the shipped MCP rules parse", () => {
    expect([...readsOf(JSON.parse(readFileSync(MEMORY_RULES, "utf8"))).keys()]).toContain("delete_entities");
    expect([...readsOf(JSON.parse(readFileSync(FS_RULES, "utf8"))).keys()]).toContain("write_file");
  });

  it("reports every problem with a JSON pointer", () => {
    expect(safeParseProjectionRules({ ...base, reads: 3 }).ok).toBe(false);
    const r = safeParseProjectionRules({
      ...base,
      reads: {
        a: { derive: 3 },
        b: { steps: [{ tool: "x y", effects: [] }, { tool: "t" }, 5], bogus: 1 },
        c: {},
        d: { steps: [{ tool: "t", effects: [{ entity: "nope", id: "$args.id", set: { s: "$result" } }] }], ungrounded: 4 },
        "bad name": { derive: { k: "$args.k" } },
      },
    });
    expect(r.ok).toBe(false);
    const got = r.ok ? [] : r.issues.map((i) => `${i.code} ${i.path}`);
    expect(got).toEqual(expect.arrayContaining([
      "bad-type /reads/a/derive",
      "bad-name /reads/b/steps/0/tool",
      "missing-key /reads/b/steps/1",
      "bad-type /reads/b/steps/2",
      "unknown-key /reads/b/bogus",
      "bad-effect /reads/c",
      "unknown-entity /reads/d/steps/0/effects/0/entity",
      "bad-type /reads/d/ungrounded",
      "bad-name /reads/bad name",
    ]));
  });

  it("derives judged arguments and refuses a call that already uses a derived name", () => {
    const rule = readsOf({ ...base, reads: { del: { derive: { first: "$args.names.0" } } } }).get("del");
    expect(judgedCall(rule, { name: "del", arguments: { names: ["a", "b"] } })).toEqual({ ok: true, call: { name: "del", arguments: { names: ["a", "b"], first: "a" } } });
    expect(judgedCall(rule, { name: "del", arguments: { names: [] } })).toEqual({ ok: true, call: { name: "del", arguments: { names: [] } } });
    const clash = judgedCall(rule, { name: "del", arguments: { names: ["a"], first: "z" } });
    expect(clash.ok).toBe(false);
  });

  it("runs steps in order: `when` sees what earlier steps put in Layer B; `finally` retracts an incomplete entity", () => {
    const rules = parseProjectionRules({
      ...base,
      reads: {
        w: {
          steps: [
            { tool: "info", arguments: { p: "$args.path" }, effects: [{ entity: "item", id: "$args.path", set: { kind: "$result.kind" } }] },
            { tool: "read", arguments: { p: "$args.path" }, when: { eq: [{ entity: "item", id: "$args.path", slot: "kind" }, { const: "file" }] },
              effects: [{ entity: "item", id: "$args.path", set: { text: "$result.text" } }] },
          ],
          finally: [{ op: "delete", entity: "item", id: "$args.path", when: { not: { exists: { entity: "item", id: "$args.path", slot: "text" } } } }],
        },
      },
    });
    const rule = rules.reads.get("w")!;
    const call = { name: "w", arguments: { path: "/a" } };
    const state = new LayerB();
    expect(readArguments(rule.steps[0], call, state)).toEqual({ p: "/a" });
    applyReadResult(rules, state, rule.steps[0], call, { kind: "dir" });
    expect(readArguments(rule.steps[1], call, state)).toBeNull(); // not a file: not read
    applyReadsFinally(rules, state, rule, call);
    expect(state.hasEntity("item", "/a")).toBe(false);
    applyReadResult(rules, state, rule.steps[0], call, { kind: "file" });
    expect(readArguments(rule.steps[1], call, state)).toEqual({ p: "/a" });
    applyReadResult(rules, state, rule.steps[1], call, { text: "hi" });
    applyReadsFinally(rules, state, rule, call);
    expect(state.entity("item", "/a")).toEqual({ kind: "file", text: "hi" });
  });

  it("`in` takes an expression for its values (a list from the state or the call), missing → unknown", () => {
    const rules = parseProjectionRules({
      ...base,
      tools: {
        t: [{ entity: "item", id: { const: "x" }, set: {
          fresh: { filter: "$args.add", where: { not: { in: "$item", values: "$result.have" } } },
          known: { in: "$args.one", values: { map: "$result.objs", to: "$item.n" } },
          unknown: { in: "$args.one", values: "$result.absent" },
        } }],
      },
    });
    const state = new LayerB();
    applyToolResult(rules, state, { name: "t", arguments: { add: ["a", "b", "b", "c"], one: "q" } }, { have: ["b"], objs: [{ n: "q" }] });
    expect(state.entity("item", "x")).toEqual({ fresh: ["a", "c"], known: true });
    expect(safeParseProjectionRules({ ...base, tools: { t: [{ entity: "item", id: "$args.id", set: { s: { in: "$args.x", values: 5 } } }] } }).ok).toBe(false);
  });
});


// How an executed call's result updates Layer B: the result text is JSON when it parses (whitespace
// around it, `false` and `null` included), an effect never wipes an entity with a record that is not
// an object, and an id is a non-empty string or a finite number — anything else skips, with a reason.
import { describe, expect, it } from "vitest";
import { applyToolResult, LayerB, parseProjectionRules, parseToolResult } from "../../src/projection/index.js";

describe("parseToolResult", () => {
  it.each([
    ['  {"a":1}\n', { a: 1 }],
    ["\t[1, 2] ", [1, 2]],
    ["false", false],
    ["null", null],
    [" true ", true],
    ["0", 0],
    ["9", 9],
    ["-0.5", -0.5],
    ['{"a":null,"b":[null,1]}', { a: null, b: [null, 1] }],
  ])("JSON text %j is its value", (text, value) => {
    expect(parseToolResult(text)).toEqual({ value, text });
  });

  it.each(["   ", "Done", "nullable", "0 items left", "1e999", '{"a":-1e400}', "[1e999]", '{"a":[{"b":[2,1e999]}]}'])("text %j that is not usable JSON stays text", (text) => {
    expect(parseToolResult(text)).toEqual({ value: text, text });
  });

  it.each<[string, unknown, unknown]>([
    ["null", null, null],
    ["false", false, false],
    ["a number", 5, 5],
    ["NaN", NaN, undefined],
    ["Infinity", Infinity, undefined],
    ["undefined", undefined, undefined],
    ["a function", () => 1, undefined],
    ["a Date (its JSON text)", new Date(0), "1970-01-01T00:00:00.000Z"],
    ["an object with a Date and a function", { at: new Date(0), f: () => 1 }, { at: "1970-01-01T00:00:00.000Z" }],
    ["an object holding a bigint", { n: 1n }, undefined],
  ])("a JavaScript result that is %s becomes its JSON value", (_what, result, value) => {
    expect(parseToolResult(result)).toEqual({ value, text: undefined });
  });

  it("a cyclic result is no result", () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(parseToolResult(cyc).value).toBeUndefined();
  });
});

describe("applyToolResult", () => {
  const rules = parseProjectionRules({
    format: "polar-projection/1",
    domain: "d",
    entities: { res: { fields: "*" }, seat: { fields: "*" } },
    tools: {
      update_res: { entity: "res", id: "$args.id", record: "$result.reservation" },
      set_text: { entity: "res", id: "$args.id", set: { text: "$text" } },
      by_id: { entity: "res", id: "$args.id", set: { x: { const: 1 } } },
      seats: { forEach: "$result", entity: "seat", id: "$item", set: { pos: "$index" } },
      huge_id: { entity: "res", id: { add: [{ const: 1e308 }, { const: 1e308 }] }, set: { x: { const: 1 } } },
      no_loop: { entity: "seat", id: "$args.id", set: { pos: { coalesce: ["$index", { const: "none" }] } } },
    },
  });

  it("a record that is null, a string or a list is skipped with a reason and leaves the entity as it was", () => {
    for (const reservation of [null, "R1", ["a"]]) {
      const b = new LayerB();
      b.set("res", "R1", "status", "confirmed");
      const r = applyToolResult(rules, b, { name: "update_res", arguments: { id: "R1" } }, JSON.stringify({ reservation }));
      expect(r.skipped).toEqual(["effect 0 of `update_res`: `record` is not an object"]);
      expect(r.changes).toEqual([]);
      expect(b.slot("res", "R1", "status")).toBe("confirmed");
    }
  });

  it("a JSON result with whitespace around it is read as JSON", () => {
    const b = new LayerB();
    applyToolResult(rules, b, { name: "update_res", arguments: { id: "R1" } }, `\n  ${JSON.stringify({ reservation: { status: "cancelled" } })}\n`);
    expect(b.slot("res", "R1", "status")).toBe("cancelled");
  });

  it("`$text` is the result text; a Date result's JSON text; nothing for a JSON object result", () => {
    const b = new LayerB();
    applyToolResult(rules, b, { name: "set_text", arguments: { id: "A" } }, "Reservation updated");
    expect(b.slot("res", "A", "text")).toBe("Reservation updated");
    applyToolResult(rules, b, { name: "set_text", arguments: { id: "B" } }, new Date(0));
    expect(b.slot("res", "B", "text")).toBe("1970-01-01T00:00:00.000Z");
    const r = applyToolResult(rules, b, { name: "set_text", arguments: { id: "C" } }, { ok: true });
    expect(r.changes).toEqual([{ op: "upsert", entity: "res", id: "C", effective: true }]);
    expect(Object.keys(b.entity("res", "C") ?? {})).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ["an empty string", "", '""'],
    ["null", null, "null"],
    ["a boolean", true, "true"],
    ["a list", ["R1"], '["R1"]'],
  ])("an id that is %s is skipped, naming what it got", (_what, id, got) => {
    const b = new LayerB();
    const r = applyToolResult(rules, b, { name: "by_id", arguments: { id } }, "ok");
    expect(r).toEqual({ tool: "by_id", matched: true, changes: [], skipped: [`effect 0 of \`by_id\`: no entity id (got \`${got}\`)`] });
    expect(b.size()).toBe(0);
  });

  it("an id that overflows to infinity is skipped, and the reason says so (not `null`)", () => {
    const b = new LayerB();
    expect(applyToolResult(rules, b, { name: "huge_id", arguments: {} }, "ok").skipped).toEqual(["effect 0 of `huge_id`: no entity id (got `Infinity`)"]);
    expect(b.size()).toBe(0);
  });

  it("a numeric id (zero too) is the number's text", () => {
    const b = new LayerB();
    for (const id of [123, 0]) applyToolResult(rules, b, { name: "by_id", arguments: { id } }, "ok");
    expect(b.ids("res")).toEqual(["123", "0"]);
  });

  it("`forEach` runs over a list's items or a map's values with their index, and over nothing else", () => {
    const b = new LayerB();
    applyToolResult(rules, b, { name: "seats", arguments: {} }, '["1A", "1B"]');
    applyToolResult(rules, b, { name: "seats", arguments: {} }, '{"x": "2C"}');
    expect(b.ids("seat")).toEqual(["1A", "1B", "2C"]);
    expect(b.slot("seat", "1B", "pos")).toBe(1);
    expect(b.slot("seat", "2C", "pos")).toBe(0);
    for (const result of ['"3D"', "null", "7"]) {
      expect(applyToolResult(rules, b, { name: "seats", arguments: {} }, result)).toEqual({ tool: "seats", matched: true, changes: [], skipped: [] });
    }
    expect(b.ids("seat")).toEqual(["1A", "1B", "2C"]);
  });

  it("`$index` is undefined outside a `forEach`", () => {
    const b = new LayerB();
    applyToolResult(rules, b, { name: "no_loop", arguments: { id: "S" } }, "ok");
    expect(b.slot("seat", "S", "pos")).toBe("none");
  });
});

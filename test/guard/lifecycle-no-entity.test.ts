// A call whose tool acts on no entity (no `acts_on`) has no `before` snapshot: its entry in the session's
// forward sequence, in guard.sequence(), in later decisions' `forward` and in a snapshot holds name,
// arguments and result only — JSON data, never a `before` field without a value.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { referenceFactory } from "./helpers.js";

const compiled = compile("slot_definition(e, x, number).\ntool(note, params = [text]).\nbounded_reversibility(note, true, none, 0.99, args = { text: call.text }).\n", { name: "note.polar" });
if (!compiled.ok) throw new Error(compiled.diagnostics.map((d) => d.message).join("; "));

const note = (text: string) => ({ name: "note", arguments: { text } });

describe("a call that acts on no entity", () => {
  it("is observed and kept without a `before` field, in the sequence, the next decision's forward and a snapshot", () => {
    const g = createGuard({ ontology: compiled.blob, backend: referenceFactory, state: new LayerB(), scope: "session" });
    const d = g.check(note("a"));
    expect(d).toMatchObject({ approved: true, reason: "ok" });
    g.observe(note("a"), "ok", { execution: d.execution! });
    expect(g.sequence()).toHaveLength(1);
    expect(Object.keys(g.sequence()[0])).toEqual(["name", "arguments", "result"]);

    const next = g.check(note("b"));
    expect(next).toMatchObject({ approved: true, reason: "ok" });
    expect(next.forward).toStrictEqual([{ name: "note", arguments: { text: "a" }, result: "ok" }]);

    // b checked, not observed: its pending entry has no `before` either.
    const after = g.check(note("c"));
    expect(after.forward.map((e) => Object.keys(e as object))).toEqual([["name", "arguments", "result"], ["name", "arguments", "pending"]]);
    expect(g.snapshot().executions.map((x) => "before" in x)).toEqual([false, false]);
    expect(g.snapshot().sequence.map((x) => Object.keys(x.call))).toEqual([["name", "arguments", "result"]]);
  });
});

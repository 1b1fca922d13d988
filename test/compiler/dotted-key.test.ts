// `key = target.id` and `new_key = booking.id`: the documented dotted paths (docs/ontology-language.md,
// the `key` and `new_key` options) name a nested call argument or result field. Before, only a plain
// name was looked up, so a dotted key never matched: every call was ungrounded (verifier) or
// malformed (guard), whatever it named.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { createVerifier, JsonState } from "../../src/core/verifier.js";
import { createGuard } from "../../src/guard/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { loadCore } from "../differential/backends.js";

const SOURCE = `
slot_definition(doc, title, string).
tool(rename, acts_on = doc, key = target.id, params = [target, title]).
tool(create_doc, acts_on = doc, key = "inbox", creates = doc, new_key = created.id, params = [title]).
tool(delete_doc, acts_on = doc, key = doc_id, params = [doc_id]).
bounded_reversibility(rename, present(doc.title), none, 0.99, id = "rename.self",
    args = { target: call.target, title: doc.title }).
compensates(delete_doc, create_doc, doc.title, none, 0.9, id = "create.delete",
    args = { doc_id: new.id }).
`;

function compiled() {
  const r = compile(SOURCE, { name: "dotted.polar" });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; "));
  return r;
}

const state = () => new JsonState({ entities: { doc: { D1: { title: "old" }, inbox: { title: "Inbox" } } } });

describe("a dotted key names a nested argument", () => {
  const core = loadCore();
  it.each([
    ["reference", () => createReferenceBackend(compiled().tables)],
    ["wasm", () => core.load(compiled().blob)],
  ] as const)("grounds the call on the entity it names and reads that entity's slots (%s)", (_name, backend) => {
    const v = createVerifier(compiled().tables, backend());
    const ok = v.verdict([{ name: "rename", arguments: { target: { id: "D1" }, title: "new" } }], state());
    expect(ok.reason).toBe("ok");
    expect(ok.steps[0].arguments).toEqual({ target: { id: "D1" }, title: "old" });
    // Naming a document the state does not hold is ungrounded, as with a plain key.
    expect(v.verdict([{ name: "rename", arguments: { target: { id: "D9" }, title: "new" } }], state()).reason).toBe("no_candidate");
  });

  it("a dotted new_key reads the created id from the result", () => {
    const v = createVerifier(compiled().tables, createReferenceBackend(compiled().tables));
    const created = { name: "create_doc", arguments: { title: "t" }, result: { created: { id: "D7" } } };
    const check = v.verdict([created, { name: "rename", arguments: { target: { id: "D1" }, title: "x" } }], state());
    const undo = check.steps.find((s) => s.tool === "delete_doc");
    expect(undo?.arguments).toEqual({ doc_id: "D7" });
  });

  it("the guard takes the key from the path, and refuses a call whose path is missing or not an id", () => {
    const g = createGuard({ ontology: compiled().blob, state: LayerB.fromJSON({ entities: { doc: { D1: { title: "old" } } } }) });
    expect(g.check({ name: "rename", arguments: { target: { id: "D1" }, title: "new" } })).toMatchObject({ route: "Approved", reason: "ok" });
    for (const target of [undefined, {}, { id: { nested: 1 } }, "D1"]) {
      const d = g.check({ name: "rename", arguments: { target, title: "new" } as Record<string, unknown> });
      expect(d.route).toBe("Vetoed");
      expect(d.reason).toBe("malformed_call");
    }
  });
});

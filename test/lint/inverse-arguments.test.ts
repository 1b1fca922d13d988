// `polar lint` on inverse calls: an annotation whose argument map does not give its inverse tool every
// required parameter (per the tool manifest) names a call the tool would reject; so does one that sets a
// parameter the tool does not take; and a tool's declared params must be the manifest's.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { lintOntology, parseManifest } from "../../src/lint/index.js";
import { describeTau2, TAU2_DIR } from "../tau2/data-dir.js";

const ROOT = join(import.meta.dirname, "../..");

function lint(source: string, manifest: unknown) {
  const r = compile(source);
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  return lintOntology(r.tables, parseManifest(manifest), { declaredParams: r.model.tools }).findings;
}

const SMALL = `
slot_definition(order, status, string).
slot_definition(order, items, list).
slot_definition(user, name, string).
loss_class_definition(fee, 0.1).
tool(place_order, acts_on = user, key = user_id, creates = order, new_key = order_id).
tool(cancel_order, acts_on = order, key = order_id).
compensates(place_order, cancel_order, order.status, fee, 0.9, identity = new, id = "rebuy",
    args = { user_id: call.user_id, colour: "red" }).
compensates(cancel_order, place_order, order.status, fee, 0.9, id = "cancel", args = { order_id: new.id }).
`;
const MANIFEST = [
  { name: "place_order", kind: "write", params: { user_id: "str", items: "list[str]", gift: "bool = False" } },
  { name: "cancel_order", kind: "write", params: { order_id: "str" } },
];

describe("inverse arguments against the manifest", () => {
  it("reports a required parameter without a source and an argument the tool does not take", () => {
    const f = lint(SMALL, MANIFEST);
    expect(f.map((x) => [x.code, x.annotation, x.severity])).toEqual([
      ["inverse-missing-arguments", "rebuy", "error"],
      ["inverse-unknown-arguments", "rebuy", "error"],
    ]);
    expect(f[0].message).toBe("annotation `rebuy` undoes `cancel_order` with `place_order`, which requires `items`; its argument map gives no source for `items`");
    expect(f[1].message).toContain("`colour`");
  });

  it("is satisfied by a complete map; an optional parameter may be left out", () => {
    const fixed = SMALL.replace('colour: "red"', "items: order.items");
    expect(lint(fixed, MANIFEST)).toEqual([]);
  });

  it("reports declared params that disagree with the manifest", () => {
    const declared = SMALL.replace("new_key = order_id)", "new_key = order_id, params = [user_id, gift], optional_params = [items, note])")
      .replace('colour: "red"', "items: order.items, gift: false");
    const f = lint(declared, MANIFEST).filter((x) => x.code === "params-mismatch");
    expect(f).toHaveLength(1);
    expect(f[0].message).toBe("tool `place_order` parameters differ from the manifest: `items` is declared optional but is required; " +
      "`gift` is declared required but is optional; `note` is not a parameter of the tool");
  });
});

describeTau2("inverse arguments against the real τ²-bench manifests", () => {
  const manifest = JSON.parse(readFileSync(join(TAU2_DIR, "tools", "airline.json"), "utf8"));
  const airline = readFileSync(join(ROOT, "ontologies", "airline", "airline.polar"), "utf8");

  it("the airline re-booking compensation covers book_reservation's required parameters", () => {
    expect(lint(airline, manifest).filter((f) => f.code.startsWith("inverse-"))).toEqual([]);
  });

  it("reports the re-booking compensation once it lacks the payment", () => {
    const without = airline.replace(/\n\s*payment_methods: reservation\.payment_history,/, "");
    expect(without).not.toBe(airline);
    const f = lint(without, manifest).filter((x) => x.code === "inverse-missing-arguments");
    expect(f.map((x) => [x.annotation, x.tool])).toEqual([["airline.cancel.rebook", "cancel_reservation"]]);
    expect(f[0].message).toContain("requires `payment_methods`");

    // The command prints it and exits 1.
    const dir = mkdtempSync(join(tmpdir(), "polar-lint-args-"));
    const file = join(dir, "airline.polar");
    writeFileSync(file, without);
    const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "src/cli/index.ts"), "lint", "--ontology", file, "--tools", join(TAU2_DIR, "tools", "airline.json")],
      { cwd: ROOT, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/error\[inverse-missing-arguments\]: annotation `airline.cancel.rebook`/);
  });
});

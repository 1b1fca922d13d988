// Checker behaviour that a list of codes does not show: help texts with suggestions, what counts as a
// duplicate or a contradiction, when warnings are given, and that names resolve in any order.
import { describe, expect, it } from "vitest";
import { compile, type Diagnostic } from "../../src/compiler/index.js";
import { PRELUDE, tablesOf } from "./helpers.js";

function diagnostics(source: string): Diagnostic[] {
  return compile(source).diagnostics;
}

describe("checker", () => {
  it("suggests the closest known name in the help", () => {
    const d = diagnostics(PRELUDE + "inverse_of(cancel_ordr, place_order, order.stats, 1).\ncompensates(cancel_order, place_order, order.status, fe, 0.9).");
    expect(d.map((x) => x.help)).toEqual([
      expect.stringContaining("did you mean `cancel_order`?"),
      expect.stringContaining("did you mean `order.status`?"),
      expect.stringContaining("did you mean `fee`?"),
    ]);
  });

  it("quotes user input in backticks and keeps messages on one line", () => {
    const [d] = diagnostics(PRELUDE + "tool(a, acts_on = shipment).");
    expect(d.message).toBe("unknown entity `shipment`");
    expect(d.span).toEqual({ line: 15, col: 19, endLine: 15, endCol: 27 });
  });

  it("resolves names declared after their use", () => {
    const t = tablesOf(`inverse_of(cancel, book, order.status, 1).
tool(book, creates = order).
tool(cancel, acts_on = order).
bounded_reversibility(cancel, true, none, 1).
slot_definition(order, status, string).`);
    expect(t.edges.map((e) => e.id)).toEqual(["T1.book.cancel.order.status", "T2.cancel.cancel"]);
  });

  it("allows alternatives of one shape when each has its own explicit id", () => {
    const src = PRELUDE + `@id("open") bounded_reversibility(update_order, order.status == "open", none, 1).
@id("late") bounded_reversibility(update_order, order.status == "late", fee, 0.8).
external_side_effect(notify, email, 1). external_side_effect(cancel_order, email, 1). bounded_reversibility(place_order, true, none, 1).`;
    expect(tablesOf(src).edges.filter((e) => e.program >= 0)).toHaveLength(2);
    const oneImplicit = src.replace('@id("late") ', "");
    expect(diagnostics(oneImplicit).map((d) => d.code)).toEqual(["duplicate-annotation"]);
  });

  it("sees a contradiction only between live annotations", () => {
    const base = PRELUDE + "inverse_of(update_order, cancel_order, order.status, 1%s).\nirreversibly_consumes(cancel_order, order.status, fee, 1).\n";
    expect(diagnostics(base.replace("%s", "")).map((d) => d.code)).toContain("contradictory-edges");
    for (const status of ["provisional", "revoked", "disputed"]) {
      expect(diagnostics(base.replace("%s", `, status = ${status}`)).map((d) => d.code)).not.toContain("contradictory-edges");
    }
  });

  it("warns about unannotated mutating tools only when nothing else is wrong", () => {
    const clean = diagnostics(PRELUDE + "bounded_reversibility(update_order, true, none, 1).");
    expect(clean.every((d) => d.severity === "warning")).toBe(true);
    expect(clean.map((d) => d.message)).toEqual([
      "mutating tool `place_order` has no annotation",
      "mutating tool `cancel_order` has no annotation",
      "mutating tool `notify` has no annotation",
    ]);
    const broken = diagnostics(PRELUDE + "bounded_reversibility(update_order, true, none, 2).");
    expect(broken.map((d) => d.code)).toEqual(["weight-out-of-range"]);
  });

  it("does not report a name as unknown after its declaration failed for another reason", () => {
    const d = diagnostics(`slot_definition(order, status, strng).
loss_class_definition(fee, weight = 1).
tool(t, acts_on = order).
compensates(t, t, order.status, fee, 0.9).`);
    expect(d.map((x) => x.code)).toEqual(["unknown-slot-type", "loss-weight-out-of-range"]);
  });

  it("types call arguments by their use and rejects two uses of different kinds", () => {
    const d = diagnostics(PRELUDE + `@id("a") bounded_reversibility(update_order, call.n > 1, none, 1).
@id("b") bounded_reversibility(update_order, call.n == "x", none, 1).`);
    expect(d.map((x) => [x.code, x.message])).toEqual([["bound-type-mismatch", "`call.n` is used as a number and as a string"]]);
  });
});

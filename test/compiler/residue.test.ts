// Declared residue (`loss_class_definition(..., residue = [...])`): checked against the slot and entity
// declarations, in any order, and returned as data on the compiled model for executors.
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";

describe("loss class residue", () => {
  it("is returned on the compiled model, in table order, with `*` as a null slot and new(entity) as created", () => {
    const r = compile(`
loss_class_definition(rebooking, weight = 0.1, residue = [reservation.status, reservation.*, new(reservation), user.balance]).
loss_class_definition(plain, 0.05).
slot_definition(reservation, status, string).
slot_definition(user, balance, number).
tool(cancel, acts_on = reservation, key = reservation_id).
tool(book, acts_on = user, key = user_id, creates = reservation).
compensates(book, cancel, reservation.status, rebooking, 0.9).
`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.lossClasses).toEqual([
      { name: "none", weight: 0, residue: [] },
      {
        name: "rebooking", weight: 100_000, residue: [
          { entity: "reservation", slot: "status", created: false },
          { entity: "reservation", slot: null, created: false },
          { entity: "reservation", slot: null, created: true },
          { entity: "user", slot: "balance", created: false },
        ],
      },
      { name: "plain", weight: 50_000, residue: [] },
    ]);
    expect(r.model.lossClasses.map((l) => l.name)).toEqual(r.tables.lossClasses.map((l) => l.name));
  });

  it("does not change the blob: the verdict never reads it", () => {
    const base = "slot_definition(a, s, string).\ntool(t, acts_on = a).\ncompensates(t, t, a.s, fee, 0.9).\n";
    const without = compile(`loss_class_definition(fee, 0.1).\n${base}`);
    const withResidue = compile(`loss_class_definition(fee, 0.1, residue = [a.s]).\n${base}`);
    if (!without.ok || !withResidue.ok) throw new Error("does not compile");
    // Only the header hashes differ (the source text does); every table byte is the same.
    expect(Buffer.from(withResidue.blob.subarray(80)).equals(Buffer.from(without.blob.subarray(80)))).toBe(true);
    expect(withResidue.tables.lossClasses).toEqual(without.tables.lossClasses);
  });

  it("lexes `entity.*` as one name, so `a.*` never ends a statement", () => {
    const r = compile("slot_definition(a, s, string).\nloss_class_definition(fee, 0.1, residue = [a.*]).\ntool(t, acts_on = a).\ninverse_of(t, t, a.s, 1).\n");
    expect(r.ok && r.model.lossClasses[1].residue).toEqual([{ entity: "a", slot: null, created: false }]);
  });
});

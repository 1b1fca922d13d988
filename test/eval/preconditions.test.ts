// Issue 22 §1: an admitted undo must be one τ²-bench accepts. States built in τ²-bench's own airline
// environment (python/polar_tau2_bridge.py) that exhibit each precondition its write tools check in
// code and that an inverse would hit: a gift card too short for a flight change's or a bag change's
// undo ("Gift card balance is not enough"), a re-booking with the three reservation ids taken ("Too
// many reservations"), and a re-booking whose payment no longer adds up to the fares ("Payment amount
// does not add up"). For each: the guard refuses (bound_violated), and the undo the edge would have
// proposed, run in the environment, errors with τ²-bench's own message; and beside it a state where
// the precondition holds: admitted, and the executed π restores the state up to its residue.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createVerifier, type Verifier } from "../../src/core/verifier.js";
import type { Verdict } from "../../src/core/types.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { projectDocument } from "../../src/projection/project.js";
import type { ProjectionRules } from "../../src/projection/rules.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { Tau2Bridge } from "../../src/tau2/bridge.js";
import { loadDomainOntology, loadDomainRules } from "../../src/tau2/domains.js";
import { REPO_ROOT, TAU2_DIR } from "../tau2/data-dir.js";
import { TAU2_SRC, describePython } from "../tau2/python-env.js";

const NOW = "2024-05-15T15:00:00";

describePython("airline undos meet the preconditions τ²-bench checks in code (executed)", () => {
  let bridge: Tau2Bridge;
  let rules: ProjectionRules;
  let verifier: Verifier;

  beforeAll(async () => {
    bridge = await Tau2Bridge.start({ domain: "airline", data: TAU2_DIR, tau2Src: TAU2_SRC, timeoutMs: 120_000 });
    rules = loadDomainRules(REPO_ROOT, "airline");
    const tables = loadDomainOntology(REPO_ROOT, "airline").ontology.tables;
    verifier = createVerifier(tables, createReferenceBackend(tables));
  }, 120_000);
  afterAll(async () => {
    await bridge?.close();
  });

  /** Layer B of the environment's current state. */
  async function layerB(): Promise<LayerB> {
    const state = await bridge.state();
    const lb = new LayerB();
    projectDocument(rules, state.db, lb, { document: "db" });
    return lb;
  }
  const verdictOn = async (name: string, args: Record<string, unknown>): Promise<Verdict> =>
    verifier.verdict([{ name, arguments: args }], await layerB(), { now: NOW });
  async function run(name: string, args: Record<string, unknown>): Promise<{ content: string; error: boolean }> {
    return bridge.call(name, args);
  }
  const slot = (lb: LayerB, id: string, s: string): unknown => lb.slot("reservation", id, s);

  /** A live reservation (nothing flown, re-bookable) whose user holds a credit card and a gift card. */
  async function reservationWithCards(pred: (lb: LayerB, id: string) => boolean = () => true): Promise<{ id: string; card: string; gift: string; balance: number }> {
    const lb = await layerB();
    for (const id of [...lb.ids("reservation")].sort()) {
      if (slot(lb, id, "status") === "cancelled" || slot(lb, id, "flown") !== false || slot(lb, id, "rebookable") !== true) continue;
      const pb = slot(lb, id, "payment_balances") as Record<string, number | null>;
      const card = Object.keys(pb).sort().find((k) => pb[k] === null && k.startsWith("credit_card_"));
      const gift = Object.keys(pb).sort().find((k) => k.startsWith("gift_card_"));
      if (card !== undefined && gift !== undefined && pred(lb, id)) return { id, card, gift, balance: pb[gift] as number };
    }
    throw new Error("no reservation fits");
  }

  it("a flight change's self-undo that the gift card cannot pay is refused; τ²-bench refuses the undo", async () => {
    await bridge.reset();
    // A segment whose current fare is above the booked one: the undo re-prices it at today's fare.
    const lb0 = await layerB();
    const { id, gift, balance } = await reservationWithCards((lb, r) => slot(lb, r, "cabin") === "economy" && (slot(lb, r, "refare_excess") as number) > 0);
    const pax = (slot(lb0, id, "passengers") as unknown[]).length;
    const excess = (slot(lb0, id, "refare_diff") as number) * pax;
    const flights = slot(lb0, id, "flight_refs");
    const forward = { reservation_id: id, cabin: "basic_economy", flights, payment_id: gift };
    const v = await verdictOn("update_reservation_flights", forward);
    expect([v.reason, v.bottleneck.annotation]).toEqual(["bound_violated", "airline.flights.self"]);
    // Run the change, then the undo the edge proposes without the gift-card condition.
    const f = await run("update_reservation_flights", forward);
    if (f.error) throw new Error(`the forward change failed: ${f.content}`);
    const undo = await run("update_reservation_flights", { reservation_id: id, cabin: "economy", flights, payment_id: gift });
    if (balance < excess) {
      expect(undo).toMatchObject({ error: true });
      expect(undo.content).toMatch(/Gift card balance is not enough/);
    } else {
      expect(undo.error).toBe(false); // the condition is conservative: refare_excess > 0 is refused even when it fits
    }
  }, 120_000);

  it("a flight change paid by credit card and changing cabin is admitted with its amount; the executed undo moves exactly that", async () => {
    await bridge.reset();
    const lb0 = await layerB();
    const { moneyMoved } = await import("../../src/eval/execute.js");
    let tried = 0;
    for (const id of [...lb0.ids("reservation")].sort()) {
      if (slot(lb0, id, "cabin") !== "economy" || slot(lb0, id, "status") === "cancelled" || slot(lb0, id, "flown") !== false || slot(lb0, id, "rebookable") !== true) continue;
      if ((slot(lb0, id, "refare_diff") as number) === 0) continue;
      const pb = slot(lb0, id, "payment_balances") as Record<string, number | null>;
      const card = Object.keys(pb).sort().find((k) => pb[k] === null && k.startsWith("credit_card_"));
      if (card === undefined) continue;
      const pax = (slot(lb0, id, "passengers") as unknown[]).length;
      const stated = (slot(lb0, id, "refare_diff") as number) * pax;
      const forward = { reservation_id: id, cabin: "business", flights: slot(lb0, id, "flight_refs"), payment_id: card };
      const v = await verdictOn("update_reservation_flights", forward);
      expect(v.reason).toBe("ok");
      expect([v.steps[0].amount, v.amount, v.bottleneck.amount]).toEqual([stated * 1e6, stated * 1e6, stated * 1e6]);
      const before = await bridge.snapshot();
      if ((await run("update_reservation_flights", forward)).error) continue; // no business seats: the next one
      expect(await run(v.steps[0].tool!, v.steps[0].arguments!)).toMatchObject({ error: false });
      const d = await bridge.diff(before, 2000);
      expect(d.equal).toBe(false);
      expect(moneyMoved(d)?.net).toBe(stated);
      tried++;
      if (tried === 3) break;
      await bridge.reset();
    }
    expect(tried).toBe(3);
  }, 300_000);

  it("a bag decrease whose undo the gift card cannot pay is refused; τ²-bench refuses the undo", async () => {
    await bridge.reset();
    const { id, card, gift, balance } = await reservationWithCards();
    const lb0 = await layerB();
    const total = slot(lb0, id, "total_baggages") as number;
    // Two paid bags first (by credit card), so the decrease's undo charges 50 per bag.
    const bags = Math.floor(balance / 50) + 1;
    expect((await run("update_reservation_baggages", { reservation_id: id, total_baggages: total + bags, nonfree_baggages: bags, payment_id: card })).error).toBe(false);
    const forward = { reservation_id: id, total_baggages: total, nonfree_baggages: 0, payment_id: gift };
    const v = await verdictOn("update_reservation_baggages", forward);
    expect(v.reason).toBe("bound_violated"); // the fee edge's gift-card condition (the exact T2 needs equal bags)
    expect((await run("update_reservation_baggages", forward)).error).toBe(false);
    const undo = await run("update_reservation_baggages", { reservation_id: id, total_baggages: total + bags, nonfree_baggages: bags, payment_id: gift });
    expect(undo).toMatchObject({ error: true });
    expect(undo.content).toMatch(/Gift card balance is not enough/);
    // Paid by credit card instead, the same decrease is admitted, stating the fee it leaves.
    await bridge.reset();
    await run("update_reservation_baggages", { reservation_id: id, total_baggages: total + bags, nonfree_baggages: bags, payment_id: card });
    const ok = await verdictOn("update_reservation_baggages", { ...forward, payment_id: card });
    expect([ok.reason, ok.amount]).toEqual(["ok", 50 * bags * 1e6]);
  }, 120_000);

  /** A card-only reservation a cancellation can re-book (today's fares, one payment that adds up). */
  const rebookable = (lb: LayerB, r: string) =>
    slot(lb, r, "fares_current") === true && slot(lb, r, "card_only") === true && slot(lb, r, "payment_count") === 1 &&
    slot(lb, r, "paid_total") === ((slot(lb, r, "fare_now") as number) + (slot(lb, r, "insurance_fee") as number)) * (slot(lb, r, "passengers") as unknown[]).length +
      50 * (slot(lb, r, "nonfree_baggages") as number);

  /** The booking that re-creates reservation `id` (what airline.cancel.rebook proposes). */
  function rebooking(lb: LayerB, id: string): Record<string, unknown> {
    const s = (k: string) => slot(lb, id, k);
    return {
      user_id: s("user_id"), origin: s("origin"), destination: s("destination"), flight_type: s("flight_type"), cabin: s("cabin"),
      flights: s("flight_refs"), passengers: s("passengers"), payment_methods: s("payment_history"),
      total_baggages: s("total_baggages"), nonfree_baggages: s("nonfree_baggages"), insurance: s("insurance"),
    };
  }

  it("a cancellation whose re-booking finds the three reservation ids taken is refused; τ²-bench says \"Too many reservations\"", async () => {
    await bridge.reset();
    const lb0 = await layerB();
    const id = [...lb0.ids("reservation")].sort().find((r) => slot(lb0, r, "status") !== "cancelled" && slot(lb0, r, "rebookable") === true && slot(lb0, r, "flown") === false && rebookable(lb0, r))!;
    expect(id).toBeDefined();
    const ok = await verdictOn("cancel_reservation", { reservation_id: id });
    expect(ok.reason).toBe("ok");
    // Three bookings of the same itinerary take HATHAT, HATHAU and HATHAV.
    for (let i = 0; i < 3; i++) {
      const b = await run("book_reservation", rebooking(lb0, id));
      if (b.error) throw new Error(`booking ${i} failed: ${b.content}`);
    }
    const v = await verdictOn("cancel_reservation", { reservation_id: id });
    expect([v.reason, v.bottleneck.annotation]).toEqual(["bound_violated", "airline.cancel.rebook"]);
    expect((await run("cancel_reservation", { reservation_id: id })).error).toBe(false);
    const again = await run("book_reservation", rebooking(lb0, id));
    expect(again).toMatchObject({ error: true });
    expect(again.content).toMatch(/Too many reservations/);
  }, 120_000);

  it("a cancellation whose payment no longer adds up to the fares is refused; τ²-bench says \"Payment amount does not add up\"", async () => {
    await bridge.reset();
    const lb0 = await layerB();
    const id = [...lb0.ids("reservation")].sort().find((r) => slot(lb0, r, "status") !== "cancelled" && slot(lb0, r, "rebookable") === true && slot(lb0, r, "flown") === false && rebookable(lb0, r))!;
    // Book the itinerary again with one paid bag, then drop the bag (no refund): paid 50 more than it costs.
    const args: Record<string, unknown> = { ...rebooking(lb0, id), total_baggages: 1, nonfree_baggages: 1 };
    const paid = (slot(lb0, id, "paid_total") as number) + 50;
    args.payment_methods = [{ payment_id: (slot(lb0, id, "payment_history") as { payment_id: string }[])[0].payment_id, amount: paid }];
    const b = await run("book_reservation", args);
    if (b.error) throw new Error(`booking failed: ${b.content}`);
    const fresh = "HATHAT";
    const before = await verdictOn("cancel_reservation", { reservation_id: fresh });
    expect(before.reason).toBe("ok"); // it adds up: the re-booking would go through
    const pid = (args.payment_methods as { payment_id: string }[])[0].payment_id;
    expect((await run("update_reservation_baggages", { reservation_id: fresh, total_baggages: 0, nonfree_baggages: 0, payment_id: pid })).error).toBe(false);
    const lb1 = await layerB();
    const v = await verdictOn("cancel_reservation", { reservation_id: fresh });
    expect([v.reason, v.bottleneck.annotation]).toEqual(["bound_violated", "airline.cancel.rebook"]);
    expect((await run("cancel_reservation", { reservation_id: fresh })).error).toBe(false);
    const again = await run("book_reservation", rebooking(lb1, fresh));
    expect(again).toMatchObject({ error: true });
    expect(again.content).toMatch(/Payment amount does not add up/);
  }, 120_000);
});

// The consent detector on its two labelled tables (scripts/consent-recall.ts computes the figures; `npm run
// consent:recall` prints them with every miss): the project's table, read as the detector reads a window
// of user messages, and the confirmation exchanges of the development runs (test/policies/consent-runs-table.json,
// extracted by scripts/consent-runs.ts and labelled by reading each one), read as the guard's
// `recent-messages` mode reads them. Precision stays 1.0 on both; recall may not fall below what it is.
import { describe, expect, it } from "vitest";
import { measureProject, measureRuns, runsTable } from "../../scripts/consent-recall.js";
import { classifyMessage, detectConsent, scopedConsentDetector } from "../../src/policies/consent-scoped.js";
import { consentNames, recentConsentMessages } from "../../src/guard/recent-consent.js";

describe("consent recall on the two tables", () => {
  it("the runs table: every row labelled with a reason; exchanges from every domain with a user", () => {
    const rows = runsTable();
    expect(rows.length).toBeGreaterThanOrEqual(250);
    for (const r of rows) {
      expect(r.reason, r.id).not.toBe("");
      expect([true, false, null], r.id).toContain(r.consent);
      if (r.consent === true) expect(typeof r.explicit, r.id).toBe("boolean");
    }
    for (const d of ["airline", "retail", "telecom"]) expect(rows.some((r) => r.id.includes(`_${d}_`) && r.consent === true), d).toBe(true);
    expect(rows.filter((r) => r.consent === false).length).toBeGreaterThanOrEqual(10);
  });

  it("the project table: precision 1.0, recall at least 0.987", () => {
    const f = measureProject();
    console.log(`project table: tp=${f.tp} fp=${f.fp} fn=${f.fn} tn=${f.tn} recall=${f.recall.toFixed(3)}\n  ${f.misses.join("\n  ")}`);
    expect(f.fp).toBe(0);
    expect(f.precision).toBe(1);
    expect(f.recall).toBeGreaterThanOrEqual(0.987); // 78/79: the hedged yes is the one miss
  });

  it("the runs table (recent-messages): precision 1.0, recall at least 0.908 (explicit confirmations 0.963)", () => {
    const f = measureRuns();
    console.log(`runs table: tp=${f.tp} fp=${f.fp} fn=${f.fn} tn=${f.tn} recall=${f.recall.toFixed(3)} explicit=${f.explicitRecall.toFixed(3)}`);
    expect(f.fp).toBe(0);
    expect(f.precision).toBe(1);
    // Measured 188/207 = 0.908 and 187/194 = 0.964 (issue 22 §3, polar-regex-en-ko-fr@5; @4 had 0.860 / 0.918).
    expect(f.recall).toBeGreaterThanOrEqual(0.908);
    expect(f.explicitRecall).toBeGreaterThanOrEqual(0.963);
  });
});

describe("the classes the runs showed (the scoped detector, polar-regex-en-ko-fr@5)", () => {
  it("a negation after the answer that does not take it back does not veto; one that does, does", () => {
    for (const yes of [
      "Yes, please do it now. I'm not happy about having to downgrade, but thank you for your help.",
      "Alright, just go ahead and cancel it then. I don't have any other choice.",
      "Yes, please cancel both of those orders for me with “no longer needed” as the reason.",
      "Yes, that's correct. Please go ahead and make the change. No other changes needed.",
      "Yes, I confirm and authorize the change.",
      "Oui, please cancel those three reservations",
    ]) expect(classifyMessage(yes).kind, yes).toBe("yes");
    for (const no of [
      "Yes, go ahead. Actually, don't.",
      "Yes, please go ahead. Don't cancel the return flight.",
      "Yes, go ahead. Wait.",
      "Yes, please go ahead, I do not need insurance for the cancel",
      "Yes, please proceed. How long will the refund take?",
      "Yes, go ahead. Tell me the fee before you book.",
      "Non, merci.",
      "Oui, mais pas maintenant.",
    ]) expect(classifyMessage(no).kind, no).toBe("no");
  });

  it("a follow-up question or a new topic after the answer does not veto; a question about money does", () => {
    expect(classifyMessage("Yes, please go ahead and add 2GB of data. What do I need to do next?").kind).toBe("yes");
    expect(classifyMessage("Yes, please go ahead. Also, I ordered a jigsaw—can you check if it's shipped yet?").kind).toBe("yes");
    expect(classifyMessage("Yes, go ahead. Also, what will this cost me?").kind).toBe("no");
  });

  it("with what the message answers: a restated proposal, a declined alternative, a no to 'anything else?'", () => {
    const ctx = (question: string, name: string, args: unknown = {}) => ({ question, names: consentNames(name, args) });
    const swap = ctx("Please reply yes to confirm this single-item swap.", "modify_pending_order_items");
    expect(classifyMessage("Yes, please go ahead and make the swap.").kind).toBe("no");
    expect(classifyMessage("Yes, please go ahead and make the swap.", swap).kind).toBe("yes");
    expect(classifyMessage("Sure, switch me to the 9am flight", ctx("Shall I cancel it?", "cancel_reservation")).kind).toBe("no");
    const refuel = ctx("1. Refuel data at $2/GB. 2. Switch to a higher-data plan. Which would you like?", "refuel_data");
    const declined = "I definitely don't want to change my plan, but I'm willing to refuel. Please add 2 GB to my line.";
    expect(classifyMessage(declined).kind).toBe("no");
    expect(classifyMessage(declined, refuel).kind).toBe("yes");
    // Declining the call's own action is a no, whatever the context.
    const flights = ctx("Shall I change reservation R1 to these flights?", "update_reservation_flights");
    expect(classifyMessage("I don't want to change my flight. Please go ahead.", flights).kind).toBe("no");
    expect(classifyMessage("Yes. I don't want it.", flights).kind).toBe("no");
    const others = ctx("Are there any other passengers to update? If not, I will proceed.", "update_reservation_passengers");
    expect(classifyMessage("No, I only need the name changed. Please just update that one passenger.", others).kind).toBe("yes");
    expect(classifyMessage("No, I only need the name changed. Please just update that one passenger.").kind).toBe("no");
    // The context is for the latest message only.
    expect(detectConsent(["Yes, please make the swap.", "my order id is W1"], swap).consent).toBe(false);
    expect(detectConsent(["my order id is W1", "Yes, please make the swap."], swap).consent).toBe(true);
  });

  it("recent-messages: the answer to the latest question decides; an earlier no does not veto it", () => {
    const names = consentNames("cancel_reservation", { reservation_id: "ABC123" }, "ABC123");
    const conversation = [
      { role: "assistant", content: "Do you want travel insurance?" },
      { role: "user", content: "No, I don't want insurance." },
      { role: "assistant", content: "Shall I cancel reservation ABC123?" },
      { role: "user", content: "Yes, please go ahead and cancel the reservation. Thank you." },
    ];
    const read = recentConsentMessages(conversation, names, scopedConsentDetector);
    expect(read.messages).toEqual(["Yes, please go ahead and cancel the reservation. Thank you."]);
    expect(scopedConsentDetector.detect(read.messages, read.context).consent).toBe(true);
    // A yes to a message that does not name the call does not count, and nothing stands in for it.
    const unnamed = [...conversation.slice(0, 2), { role: "assistant", content: "Anything else?" }, { role: "user", content: "Yes, please." }];
    const r2 = recentConsentMessages(unnamed, names, scopedConsentDetector);
    expect(r2.context).toBeNull();
    expect(scopedConsentDetector.detect(r2.messages, r2.context).consent).toBe(false);
  });

  // @5 (issue 22 §3): each class with the yeses it now hears and the noes that must stay noes.
  const ctx = (question: string, name: string, args: unknown = {}) => ({ question, names: consentNames(name, args) });
  const expectKinds = (context: ReturnType<typeof ctx> | null, kind: "yes" | "no", texts: string[]) => {
    for (const t of texts) expect(classifyMessage(t, context).kind, t).toBe(kind);
  };

  it("a condition the question already met is no veto; one it did not meet, or met only conditionally, is", () => {
    const offered = ctx("With travel insurance we can indeed provide a full refund. Would you like to proceed with the cancellation?", "cancel_reservation");
    const met = "Yes, as long as I'm getting the full refund, please go ahead and cancel the flight.";
    expectKinds(offered, "yes", [met, "Yes, if the refund is full, cancel it."]);
    expectKinds(offered, "no", ["Yes, as long as there is no fee, please cancel it.", "Yes, as long as I get a travel certificate, please cancel it."]);
    expectKinds(null, "no", [met]);
    expectKinds(ctx("This reservation is not eligible for a full refund. Shall I cancel it?", "cancel_reservation"), "no", [met]);
    expectKinds(ctx("If you have insurance, we can provide a full refund. Shall I cancel it?", "cancel_reservation"), "no", [met]);
    expectKinds(ctx("You'll receive a partial refund instead of a full refund. Shall I cancel it?", "cancel_reservation"), "no", [met]);
    expectKinds(ctx("The cancellation comes without a full refund. Shall I cancel it?", "cancel_reservation"), "no", [met]);
    expectKinds(ctx("Would you like a full refund? Shall I cancel it?", "cancel_reservation"), "no", [met]);
    expectKinds(ctx("You can get a full refund or a certificate. Shall I cancel it?", "cancel_reservation"), "no", [met]);
  });

  it("a concession (even if …, if … anyway) is no condition; what follows it is still read", () => {
    const q = ctx("It is not refundable. Shall I cancel reservation M20IZO?", "cancel_reservation", { reservation_id: "M20IZO" });
    expectKinds(q, "yes", [
      "Alright, if that's really not possible, please go ahead and cancel reservation M20IZO anyway.",
      "Yes, cancel it, even if there is no refund.",
      "Yes, please go ahead. Thanks—even if my plans are on pause, at least my packages will find me!",
    ]);
    expectKinds(q, "no", [
      "Yes, if it's not possible, cancel it.",
      "Yes, if it's not possible, don't cancel it anyway.",
      "Yes, even if there is no refund, wait until tomorrow.",
      "Even if it's free, don't cancel it.",
      "Yes, go ahead even if it's expensive?",
      "Yes, please go ahead. Even if it's on pause, do it later.",
      // A withdrawal left after the concession ("forget it", "skip it") is a no, as it is without one.
      "Yes, forget it.",
      "Ok, if it's non-refundable, forget it anyway.",
      "Yes, even if it's non-refundable, skip it.",
    ]);
  });

  it("an acknowledged consequence after the answer is no veto; an acknowledgement that steers is", () => {
    const q = ctx("I will cancel UDMOP1 and 4XGCCM. Would you like me to confirm this action?", "cancel_reservation", { reservation_id: "UDMOP1" });
    expectKinds(q, "yes", ["Yes, please go ahead and cancel both of those reservations. I understand if I won't receive a refund for them—I'd still like to proceed."]);
    expectKinds(q, "no", [
      "Yes, please go ahead. I understand I won't get a refund, but don't cancel the return flight.",
      "Yes, please go ahead. I understand, so let's not do it.",
      "Yes, please go ahead. I understand I won't get a refund. Actually, wait.",
      "Yes, please go ahead. I understand it won't be done until next week.",
      "Yes. I know it's not refundable, forget it.",
      "Yes, go ahead. I understand if you can't, never mind then.",
      "Yes, go ahead. I realize it can't be undone and I won't proceed.",
      "Yes. Understood, not now.",
      "Yes. I understand, no thanks.",
      "Yes. I know, never.",
    ]);
  });

  it("'first' for the action itself, when the question proposes that order; 'first' for anything else vetoes", () => {
    const first = ctx("Would you like to proceed with updating your reservation first?", "update_reservation_flights", { flight_number: "HAT266" });
    expectKinds(first, "yes", ["Yes, please update my reservation to the nonstop flight first."]);
    expectKinds(first, "no", ["Yes, but tell me the fee first.", "Yes, tell me the fee first.", "Yes, check the fee first and then update it."]);
    expectKinds(ctx("Would you like to book one of these flights?", "book_reservation"), "no", ["Yes, please update my reservation to the nonstop flight first."]);
  });

  it("a switch to the call's own argument, and 'as it is' for the question's 'as is', restate the proposal", () => {
    const book = ctx("Would you like to book one of these flights? Which flight number do you prefer?", "book_reservation", { flights: [{ flight_number: "HAT266" }] });
    expectKinds(book, "yes", ["I'd like to switch to Flight HAT266. Please book that one for me in economy class."]);
    expectKinds(book, "no", ["I'd like to switch to Flight HAT175. Please book that one for me in economy class.", "Yes, please book it but switch HAT266 to HAT175."]);
    const watch = "Yes, just change the silicone one to metal. Leave the other watch as it is. Go ahead.";
    expectKinds(ctx("Please confirm you want to change only the silicone strap watch and keep the other watch as is.", "modify_pending_order_items"), "yes", [watch]);
    expectKinds(ctx("Please confirm you want to change both watches.", "modify_pending_order_items"), "no", [watch]);
    // "Keep X" when the question itself left X out, the whole kept thing and nothing more.
    const except = ctx("You want to return everything except for the pet bed. Shall I proceed with the return?", "return_delivered_order_items");
    expectKinds(except, "yes", ["Yes, that's correct—I want to return the kettle and the keyboard, but keep the pet bed. Please go ahead."]);
    expectKinds(except, "no", ["Yes, go ahead, but keep the lamp.", "Yes, go ahead, but keep the lamp and the pet bed.", "Yes, go ahead, but keep the pet bed too."]);
    expectKinds(ctx("Shall I return the kettle and the pet bed?", "return_delivered_order_items"), "no", ["Yes, go ahead, but keep the pet bed."]);
    // A word the question offers as the other branch of a choice is no restatement (@4 heard "Yes, keep it as is." here).
    const choice = ctx("Shall I cancel the reservation, or keep it as is?", "cancel_reservation");
    expectKinds(choice, "no", ["Yes, keep it as is.", "Yes, as it is.", "Sure, keep it.", "Ok, leave it as it is."]);
    expectKinds(ctx("Shall I return the kettle, or keep the pet bed and return the rest?", "return_delivered_order_items"), "no", ["Yes, keep the pet bed."]);
  });

  it("after a new topic's question, 'If not, …' answers that question; one that takes the answer back still vetoes", () => {
    const q = ctx("Please reply yes to update your default address.", "modify_user_address");
    expectKinds(q, "yes", ["Yes, go ahead. Also, can you check if my jigsaw shipped? If not, I'd like to change it to the easiest one."]);
    expectKinds(q, "no", [
      "Yes, go ahead. Also, can you check if my jigsaw shipped? If not, don't update the address.",
      "Yes, go ahead. Also, can you check if my jigsaw shipped? If so, wait.",
      "Yes, go ahead. Also, can you check if my jigsaw shipped? If so, keep the old address instead.",
      "Yes, go ahead. Can you check if my jigsaw shipped? If not, hold the address change.",
      // What follows "If not" may act on the aside, never undo the answer.
      "Yes, go ahead. Also, is the new address in the delivery zone? If not, cancel the update.",
      "Yes, go ahead. Also, is it in the zone? If not, undo it.",
    ]);
  });
});

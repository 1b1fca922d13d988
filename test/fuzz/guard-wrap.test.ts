// wrapTools runs a tool only on what the guard judged. Arguments are not trusted to stay the same
// between two reads: a getter or a proxy can answer the guard's copy with an approved value and the
// tool with another (a time-of-check to time-of-use gap), so the tool gets a copy of the judged call.
import { describe, expect, it } from "vitest";
import { isGuardRefusal, wrapTools } from "../../src/guard/index.js";
import { airlineGuard, airlineState } from "./targets/guard-args.js";

/** Arguments that answer `first` until the guard has decided (onDecision flips them), then `later`. */
function shifty(first: string, later: string): { args: Record<string, unknown>; flip: () => void } {
  let flipped = false;
  const args: Record<string, unknown> = {};
  Object.defineProperty(args, "reservation_id", { enumerable: true, get: () => (flipped ? later : first) });
  return { args, flip: () => void (flipped = true) };
}

describe("wrapTools runs what was judged", () => {
  it("a getter that changes its answer after the check: the tool still sees the judged value", async () => {
    const seen: unknown[] = [];
    // RES001: a cancellation the small state admits (re-bookable, paid once by card).
    const { args, flip } = shifty("RES001", "RES002; DROP TABLE");
    const tools = wrapTools(airlineGuard(airlineState()), {
      cancel_reservation: (a: Record<string, unknown>) => {
        seen.push(a.reservation_id);
        return JSON.stringify({ reservation_id: a.reservation_id, status: "cancelled" });
      },
    }, { onDecision: flip });
    const out = await tools.cancel_reservation(args);
    expect(isGuardRefusal(out)).toBe(false);
    expect(seen).toEqual(["RES001"]);
  });

  it("a proxy that changes its answer: the same", async () => {
    let flipped = false;
    const target = { reservation_id: "RES001" };
    const args = new Proxy(target, { get: (t, k) => (k === "reservation_id" && flipped ? "EVIL" : Reflect.get(t, k)) });
    const seen: unknown[] = [];
    const tools = wrapTools(airlineGuard(airlineState()), { cancel_reservation: (a: Record<string, unknown>) => void seen.push(a.reservation_id) }, {
      onDecision: () => void (flipped = true),
    });
    await tools.cancel_reservation(args);
    expect(seen).toEqual(["RES001"]);
  });

  it("the tool gets a copy: mutating it changes neither the decision record nor the next check", async () => {
    const decisions: { call: unknown }[] = [];
    const tools = wrapTools(airlineGuard(airlineState()), { cancel_reservation: (a: Record<string, unknown>) => void (a.reservation_id = "changed") }, {
      onDecision: (d) => decisions.push(d),
    });
    await tools.cancel_reservation({ reservation_id: "RES002" });
    expect(decisions[0].call).toEqual({ name: "cancel_reservation", arguments: { reservation_id: "RES002" } });
  });

  it("hostile arguments are refused without running the tool", async () => {
    let ran = 0;
    const tools = wrapTools(airlineGuard(airlineState()), { cancel_reservation: () => void ran++ });
    const cyclic: Record<string, unknown> = { reservation_id: "RES002" };
    cyclic.self = cyclic;
    for (const args of [cyclic, { reservation_id: () => "RES002" }, { reservation_id: 10n }, { reservation_id: Symbol("x") }]) {
      const out = await tools.cancel_reservation(args as Record<string, unknown>);
      expect(isGuardRefusal(out)).toBe(true);
    }
    expect(ran).toBe(0);
  });
});

// Faults inside the guard's machinery: a trap in the wasm core (the fault build's arm_trap), a state
// source that throws, a backend factory that fails. Each becomes a veto with reason `internal_error`;
// the same guard then serves the next calls exactly as a guard that never failed, and guards sharing
// one core (one per session, as in examples/worker) are not affected by another session's trap.
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import { createGuard, type Decision, type Guard } from "../../src/guard/index.js";
import { sharedBackend } from "../../src/loading/shared.js";
import { CI_SEED } from "./support.js";
import { airlineState, BASE_CALLS } from "./targets/guard-args.js";

const blob = new Uint8Array(readFileSync(new URL("../../ontologies/airline/airline.blob", import.meta.url)));
const faultModule = new WebAssembly.Module(readFileSync(new URL("../../build/polar-core.fault.wasm", import.meta.url)));
type FaultCore = CoreInstance & { exports: CoreInstance["exports"] & { arm_trap(afterCalls: number): void } };
const faultCore = (): FaultCore => instantiateCoreSync(faultModule) as FaultCore;

/** The parts of a decision that must not depend on whether the guard failed before. */
function essence(d: Decision): unknown {
  return { route: d.route, approved: d.approved, reason: d.reason, verdict: d.verdict, reads: d.reads };
}

/** A check of a call that is then not run (released), so the next check is judged on its own. */
function checkOnce(g: Guard, call: unknown): Decision {
  const d = g.check(call);
  if (d.execution !== null) g.release(d.execution);
  return d;
}

function referenceGuard(): Guard {
  return createGuard({ ontology: blob, state: airlineState(), policy: "veto" });
}

describe("a trap in the core", () => {
  it("vetoes with internal_error and the same guard then answers like one that never trapped (random interleavings)", () => {
    const reference = referenceGuard();
    const expected = BASE_CALLS.map((c) => essence(checkOnce(reference, c)));
    fc.assert(
      fc.property(
        fc.array(fc.record({ call: fc.nat(BASE_CALLS.length - 1), arm: fc.option(fc.nat(3), { freq: 3 }) }), { minLength: 1, maxLength: 12 }),
        (ops) => {
          let core = faultCore();
          const guard = createGuard({
            ontology: blob,
            backend: (_t, b) => {
              core = faultCore(); // a rebuild gets a fresh, unarmed instance
              return core.load(b!);
            },
            state: airlineState(),
            policy: "veto",
          });
          let armed = 0;
          let trapped = 0;
          for (const op of ops) {
            if (op.arm !== null) {
              core.exports.arm_trap(op.arm);
              armed++;
            }
            const d = checkOnce(guard, BASE_CALLS[op.call]);
            if (d.reason === "internal_error") {
              trapped++;
              expect(d).toMatchObject({ approved: false, route: "Vetoed", verdict: null });
              expect(d.detail).toContain("core-trap");
            } else {
              expect(essence(d)).toEqual(expected[op.call]);
            }
          }
          expect(trapped).toBeLessThanOrEqual(armed);
          // Disarmed (a trap rebuilds the instance; an unfired arm is cleared by a fresh one here),
          // every call is answered as the reference answers it.
          core.exports.arm_trap(-1);
          BASE_CALLS.forEach((c, i) => expect(essence(checkOnce(guard, c))).toEqual(expected[i]));
        },
      ),
      { seed: CI_SEED, numRuns: 60 },
    );
  });

  it("a trap on the first verdict of a session-scope guard leaves its forward sequence usable", () => {
    const core = faultCore();
    let builds = 0;
    const g = createGuard({ ontology: blob, backend: (_t, b) => (builds++ === 0 ? core.load(b!) : faultCore().load(b!)), state: airlineState(), policy: "veto", scope: "session" });
    const ref = createGuard({ ontology: blob, state: airlineState(), policy: "veto", scope: "session" });
    const cancel = BASE_CALLS[1];
    core.exports.arm_trap(0);
    expect(g.check(cancel)).toMatchObject({ reason: "internal_error", approved: false });
    for (const guard of [g, ref]) guard.observe(cancel, JSON.stringify({ reservation_id: "RES002", status: "cancelled" }));
    const rebag = BASE_CALLS[2];
    expect(essence(g.check(rebag))).toEqual(essence(ref.check(rebag)));
  });
});

describe("other faults", () => {
  it("a state source that throws: internal_error, never an exception, and the guard recovers", () => {
    const state = airlineState();
    let broken = true;
    const flaky = {
      hasEntity: (e: string, id: string) => {
        if (broken) throw new Error("state store down");
        return state.hasEntity(e, id);
      },
      slot: (e: string, id: string, s: string) => {
        if (broken) throw new Error("state store down");
        return state.slot(e, id, s);
      },
    };
    const g = createGuard({ ontology: blob, state: flaky, policy: "veto" });
    const call = BASE_CALLS[2];
    expect(g.check(call)).toMatchObject({ approved: false, route: "Vetoed", reason: "internal_error" });
    broken = false;
    expect(essence(g.check(call))).toEqual(essence(checkOnce(referenceGuard(), call)));
  });

  it("a backend factory that fails on rebuild: the guard keeps vetoing failures and recovers when it can", () => {
    const core = faultCore();
    let calls = 0;
    const g = createGuard({
      ontology: blob,
      backend: (_t, b) => {
        calls++;
        if (calls === 2) throw new Error("no memory for a new instance");
        return calls === 1 ? core.load(b!) : faultCore().load(b!);
      },
      state: airlineState(),
      policy: "veto",
    });
    const call = BASE_CALLS[0];
    core.exports.arm_trap(0);
    expect(g.check(call)).toMatchObject({ approved: false, reason: "internal_error" });
    // The rebuild failed, so the old (trapped, now disarmed) instance still serves, correctly.
    expect(essence(g.check(call))).toEqual(essence(checkOnce(referenceGuard(), call)));
  });
});

describe("sessions sharing one core (the Worker example's layout)", () => {
  it("a trap in one session's verdict does not veto another session's next call", () => {
    const core = faultCore();
    const sessions = [0, 1, 2].map(() => createGuard({ ontology: blob, backend: sharedBackend(core, blob), state: airlineState(), policy: "veto", scope: "session" }));
    const call = BASE_CALLS[0];
    const expected = essence(checkOnce(referenceGuard(), call));
    for (const s of sessions) expect(essence(checkOnce(s, call))).toEqual(expected);
    core.exports.arm_trap(0);
    expect(checkOnce(sessions[0], call)).toMatchObject({ approved: false, reason: "internal_error" });
    // Session 0 rebuilt its backend (a reload of the shared core); the others follow it.
    expect(essence(checkOnce(sessions[1], call))).toEqual(expected);
    expect(essence(checkOnce(sessions[2], call))).toEqual(expected);
    expect(essence(checkOnce(sessions[0], call))).toEqual(expected);
    // A trap in session 2 this time, then everyone again.
    core.exports.arm_trap(0);
    expect(checkOnce(sessions[2], call).reason).toBe("internal_error");
    for (const s of sessions) expect(essence(checkOnce(s, call))).toEqual(expected);
  });
});

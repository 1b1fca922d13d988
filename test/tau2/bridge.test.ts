// The bridge against τ²-bench's own environment code: calls and errors round-trip exactly as
// Environment.get_response gives them, snapshots restore τ²-bench's own hash, and a start without a
// dependency or without Python is a typed error naming the fix.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BRIDGE_INSTALL, BridgeError, Tau2Bridge } from "../../src/tau2/bridge.js";
import { TAU2_DIR } from "./data-dir.js";
import { TAU2_SRC, describePython } from "./python-env.js";

describePython("the τ²-bench environment bridge", () => {
  let airline: Tau2Bridge;
  beforeAll(async () => {
    airline = await Tau2Bridge.start({ domain: "airline", data: TAU2_DIR, tau2Src: TAU2_SRC });
  }, 120_000);
  afterAll(async () => {
    await airline?.close();
  });

  it("runs a read and a write call and returns τ²-bench's output", async () => {
    const read = await airline.call("get_reservation_details", { reservation_id: "4WQ150" });
    expect(read.error).toBe(false);
    expect(read.mutating).toBe(false);
    expect(JSON.parse(read.content)).toMatchObject({ reservation_id: "4WQ150", user_id: "chen_jackson_3290" });
    const before = await airline.snapshot();
    const cancel = await airline.call("cancel_reservation", { reservation_id: "4WQ150" }, { changes: true });
    expect(cancel.error).toBe(false);
    expect(JSON.parse(cancel.content).status).toBe("cancelled");
    expect(cancel.changes!.records.map((r) => r.path)).toEqual([["db", "reservations", "4WQ150"]]);
    const d = await airline.diff(before);
    expect(d.equal).toBe(false);
    expect(d.diffs.map((x) => x.path.join("/"))).toEqual(["db/reservations/4WQ150/payment_history", "db/reservations/4WQ150/status"]);
    await airline.restore(before);
    expect((await airline.diff(before)).equal).toBe(true);
  }, 60_000);

  it("returns a tool's error as τ²-bench's error message", async () => {
    const out = await airline.call("cancel_reservation", { reservation_id: "NOSUCH" });
    expect(out).toMatchObject({ error: true, content: "Error: Reservation NOSUCH not found" });
    const unknown = await airline.call("no_such_tool", {});
    expect(unknown.error).toBe(true);
    expect(unknown.content).toMatch(/^Error: /);
  });

  it("restores a snapshot to the same τ²-bench hash, and reset gives the initial db", async () => {
    const initial = await airline.hash();
    const snap = await airline.snapshot();
    await airline.call("book_reservation", {
      user_id: "mia_li_3668", origin: "JFK", destination: "SEA", flight_type: "one_way", cabin: "economy",
      flights: [{ flight_number: "HAT136", date: "2024-05-20" }],
      passengers: [{ first_name: "Mia", last_name: "Li", dob: "1990-04-05" }],
      payment_methods: [{ payment_id: "credit_card_4421486", amount: 200 }], total_baggages: 0, nonfree_baggages: 0, insurance: "no",
    });
    await airline.call("update_reservation_baggages", { reservation_id: "4WQ150", total_baggages: 3, nonfree_baggages: 1, payment_id: "gift_card_3576581" });
    expect(await airline.hash()).not.toEqual(initial);
    await airline.restore(snap);
    expect(await airline.hash()).toEqual(initial);
    await airline.call("cancel_reservation", { reservation_id: "4WQ150" });
    await airline.reset();
    expect(await airline.hash()).toEqual(initial);
  }, 120_000);

  it("refuses an unknown snapshot with a typed error", async () => {
    await expect(airline.restore(9999)).rejects.toMatchObject({ code: "request-failed", remoteCode: "no-snapshot" });
  });

  it("a missing Python dependency is a typed error naming the install command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polar-nodep-"));
    try {
      // A `loguru` earlier on sys.path that is not there: what a machine without it sees.
      mkdirSync(join(dir, "loguru"));
      writeFileSync(join(dir, "loguru", "__init__.py"), "raise ModuleNotFoundError(\"No module named 'loguru'\", name='loguru')\n");
      const err = await Tau2Bridge.start({ domain: "retail", data: TAU2_DIR, tau2Src: TAU2_SRC, env: { PYTHONPATH: dir } }).catch((e) => e);
      expect(err).toBeInstanceOf(BridgeError);
      expect(err.code).toBe("missing-dependency");
      expect(err.message).toContain("`loguru`");
      expect(err.help).toContain(BRIDGE_INSTALL);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a missing Python is a typed error", async () => {
    const err = await Tau2Bridge.start({ domain: "retail", data: TAU2_DIR, tau2Src: TAU2_SRC, python: "/nonexistent/python3" }).catch((e) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect(err.code).toBe("python-missing");
  });

  it("telecom: user-side calls, initialization actions and both dbs' hashes", async () => {
    const tel = await Tau2Bridge.start({ domain: "telecom", data: TAU2_DIR, tau2Src: TAU2_SRC });
    try {
      const h0 = await tel.hash();
      expect(Object.keys(h0).sort()).toEqual(["db", "user_db"]);
      const init = await tel.initialize(null, [{ env_type: "user", func_name: "turn_airplane_mode_on", arguments: {} }]);
      expect(init).toEqual([{ ok: true, result: "Airplane Mode is now ON." }]);
      const snap = await tel.snapshot();
      const t = await tel.call("toggle_airplane_mode", {}, { requestor: "user" });
      expect(t.content).toMatch(/Airplane Mode is now OFF/);
      expect((await tel.diff(snap)).equal).toBe(false);
      await tel.restore(snap);
      expect((await tel.diff(snap)).equal).toBe(true);
      await tel.reset();
      expect(await tel.hash()).toEqual(h0);
    } finally {
      await tel.close();
    }
  }, 120_000);
});

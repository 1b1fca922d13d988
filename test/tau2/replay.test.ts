import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseProjectionRules, type LayerB } from "../../src/projection/index.js";
import {
  initialState,
  normalizeTask,
  projectAll,
  readResults,
  replayAll,
  replayTrajectory,
  type ReplayCheckContext,
  type ReplayScope,
} from "../../src/tau2/index.js";
import type { ToolCall } from "../../src/core/types.js";

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const airlineRules = parseProjectionRules(JSON.parse(readFileSync(here("../projection/fixtures/airline.json"), "utf8")));
const telecomRules = parseProjectionRules(JSON.parse(readFileSync(here("../projection/fixtures/telecom.json"), "utf8")));
const sampleDb = JSON.parse(readFileSync(here("../../samples/tau2-airline/domains/airline/db.json"), "utf8"));
const sample = readResults(JSON.parse(readFileSync(here("../../samples/tau2-airline/results/gpt-4.1_airline_default_user-gpt-4.1_1trial.json"), "utf8")))[0];

interface Seen {
  scope: ReplayScope;
  call: ToolCall;
  context: ReplayCheckContext;
  passengers: unknown;
  flights: unknown;
}

/** A guard that records what it was asked and what Layer B said at that moment. */
function recordingGuard(seen: Seen[]) {
  return (state: LayerB, scope: ReplayScope) => ({
    check(call: ToolCall, context: ReplayCheckContext) {
      seen.push({
        scope,
        call,
        context,
        passengers: state.slot("reservation", "FQ8APE", "passengers"),
        flights: state.slot("reservation", "FQ8APE", "flights"),
      });
      return `${scope}:${call.name}`;
    },
  });
}

describe("replayTrajectory", () => {
  it("checks each agent call before it ran, against the state left by the calls before it", () => {
    const seen: Seen[] = [];
    const { records, initial } = replayAll(sample, { rules: airlineRules, documents: { db: sampleDb }, guard: recordingGuard(seen) });
    expect(initial).toEqual({ applied: [], unsupported: [] });
    expect(records).toHaveLength(8);
    expect(records.map((r) => r.decisions)).toEqual(records.map((r) => ({ turn: `turn:${r.call.name}`, session: `session:${r.call.name}` })));
    const names = seen.filter((s) => s.scope === "turn").map((s) => s.call.name);
    expect(names).toEqual(records.map((r) => r.call.name));

    const pass = records.findIndex((r) => r.call.name === "update_reservation_passengers");
    const fl = records.findIndex((r) => r.call.name === "update_reservation_flights");
    const turnSeen = seen.filter((s) => s.scope === "turn");
    // Before the passenger update, Layer B holds the db's passengers; the flight update sees the new ones.
    expect(turnSeen[pass].passengers).toEqual(sampleDb.reservations.FQ8APE.passengers);
    expect(turnSeen[fl].passengers).toEqual(records[pass].call.arguments.passengers);
    expect(turnSeen[fl].flights).toEqual(sampleDb.reservations.FQ8APE.flights);
    // What each call changed is reported.
    expect(records[pass].projection?.changes).toEqual([{ op: "upsert", entity: "reservation", id: "FQ8APE", effective: true }]);
    expect(records[0].projection).toEqual({ tool: "get_user_details", matched: false, changes: [], skipped: [] });
  });

  it("passes the user messages before each call and the earlier calls of the same message", () => {
    const seen: Seen[] = [];
    const { records } = replayAll(sample, { rules: airlineRules, documents: { db: sampleDb }, guard: recordingGuard(seen), scopes: ["turn"] });
    const userTexts = sample.messages.filter((m) => m.role === "user").map((m) => m.content);
    for (const [i, r] of records.entries()) {
      const before = sample.messages.slice(0, r.messageIndex).filter((m) => m.role === "user").map((m) => m.content);
      expect(r.userMessagesBefore).toEqual(before);
      expect(seen[i].context.userMessages).toEqual(before);
      expect(seen[i].context.turnCalls.map((c) => c.name)).toEqual(
        records.filter((o) => o.messageIndex === r.messageIndex && o.positionInMessage < r.positionInMessage).map((o) => o.call.name),
      );
    }
    expect(userTexts.length).toBeGreaterThan(0);
    // Earlier calls in the same message carry their parsed results.
    const withTurn = seen.find((s) => s.context.turnCalls.length > 0)!;
    expect(typeof withTurn.context.turnCalls[0].result).toBe("object");
  });

  it("an errored call changes nothing; other requestors' calls update Layer B without a check", () => {
    const traj = readResults([
      {
        task_id: "t",
        messages: [
          { role: "assistant", content: null, tool_calls: [{ id: "a", name: "toggle_airplane_mode", arguments: {}, requestor: "assistant" }] },
          { role: "tool", id: "a", content: "Airplane Mode is now ON.", error: true, requestor: "assistant" },
          { role: "user", content: null, tool_calls: [{ id: "b", name: "toggle_airplane_mode", arguments: {}, requestor: "user" }] },
          { role: "tool", id: "b", content: "Airplane Mode is now ON.", error: false, requestor: "user" },
          { role: "assistant", content: null, tool_calls: [{ id: "c", name: "check_status_bar", arguments: {}, requestor: "assistant" }] },
        ],
      },
    ])[0];
    const airplane: unknown[] = [];
    const guard = (state: LayerB) => ({
      check: () => {
        airplane.push(state.slot("device", "device", "airplane_mode"));
        return "d";
      },
    });
    const userDb = { device: { airplane_mode: false, app_statuses: {}, active_apn_settings: { apn_name: "internet" } } };
    const { records } = replayAll(traj, { rules: telecomRules, documents: { db: {}, user_db: userDb }, guard, scopes: ["turn"] });
    expect(airplane).toEqual([false, true]);
    expect(records.map((r) => [r.call.requestor, r.errored, Object.keys(r.decisions).length])).toEqual([
      ["assistant", true, 1],
      ["user", false, 0],
      ["assistant", false, 1],
    ]);
    expect(records[0].projection).toBeNull();
    expect(records[2].result).toBeNull();
  });

  it("lets a guard that updates its own state do so (no double application)", () => {
    let observed = 0;
    const guard = () => ({
      updatesState: true,
      check: () => "d",
      observe: () => {
        observed++;
        return null;
      },
    });
    const base = projectAll(airlineRules, { db: sampleDb });
    const run = replayTrajectory(sample, { rules: airlineRules, documents: { db: sampleDb }, guard, base, scopes: ["session"] });
    const records = [...run.records];
    expect(observed).toBe(records.length);
    expect(records.every((r) => r.projection === null)).toBe(true);
    // The base was cloned, not written.
    expect(base.slot("reservation", "FQ8APE", "passengers")).toEqual(sampleDb.reservations.FQ8APE.passengers);
  });
});

describe("initialState", () => {
  const userDb = { device: { airplane_mode: false, data_saver_mode: false, app_statuses: {}, active_apn_settings: { apn_name: "internet" } } };

  it("merges initialization_data and applies initialization actions, reporting what it cannot", () => {
    const task = normalizeTask({
      id: "t",
      initial_state: {
        initialization_data: { agent_data: null, user_data: { device: { airplane_mode: true } } },
        initialization_actions: [
          { env_type: "user", func_name: "turn_data_saver_mode_on", arguments: {} },
          { env_type: "user", func_name: "break_everything", arguments: {} },
        ],
        message_history: [{ role: "user", content: "hi" }],
      },
    });
    const { state, report } = initialState(telecomRules, { db: {}, user_db: userDb }, task);
    expect(state.slot("device", "device", "airplane_mode")).toBe(true);
    expect(state.slot("device", "device", "data_saver_mode")).toBe(true);
    expect(state.slot("device", "device", "apn_name")).toBe("internet");
    expect(report.applied).toHaveLength(1);
    expect(report.unsupported).toEqual([
      "initialization action `user:break_everything` has no `actions` or `tools` entry in the projection rules",
      "`message_history` (1 messages) is not replayed into Layer B",
    ]);
  });

  it("starts from a clone of the base when there is no initialization data", () => {
    const base = projectAll(telecomRules, { db: {}, user_db: userDb });
    const { state } = initialState(telecomRules, { db: {}, user_db: userDb }, null, base);
    state.set("device", "device", "airplane_mode", true);
    expect(base.slot("device", "device", "airplane_mode")).toBe(false);
  });
});

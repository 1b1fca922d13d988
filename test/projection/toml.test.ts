import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  LayerB,
  applyAction,
  applyToolResult,
  parseProjectionRules,
  parseTomlDocument,
  projectDocument,
  ProjectionError,
} from "../../src/projection/index.js";
import { describeTau2, tau2Dir } from "../tau2/data-dir.js";

const rules = parseProjectionRules(
  JSON.parse(readFileSync(fileURLToPath(new URL("./fixtures/telecom.json", import.meta.url)), "utf8")),
);

describe("TOML documents", () => {
  it("parses to plain JSON values (dates as strings)", () => {
    const doc = parseTomlDocument('a = 1\nwhen = 2025-01-20T14:30:00\nday = 2025-01-20\n[t]\n"__proto__" = 3\n[[l]]\nx = 1\n');
    expect(doc).toEqual(JSON.parse('{"a":1,"when":"2025-01-20T14:30:00.000","day":"2025-01-20","t":{"__proto__":3},"l":[{"x":1}]}'));
    expect(Object.getPrototypeOf((doc as { t: object }).t)).toBe(Object.prototype);
  });

  it("refuses invalid TOML with bad-document", () => {
    let err: unknown;
    try {
      parseTomlDocument("a = = 1");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProjectionError);
    expect((err as ProjectionError).code).toBe("bad-document");
    expect((err as ProjectionError).message).toBe("document is not valid toml");
  });
});

describeTau2("telecom projection from τ²-bench's db.toml and user_db.toml", () => {
  const dir = join(tau2Dir(), "domains", "telecom");
  const db = parseTomlDocument(readFileSync(join(dir, "db.toml"), "utf8"));
  const userDb = parseTomlDocument(readFileSync(join(dir, "user_db.toml"), "utf8"));

  function state(): LayerB {
    const b = projectDocument(rules, db);
    return projectDocument(rules, userDb, b, { document: "user_db" });
  }

  it("projects customers, lines (with a plan lookup), plans, bills and the device", () => {
    const b = state();
    expect(b.size("customer")).toBe(4);
    expect(b.size("line")).toBe(9);
    expect(b.size("plan")).toBe(5);
    expect(b.slot("customer", "C1001", "line_count")).toBe(3);
    expect(b.slot("line", "L1001", "plan_name")).toBe("Basic Plan");
    expect(b.slot("line", "L1001", "phone_number")).toBeUndefined();
    expect(b.slot("line", "L1002", "roaming_enabled")).toBe(true);
    expect(b.slot("bill", "B1001", "status")).toBe("Paid");
    expect(b.slot("bill", "B1001", "line_item_count")).toBeGreaterThan(0);
    expect(b.hasEntity("bill", "B1003")).toBe(false); // a draft, filtered by `where`
    expect(b.entity("device", "device")).toMatchObject({ airplane_mode: false, data_enabled: true, apn_name: "internet", app_count: 2 });
    expect(b.slot("app", "messaging", "permissions")).toEqual({ sms: true, storage: true, phone: true, network: false });
    expect(b.slot("app", "messaging", "device_apn")).toBe("internet");
  });

  it("follows text and JSON tool results and initialization actions", () => {
    const b = state();
    applyAction(rules, b, { name: "turn_airplane_mode_on", arguments: {} });
    expect(b.slot("device", "device", "airplane_mode")).toBe(true);
    applyToolResult(rules, b, { name: "toggle_airplane_mode", arguments: {} }, "Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G");
    expect(b.slot("device", "device", "airplane_mode")).toBe(false);
    applyToolResult(rules, b, { name: "grant_app_permission", arguments: { app_name: "messaging", permission: "network" } }, "Success. Permission 'network' granted to app 'messaging'.");
    expect(b.slot("app", "messaging", "permissions")).toEqual({ sms: true, storage: true, phone: true, network: true });
    applyToolResult(rules, b, { name: "refuel_data", arguments: { customer_id: "C1001", line_id: "L1002", gb_amount: 2 } }, '{"message": "ok", "new_data_refueling_gb": "2.0", "charge": "4.0"}');
    expect(b.slot("line", "L1002", "data_refueling_gb")).toBe(2);
    applyToolResult(rules, b, { name: "enable_roaming", arguments: { customer_id: "C1001", line_id: "L1001" } }, "Roaming enabled successfully");
    expect(b.slot("line", "L1001", "roaming_enabled")).toBe(true);
  });
});

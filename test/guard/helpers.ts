// Shared fixtures for the guard and audit tests: the small test ontologies compiled once, Layer B
// states, and backends (reference, release wasm, fault wasm).
import { readFileSync } from "node:fs";
import { compile } from "../../src/compiler/index.js";
import { instantiateCoreSync, type CoreInstance } from "../../src/core/wasm.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { parseProjectionRules, type ProjectionRules } from "../../src/projection/rules.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import type { BackendFactory } from "../../src/guard/index.js";
import { createReferenceBackend } from "../../src/reference/index.js";

const here = (p: string) => new URL(p, import.meta.url);

export function compileFixture(name: "airline" | "retail"): { tables: OntologyTables; blob: Uint8Array } {
  const r = compile(readFileSync(here(`./fixtures/${name}.polar`), "utf8"), { name: `${name}.polar` });
  if (!r.ok) throw new Error(`fixture ${name} does not compile: ${r.diagnostics.map((d) => d.message).join("; ")}`);
  return { tables: r.tables, blob: r.blob };
}

export const airline = compileFixture("airline");
export const retail = compileFixture("retail");

const wasmPath = (kind: "release" | "fault") => here(kind === "release" ? "../../build/polar-core.wasm" : "../../build/polar-core.fault.wasm");
const modules = new Map<string, WebAssembly.Module>();
export function coreModule(kind: "release" | "fault"): WebAssembly.Module {
  let m = modules.get(kind);
  if (m === undefined) {
    m = new WebAssembly.Module(readFileSync(wasmPath(kind)));
    modules.set(kind, m);
  }
  return m;
}

export const referenceFactory: BackendFactory = (t) => createReferenceBackend(t);

/** A fresh wasm instance per backend: a factory that can also recover after a trap. */
export const wasmFactory: BackendFactory = (_t, blob) => instantiateCoreSync(coreModule("release")).load(blob!);

export function faultCore(): CoreInstance & { exports: CoreInstance["exports"] & { arm_trap(n: number): void } } {
  return instantiateCoreSync(coreModule("fault")) as never;
}

export const NOW = "2024-05-15T15:00:00";

export function airlineState(): LayerB {
  const s = new LayerB();
  s.replaceEntity("user", "mia", { name: "Mia" });
  s.replaceEntity("reservation", "R1", {
    status: "confirmed",
    flights: [{ flight_number: "HAT001", date: "2024-05-20" }],
    cabin: "economy",
    first_departure: "2024-05-20T08:00:00",
    user_id: "mia",
  });
  s.replaceEntity("reservation", "R2", {
    status: "confirmed",
    flights: [{ flight_number: "HAT002", date: "2024-05-10" }],
    cabin: "business",
    first_departure: "2024-05-10T08:00:00",
    user_id: "mia",
  });
  s.replaceEntity("voucher", "V1", { balance: 100 });
  return s;
}

export function retailState(): LayerB {
  const s = new LayerB();
  s.replaceEntity("user", "sam", { address: { city: "Austin" } });
  s.replaceEntity("order", "O1", { status: "pending", address: { city: "Austin" }, items: ["lamp"], user_id: "sam" });
  s.replaceEntity("order", "O2", { status: "delivered", address: { city: "Austin" }, items: ["desk"], user_id: "sam" });
  return s;
}

/** Projection rules for the airline fixture: update tools return the full reservation. */
export const airlineRules: ProjectionRules = parseProjectionRules({
  format: "polar-projection/1",
  domain: "airline-test",
  entities: { reservation: { fields: "*" }, user: { fields: "*" }, voucher: { fields: "*" } },
  documents: {},
  tools: {
    update_reservation_flights: [{ entity: "reservation", id: "$args.reservation_id", record: "$result" }],
    update_reservation_cabin: [{ entity: "reservation", id: "$args.reservation_id", record: "$result" }],
    cancel_reservation: [{ entity: "reservation", id: "$args.reservation_id", record: "$result" }],
    book_reservation: [{ op: "create", entity: "reservation", id: "$result.reservation_id", record: "$result" }],
  },
});

// A turn call without `name` or `arguments` (issue 27 §1, found by the golden dump's hostile contexts):
// the check is refused like any malformed forward call, and its record is written to the audit log. The
// forward entry used to keep `arguments: undefined`, which is not JSON: the log could not write the
// record, so check() threw.
import { describe, expect, it } from "vitest";
import { createMemorySink, verifyAuditLog } from "../../src/audit/index.js";
import { createGuard } from "../../src/guard/index.js";
import type { ToolCall } from "../../src/core/types.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

const cancel = { name: "cancel_reservation", arguments: { reservation_id: "R1" } };

describe("turn calls missing a part", () => {
  for (const [what, entry] of [
    ["no arguments", { name: "cancel_reservation" }],
    ["no name", { arguments: { reservation_id: "R1" } }],
    ["neither", { result: "ok" }],
  ] as const) {
    it(`${what}: a malformed_call refusal, logged, that the audit replay re-derives`, () => {
      const sink = createMemorySink();
      const g = createGuard({ ontology: airline.blob, backend: referenceFactory, state: airlineState(), scope: "turn", config: { now: NOW, log: sink } });
      // A caller outside TypeScript (or a model's output) can send any shape.
      const d = g.check(cancel, { turnCalls: [entry as unknown as ToolCall] });
      expect(d).toMatchObject({ route: "Vetoed", approved: false, reason: "malformed_call" });
      expect(d.detail).toMatch(/^forward call 0/);
      expect(sink.records).toHaveLength(1);
      expect(JSON.parse(sink.lines()[0]).forward).toEqual([entry]);
      expect(Object.keys(d.forward[0] as object)).toEqual(Object.keys(entry));
      expect(verifyAuditLog(sink.lines(), { ontologies: [airline.blob] }).mismatches).toEqual([]);
    });
  }
});

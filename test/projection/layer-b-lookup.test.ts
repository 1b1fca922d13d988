// LayerB remembers the last record looked up (a check reads one entity in a row); every write forgets
// it, so a read after any write sees the write.
import { describe, expect, it } from "vitest";
import { LayerB } from "../../src/projection/layer-b.js";

describe("LayerB's last-record lookup", () => {
  it("a read after set, replaceEntity, adoptEntity, ensureEntity and deleteEntity sees the write", () => {
    const b = new LayerB();
    expect(b.hasEntity("r", "1")).toBe(false);
    b.ensureEntity("r", "1");
    expect(b.hasEntity("r", "1")).toBe(true);
    expect(b.slot("r", "1", "s")).toBeUndefined();
    b.set("r", "1", "s", "a");
    expect(b.slot("r", "1", "s")).toBe("a");
    b.replaceEntity("r", "1", { s: "b" });
    expect(b.slot("r", "1", "s")).toBe("b");
    const rec = Object.create(null) as Record<string, unknown>;
    rec.s = "c";
    b.adoptEntity("r", "1", rec);
    expect(b.slot("r", "1", "s")).toBe("c");
    b.deleteEntity("r", "1");
    expect(b.hasEntity("r", "1")).toBe(false);
    expect(b.slot("r", "1", "s")).toBeUndefined();
  });

  it("a clone's writes do not reach the original's remembered record, nor a record kept for a snapshot", () => {
    const b = new LayerB();
    b.replaceEntity("r", "1", { s: "a" });
    expect(b.slot("r", "1", "s")).toBe("a");
    const kept = b.keptRecord("r", "1");
    b.set("r", "1", "s", "b");
    expect(kept?.s).toBe("a");
    expect(b.slot("r", "1", "s")).toBe("b");
    const c = b.clone();
    c.set("r", "1", "s", "c");
    expect(b.slot("r", "1", "s")).toBe("b");
    expect(c.slot("r", "1", "s")).toBe("c");
  });
});

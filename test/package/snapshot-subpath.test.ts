// polar-guard/snapshot (issue 21 item 15): sealed snapshots are a subpath of their own, built, typed,
// working from dist with a dist guard, and absent from the default runtime bundles.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { DIST, REPO, requireDist } from "../runtimes/helpers/paths.js";

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown> };

describe("polar-guard/snapshot", () => {
  it("is exported types first, and built", () => {
    expect(pkg.exports["./snapshot"]).toEqual({ types: "./dist/snapshot.d.ts", default: "./dist/snapshot.js" });
    requireDist();
    expect(readFileSync(join(DIST, "snapshot.d.ts"), "utf8")).toContain("openSnapshot");
  });

  it("seals a dist guard's snapshot and opens it for resume; an edit is refused", async () => {
    requireDist();
    const seal = (await import(pathToFileURL(join(DIST, "snapshot.js")).href)) as typeof import("../../src/guard/seal.js");
    const lib = (await import(pathToFileURL(join(DIST, "node.js")).href)) as typeof import("../../src/index.js");
    const ontology = new Uint8Array(readFileSync(join(REPO, "ontologies/airline/airline.blob")));
    const state = lib.LayerB.fromJSON({ entities: { reservation: { R1: { reservation_id: "R1", user_id: "u1", status: null, cabin: "economy" } } } });
    const g = lib.createGuard({ ontology, state, policy: "escalate", scope: "session" });
    g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
    const opts = { key: "sixteen bytes or more", session: "abc" };
    const sealed = JSON.parse(JSON.stringify(seal.sealSnapshot(g.snapshot(), opts)));
    const resumed = lib.createGuard({ ontology, state, policy: "escalate", scope: "session", resume: seal.openSnapshot(sealed, opts) });
    expect(resumed.snapshot()).toEqual(g.snapshot());
    expect(() => seal.openSnapshot({ ...sealed, snapshot: { ...sealed.snapshot, questions: [] } }, opts)).toThrow(expect.objectContaining({ code: "snapshot-not-authentic" }));
  });

  it("is not in the default runtime bundles", async () => {
    requireDist();
    for (const [entry, conditions] of [["browser.js", ["browser"]], ["workerd.js", ["workerd", "worker"]]] as const) {
      const r = await build({ entryPoints: [join(DIST, entry)], bundle: true, minify: true, format: "esm", platform: "browser", conditions: [...conditions], write: false, external: ["*.wasm"], logLevel: "silent" });
      expect(r.outputFiles[0].text, entry).not.toContain("polar-guard-sealed-snapshot");
    }
  });
});

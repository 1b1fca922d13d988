// polar-guard/audit: reading a log back (verifyAuditLog, summarizeLog, formatSummary) is a subpath of its
// own, built and typed, replaying a log a dist guard wrote, and absent from the default runtime bundles,
// which keep what writing a log needs (the sinks, the chain, decisionLine, recordHash, chainHead).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { DIST, REPO, requireDist } from "../runtimes/helpers/paths.js";

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown> };

/** Strings only the verifier (src/audit/verify.ts) and the summary (src/audit/summary.ts) hold. */
const VERIFIER_MARK = "the last line has no newline";
const SUMMARY_MARK = "outcomes of approved calls (what finally happened)";

describe("polar-guard/audit", () => {
  it("is exported types first, and built with its declarations", () => {
    expect(pkg.exports["./audit"]).toEqual({ types: "./dist/audit.d.ts", default: "./dist/audit.js" });
    requireDist();
    const dts = readFileSync(join(DIST, "audit.d.ts"), "utf8");
    for (const name of ["verifyAuditLog", "summarizeLog", "formatSummary", "VerifyOptions", "VerifyReport", "LogSummary"]) expect(dts, name).toContain(name);
  });

  it("replays a log a dist guard wrote; an edited record is a mismatch", async () => {
    requireDist();
    const audit = (await import(pathToFileURL(join(DIST, "audit.js")).href)) as typeof import("../../src/audit/api.js");
    const lib = (await import(pathToFileURL(join(DIST, "node.js")).href)) as typeof import("../../src/index.js");
    const ontology = new Uint8Array(readFileSync(join(REPO, "ontologies/airline/airline.blob")));
    const state = lib.LayerB.fromJSON({ entities: { reservation: { R1: { reservation_id: "R1", user_id: "u1", status: null, cabin: "economy" } } } });
    const log = lib.createMemorySink();
    const g = lib.createGuard({ ontology, state, policy: "veto", config: { log } });
    g.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
    g.check({ name: "drop_database", arguments: {} });
    const text = log.lines().join("\n") + "\n";
    const report = audit.verifyAuditLog(text, { ontologies: [ontology] });
    expect(report).toMatchObject({ ok: true, total: 2, verified: 2, mismatches: [] });
    const lines = log.lines();
    const first = JSON.parse(lines[0]) as { route: string };
    const flipped = JSON.stringify({ ...first, route: first.route === "Approved" ? "Vetoed" : "Approved" });
    expect(audit.verifyAuditLog([flipped, lines[1]].join("\n") + "\n", { ontologies: [ontology] }).ok).toBe(false);
    const summary = audit.summarizeLog(text);
    expect(summary.decisions).toBe(2);
    expect(audit.formatSummary(summary, "log")).toContain("2");
  });

  it("is not in the default runtime bundles, and the default entries do not name it", async () => {
    requireDist();
    for (const [entry, conditions] of [["browser.js", ["browser"]], ["workerd.js", ["workerd", "worker"]], ["index.js", []]] as const) {
      const r = await build({ entryPoints: [join(DIST, entry)], bundle: true, minify: true, format: "esm", platform: "browser", conditions: [...conditions], write: false, external: ["*.wasm"], logLevel: "silent", metafile: true, outdir: "out" });
      const text = r.outputFiles[0].text;
      expect(text, entry).not.toContain(VERIFIER_MARK);
      expect(text, entry).not.toContain(SUMMARY_MARK);
      const [output] = Object.values(r.metafile.outputs);
      expect(output.exports.filter((n) => ["verifyAuditLog", "summarizeLog", "formatSummary"].includes(n)), entry).toEqual([]);
      // What a guard needs to write a log stays.
      for (const n of ["createMemorySink", "createJsonlSink", "decisionLine", "createChain", "recordHash", "chainHead", "CHAIN_GENESIS"]) expect(output.exports, `${entry} ${n}`).toContain(n);
    }
    // The marks are real: the subpath holds them.
    const sub = await build({ entryPoints: [join(DIST, "audit.js")], bundle: true, minify: true, format: "esm", platform: "browser", write: false, external: ["*.wasm"], logLevel: "silent" });
    expect(sub.outputFiles[0].text).toContain(VERIFIER_MARK);
    expect(sub.outputFiles[0].text).toContain(SUMMARY_MARK);
  });

  it("the default source entry does not reach the verifier or the summary (source graph)", async () => {
    for (const entry of ["index", "runtimes/browser", "runtimes/workerd", "runtimes/node"]) {
      const r = await build({ entryPoints: [join(REPO, `src/${entry}.ts`)], bundle: true, format: "esm", platform: entry.endsWith("node") ? "node" : "browser", write: false, metafile: true, external: ["*.wasm"], logLevel: "silent", outdir: "out" });
      const [output] = Object.values(r.metafile.outputs);
      const kept = Object.entries(output.inputs).filter(([p, v]) => (p === "src/audit/verify.ts" || p === "src/audit/summary.ts") && v.bytesInOutput > 0).map(([p]) => p);
      expect(kept, entry).toEqual([]);
    }
  });
});

// Layer B: projecting τ²-bench's full airline db.json (reading the file, JSON.parse and the projection
// timed separately, each in several runs), and guard.observe of one tool result (τ²-bench returns the
// updated reservation as JSON text; observe parses it and re-projects the reservation).
import { readFileSync } from "node:fs";
import { blobDigestHex } from "../../src/blob/index.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { projectDocument } from "../../src/projection/project.js";
import { AIRLINE_NOW, loadAirline } from "../lib/airline.js";
import { params, progress, report, fail } from "../lib/child.js";
import { countingSink, guardOf } from "../lib/engines.js";
import { airlineDbPath } from "../lib/paths.js";
import { consume, measure, repeat, summarize, type Figure } from "../lib/stats.js";

function main(): void {
  const p = params<{ runs?: number }>();
  const runs = p.runs ?? (p.quick ? 3 : 10);
  progress("loading the airline state");
  const f = loadAirline();
  const { path, source } = airlineDbPath();
  const figures: Record<string, Figure> = {};
  progress("projection: read, parse, project");
  let text = "";
  figures.read = repeat(() => {
    text = readFileSync(path, "utf8");
    consume(text.length);
  }, runs, 1);
  let doc: unknown = null;
  figures.parse = repeat(() => {
    doc = JSON.parse(text);
    consume(1);
  }, runs, 1);
  let state = new LayerB();
  figures.project = repeat(() => {
    state = projectDocument(f.rules, doc, new LayerB());
    consume(state.size());
  }, runs, 1);
  // The same in this process's CPU time (user + system, GC included): on a loaded machine the wall
  // clock above also counts the time other processes held the cores.
  const cpu: number[] = [];
  for (let k = 0; k < runs; k++) {
    const c0 = process.cpuUsage();
    consume(projectDocument(f.rules, doc, new LayerB()).size());
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) * 1000);
  }
  figures.projectCpu = summarize(Float64Array.from(cpu), 1, runs, 0);

  progress("observe of one tool result");
  const g = guardOf({ kind: "wasm", tables: f.tables, blob: f.blob, hash: blobDigestHex(f.blob), state: f.state.clone(), rules: f.rules, now: AIRLINE_NOW, log: countingSink() });
  // Turn scope would not record; the guard is in session scope, so checkpoint keeps the sequence short.
  const results = f.calls
    .filter((c) => c.name === "update_reservation_baggages" || c.name === "update_reservation_passengers")
    .map((c) => ({ call: c, result: JSON.stringify(f.db.reservations[c.arguments.reservation_id as string]) }));
  figures.observe = measure((i) => {
    const r = results[i % results.length];
    const rep = g.observe(r.call, r.result);
    consume(rep.sequenceLength);
    if (rep.sequenceLength >= 64) g.checkpoint();
  }, p.timing);
  report({
    variant: "layerb",
    dbSource: source,
    dbBytes: Buffer.byteLength(text),
    entities: state.size(),
    entityTypes: Object.fromEntries(state.entityTypes().map((t) => [t, state.size(t)])),
    resultBytes: { min: Math.min(...results.map((r) => r.result.length)), max: Math.max(...results.map((r) => r.result.length)) },
    figures,
  });
}

try {
  main();
} catch (e) {
  fail(e);
}

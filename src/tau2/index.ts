// τ²-bench: results adapter and advisory replay (runtime-neutral). `readTau2Data` (Node) is in ./data.js.
export * from "./adapter.js";
export * from "./replay.js";
export * from "./guard.js";

// Regenerates the vendored τ²-bench excerpts from the full data (POLAR_TAU2_DIR, default
// ../shared/tau2):
//   samples/tau2-airline/   the `polar demo` sample: two airline trajectories and the part of the
//                           airline db they touch, laid out like τ²-bench's data folder;
//   test/fixtures/tau2/     trimmed trajectories of every results variant, for the adapter tests.
// Run: npx tsx test/tau2/make-fixtures.ts. τ²-bench is MIT: its LICENSE is copied beside both.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, tau2Dir } from "./data-dir.js";

type Obj = Record<string, any>;
const src = tau2Dir();
const read = (f: string): Obj => JSON.parse(readFileSync(join(src, f), "utf8"));
const write = (f: string, v: unknown): void => {
  mkdirSync(join(f, ".."), { recursive: true });
  writeFileSync(f, JSON.stringify(v, null, 1) + "\n");
};

// Fields that are bulky and that nothing here reads: model raw payloads, token usage, costs.
function trimMessage(m: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(m)) if (!["raw_data", "usage", "cost"].includes(k)) out[k] = v;
  return out;
}

function trimResults(file: string, pick: (s: Obj, i: number) => boolean): Obj {
  const d = read(join("results", file));
  const sims = d.simulations.filter(pick).map((s: Obj) => ({ ...s, messages: s.messages.map(trimMessage) }));
  const ids = new Set(sims.map((s: Obj) => s.task_id));
  const info = structuredClone(d.info);
  if (info.environment_info?.policy) info.environment_info.policy = "(policy text removed in this excerpt: see τ²-bench's data/tau2/domains/<domain>/policy.md)";
  return { timestamp: d.timestamp, info, tasks: d.tasks.filter((t: Obj) => ids.has(t.id)), simulations: sims };
}

// ---- the demo sample -------------------------------------------------------------------------
const SAMPLE = join(REPO_ROOT, "samples", "tau2-airline");
const demoPicks: Array<[string, string]> = [
  ["gpt-4.1_airline_default_user-gpt-4.1_1trial.json", "22"],
  ["ft-gpt-4.1-tau2-full-sft_airline_default_user-gpt-4.1_1trial.json", "35"],
];
const texts: string[] = [];
for (const [file, task] of demoPicks) {
  const r = trimResults(file, (s) => s.task_id === task);
  if (r.simulations.length !== 1) throw new Error(`expected one simulation of task ${task} in ${file}`);
  write(join(SAMPLE, "results", file), r);
  texts.push(JSON.stringify(r.simulations[0].messages), JSON.stringify(r.tasks));
}
const text = texts.join("\n");
const db = read("domains/airline/db.json");
const users = Object.keys(db.users).filter((u) => text.includes(u));
const resIds = new Set(Object.keys(db.reservations).filter((r) => text.includes(`"${r}"`) || text.includes(` ${r}`)));
for (const u of users) for (const r of db.users[u].reservations) resIds.add(r);
const flightNos = new Set<string>(text.match(/HAT\d{3}/g) ?? []);
for (const r of resIds) for (const f of db.reservations[r]?.flights ?? []) flightNos.add(f.flight_number);
const pickMap = (m: Obj, keys: Iterable<string>): Obj => Object.fromEntries([...keys].filter((k) => k in m).sort().map((k) => [k, m[k]]));
write(join(SAMPLE, "domains", "airline", "db.json"), {
  flights: pickMap(db.flights, flightNos),
  users: pickMap(db.users, users),
  reservations: pickMap(db.reservations, resIds),
});
const tasks = read("domains/airline/tasks.json") as unknown as Obj[];
write(join(SAMPLE, "domains", "airline", "tasks.json"), tasks.filter((t) => demoPicks.some(([, id]) => id === t.id)));
writeFileSync(join(SAMPLE, "LICENSE"), readFileSync(join(src, "LICENSE")));

// ---- adapter fixtures: one or two trimmed simulations of each variant present ------------------
const FIX = join(REPO_ROOT, "test", "fixtures", "tau2");
const first = (n: number) => (_s: Obj, i: number) => i < n;
write(join(FIX, "standard_airline.json"), trimResults("gpt-4.1_airline_default_user-gpt-4.1_1trial.json", (s) => s.task_id === "22" || s.task_id === "48"));
write(join(FIX, "telecom_user_tools.json"), trimResults("gpt-4.1_telecom_default_user-gpt-4.1_1trial.json", first(1)));
write(join(FIX, "telecom_solo.json"), trimResults("ft-gpt-4.1-tau2-full-sft_telecom_no-user_1trial.json", first(1)));
write(join(FIX, "telecom_multi_trial.json"), trimResults("gpt-4.1_telecom_no-user_4trials_5tasks.json", (s) => s.task_id === read("results/gpt-4.1_telecom_no-user_4trials_5tasks.json").tasks[0].id));
write(join(FIX, "qwen_airline_text_and_calls.json"), trimResults("qwen2.5-7b_airline_default_user-gpt-4.1_1trial.json", (s) => s.task_id === "49"));
const withError = (s: Obj): boolean => s.messages.some((m: Obj) => m.role === "tool" && m.error === true) && s.messages.length < 30;
const retailFile = "gpt-4.1_retail_default_user-gpt-4.1_1trial.json";
const retailTask = read(join("results", retailFile)).simulations.find(withError).task_id;
write(join(FIX, "retail_errors.json"), trimResults(retailFile, (s) => s.task_id === retailTask));
// The shapes other exporters produce, derived from a real simulation (none is in results/).
const one = trimResults("gpt-4.1_airline_default_user-gpt-4.1_1trial.json", (s) => s.task_id === "48");
write(join(FIX, "bare_list_airline.json"), one.simulations);
write(join(FIX, "single_simulation_airline.json"), one.simulations[0]);
const stringArgs = structuredClone(one.simulations[0]);
for (const m of stringArgs.messages) for (const tc of m.tool_calls ?? []) tc.arguments = JSON.stringify(tc.arguments);
write(join(FIX, "simulations_only_string_args.json"), { simulations: [stringArgs] });
writeFileSync(join(FIX, "LICENSE"), readFileSync(join(src, "LICENSE")));
console.log("users", users, "reservations", resIds.size, "flights", flightNos.size);

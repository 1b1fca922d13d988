// The page: loads the core, the airline ontology and its projection rules, the τ²-bench excerpt, and
// re-runs the agent loop whenever the reader changes the trajectory, the policy or τ.
import * as api from "polar-guard";
import { bottleneckText, fixed, inverseSteps, replaySimulation } from "./replay.js";

const ROOT = new URL("../../", import.meta.url);
const SAMPLES = "samples/tau2-airline/";
const RESULTS = [
  "results/gpt-4.1_airline_default_user-gpt-4.1_1trial.json",
  "results/ft-gpt-4.1-tau2-full-sft_airline_default_user-gpt-4.1_1trial.json",
];

const $ = (id) => document.getElementById(id);
const fetchJson = async (path) => (await fetch(new URL(path, ROOT))).json();

async function load() {
  const [blob, projection, db, core, ...results] = await Promise.all([
    fetch(new URL("ontologies/airline/airline.blob", ROOT)).then((r) => r.arrayBuffer()),
    fetchJson("ontologies/airline/projection.json"),
    fetchJson(SAMPLES + "domains/airline/db.json"),
    api.loadCore(), // streamed from beside the package's browser entry
    ...RESULTS.map((f) => fetchJson(SAMPLES + f)),
  ]);
  const simulations = results.flatMap((r) =>
    r.simulations.map((s) => ({ label: `task ${s.task_id} · ${r.info?.agent_info?.llm ?? "agent"}`, simulation: s })),
  );
  return { blob, projection, db, core, simulations };
}

function cell(tr, text, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  td.textContent = text;
  tr.append(td);
  return td;
}

function render(rows) {
  const body = $("rows");
  body.replaceChildren();
  for (const { call, decision } of rows) {
    const v = decision.verdict;
    const tr = document.createElement("tr");
    Object.assign(tr.dataset, {
      seq: String(decision.seq),
      tool: call.name,
      route: decision.route,
      reason: decision.reason,
      phi: v ? String(v.phi) : "",
      bytes: v ? v.bytes : "",
    });
    cell(tr, String(decision.seq));
    const code = document.createElement("code");
    code.textContent = `${call.name}(${JSON.stringify(call.arguments)})`;
    cell(tr, "", "call").append(code);
    const d = cell(tr, "");
    const badge = document.createElement("span");
    badge.className = `route ${decision.route}`;
    badge.textContent = decision.route;
    d.append(badge, document.createElement("br"));
    const reason = document.createElement("span");
    reason.className = "msg";
    reason.textContent = decision.message ?? decision.reason;
    d.append(reason);
    cell(tr, v ? fixed(v.phi) : "read-only");
    cell(tr, v ? fixed(v.loss) : "");
    cell(tr, bottleneckText(v));
    const list = document.createElement("ol");
    for (const step of inverseSteps(v)) {
      const li = document.createElement("li");
      li.append(step.summary);
      if (step.arguments !== null) {
        const details = document.createElement("details");
        const summary = document.createElement("summary");
        summary.textContent = "arguments";
        const pre = document.createElement("pre");
        pre.textContent = step.arguments;
        details.append(summary, pre);
        li.append(details);
      }
      list.append(li);
    }
    cell(tr, "", "pi").append(list);
    body.append(tr);
  }
}

async function main() {
  const data = await load();
  const select = $("trajectory");
  data.simulations.forEach((s, i) => select.append(new Option(s.label, String(i))));
  let run = 0;
  const update = async () => {
    const mine = ++run;
    document.body.dataset.ready = "false";
    const tau = Number($("tau").value);
    const settings = { policy: $("policy").value, tau: Number.isFinite(tau) ? Math.min(1, Math.max(0, tau)) : 0.8 };
    const simulation = data.simulations[Number(select.value)].simulation;
    try {
      const rows = await replaySimulation(api, { ...data, simulation }, settings);
      if (mine !== run) return;
      render(rows);
      window.__polar = { settings, trajectory: Number(select.value), decisions: rows.map((r) => r.decision) };
      $("status").textContent = `${rows.length} tool calls · policy ${settings.policy} · τ ${settings.tau.toFixed(2)} · core ${api.VERSION}`;
    } catch (err) {
      $("status").textContent = `error: ${err.message}`;
      window.__polar = { error: String(err.stack ?? err) };
    }
    document.body.dataset.ready = "true";
  };
  for (const id of ["trajectory", "policy", "tau"]) $(id).addEventListener("change", update);
  await update();
}

main().catch((err) => {
  $("status").textContent = `error: ${err.message}`;
  window.__polar = { error: String(err.stack ?? err) };
  document.body.dataset.ready = "true";
});

// A minimal agent loop over a recorded τ²-bench airline trajectory: every tool call the agent made
// is checked by the guard right before it "runs", then its recorded result is observed (Layer B is
// updated by the domain's projection rules). The loop never changes the trajectory; it shows what the
// guard would have decided. Runtime-neutral: the page runs it in the browser, the tests in Node.

/** The calls of a simulation in order, each paired with its recorded tool result (by call id). */
export function callsOf(simulation) {
  const calls = [];
  const open = new Map();
  simulation.messages.forEach((message, index) => {
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      for (const tc of message.tool_calls) {
        const entry = { id: tc.id, index, call: { name: tc.name, arguments: tc.arguments ?? {} }, result: null };
        calls.push(entry);
        open.set(tc.id, entry);
      }
    } else if (message.role === "tool" && open.has(message.id)) {
      open.get(message.id).result = { content: message.content, error: message.error === true };
      open.delete(message.id);
    }
  });
  return calls;
}

/**
 * api: the polar-guard module; data: { blob, projection (rules JSON), db, simulation, core? };
 * settings: { policy, tau }. Returns one row per tool call: the call, the user messages the guard
 * saw, and the decision.
 */
export async function replaySimulation(api, data, settings) {
  const rules = api.parseProjectionRules(data.projection);
  const state = api.projectDocument(rules, data.db);
  const guard = await api.loadGuard({
    blob: data.blob,
    core: data.core,
    state,
    policy: settings.policy,
    scope: "session",
    config: { tau: settings.tau, projection: rules },
  });
  const userMessages = [];
  let seen = 0;
  const rows = [];
  for (const entry of callsOf(data.simulation)) {
    for (; seen < entry.index; seen++) {
      const m = data.simulation.messages[seen];
      if (m.role === "user" && typeof m.content === "string" && m.content.trim() !== "") userMessages.push(m.content);
    }
    const decision = guard.check(entry.call, { userMessages: userMessages.slice() });
    // The recorded run goes on whatever the guard says: its result updates Layer B.
    if (entry.result !== null) guard.observe(entry.call, entry.result.content, { failed: entry.result.error });
    rows.push({ call: entry.call, decision });
  }
  return rows;
}

/** φ and losses are fixed point (1.0 = 1 000 000); shown with three decimals. */
export function fixed(n) {
  return n === null || n === undefined ? "–" : (n / 1e6).toFixed(3);
}

/** The steps of the inverse sequence π, most recent call first: a summary line and the arguments. */
export function inverseSteps(verdict) {
  if (verdict === null) return [];
  return verdict.steps.map((s) => ({
    summary: `${s.tool ?? "no inverse"} · ${s.tier} · φ ${fixed(s.phi)}${s.lossClass ? " · " + s.lossClass : ""}${s.sink ? " · sink " + s.sink : ""}`,
    arguments: s.arguments ? JSON.stringify(s.arguments, null, 1) : null,
  }));
}

export function bottleneckText(verdict) {
  if (verdict === null) return "";
  const b = verdict.bottleneck;
  if (b.reason === "ok" && b.tool === null) return "";
  return `${b.tool ?? "–"} · ${b.reason}${b.annotation ? " · " + b.annotation : ""}`;
}

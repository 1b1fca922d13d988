// Extracts the confirmation exchanges of τ²-bench results files as candidate rows of the second consent
// table (test/policies/consent-runs-table.json): for every agent write call, the user's latest message
// before it (once per user message), the assistant message it answers, and the window of user messages the
// `recent-messages` mode reads. Labels are not derived here: rows keep the label and reason a reader gave
// them (matched by id); new rows come out unlabelled (`consent: null`) to be read and labelled by hand.
//
//   npx tsx scripts/consent-runs.ts [RESULTS_DIR] [TOOLS_DIR]   (default ../shared/tau2/results, ../shared/tau2/tools)
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONSENT_WINDOW } from "../src/policies/consent.js";

export interface RunsRow {
  id: string;
  call: string;
  /** The assistant text message the latest user message answers (the confirmation question). */
  question: string;
  /** The last CONSENT_WINDOW user messages before the call, oldest first; each with the assistant text before it. */
  messages: string[];
  answers: string[];
  consent: boolean | null;
  reason: string;
}

const root = fileURLToPath(new URL("../", import.meta.url));
const TABLE = join(root, "test", "policies", "consent-runs-table.json");

function writeTools(toolsDir: string): Set<string> {
  const out = new Set<string>();
  for (const f of readdirSync(toolsDir).filter((n) => n.endsWith(".json"))) {
    for (const t of JSON.parse(readFileSync(join(toolsDir, f), "utf8")) as Array<{ name: string; mutates_state?: boolean; side?: string }>) {
      if (t.mutates_state === true && (t.side ?? "agent") !== "user") out.add(t.name);
    }
  }
  return out;
}

/** τ²-bench writes tool_calls either as a list or as the Python repr of one. */
function toolNames(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map((c) => String((c as { name?: unknown }).name));
  if (typeof raw === "string") return [...raw.matchAll(/'name': '([^']+)'/gu)].map((m) => m[1]);
  return [];
}

export function extract(resultsDir: string, toolsDir: string): RunsRow[] {
  const writes = writeTools(toolsDir);
  const rows: RunsRow[] = [];
  for (const f of readdirSync(resultsDir).filter((n) => n.endsWith(".json")).sort()) {
    const doc = JSON.parse(readFileSync(join(resultsDir, f), "utf8")) as { simulations?: Array<{ id: string; messages: Array<Record<string, unknown>> }> };
    for (const sim of doc.simulations ?? []) {
      const users: { text: string; answers: string; index: number }[] = [];
      let assistant = "";
      const used = new Set<number>();
      sim.messages.forEach((m, i) => {
        const content = typeof m.content === "string" ? m.content : "";
        if (m.role === "assistant" && content.trim() !== "") assistant = content;
        if (m.role === "user" && content.trim() !== "") users.push({ text: content, answers: assistant, index: i });
        if (m.role !== "assistant") return;
        const write = toolNames(m.tool_calls).find((n) => writes.has(n));
        const last = users.at(-1);
        if (write === undefined || last === undefined || used.has(last.index)) return;
        used.add(last.index);
        const window = users.slice(-CONSENT_WINDOW);
        rows.push({
          id: `${basename(f, ".json")}#${sim.id.slice(0, 8)}@${last.index}`,
          call: write,
          question: last.answers,
          messages: window.map((u) => u.text),
          answers: window.map((u) => u.answers),
          consent: null,
          reason: "",
        });
      });
    }
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = process.argv[2] ?? join(root, "..", "shared", "tau2", "results");
  const tools = process.argv[3] ?? join(root, "..", "shared", "tau2", "tools");
  const old = existsSync(TABLE) ? (JSON.parse(readFileSync(TABLE, "utf8")) as RunsRow[]) : [];
  const labels = new Map(old.map((r) => [r.id, r]));
  const rows = extract(results, tools).map((r) => {
    const l = labels.get(r.id);
    return l === undefined ? r : { ...r, consent: l.consent, reason: l.reason };
  });
  writeFileSync(TABLE, JSON.stringify(rows, null, 1) + "\n");
  const open = rows.filter((r) => r.consent === null).length;
  process.stdout.write(`${rows.length} rows (${open} unlabelled) → ${TABLE}\n`);
}

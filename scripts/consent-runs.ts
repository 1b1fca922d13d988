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
import { loadDomainOntology } from "../src/tau2/domains.js";

export interface RunsRow {
  id: string;
  call: string;
  /** The call's arguments (scalar leaves, for a call written as a Python repr) and the id it acts on (the
   * ontology's key argument): what names the call in an assistant message (src/guard/recent-consent.ts). */
  arguments: Record<string, unknown>;
  key: string | null;
  /** The assistant text message the latest user message answers (the confirmation question). */
  question: string;
  /** The last CONSENT_WINDOW user messages before the call, oldest first; each with the assistant text before it. */
  messages: string[];
  answers: string[];
  /** The reader's label: true (consents to this call), false (does not), null (no confirmation was asked:
   * not an exchange, left out of the figures). */
  consent: boolean | null;
  /** For a yes: an explicit confirmation (a yes, go-ahead or request to do it) or only implied (a choice). */
  explicit?: boolean;
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

/** τ²-bench writes tool_calls either as a list or as the Python repr of one: each call's name and the
 * text of one argument. */
function toolCalls(raw: unknown): { name: string; arguments: Record<string, unknown> }[] {
  if (Array.isArray(raw)) return raw.map((c) => ({ name: String((c as { name?: unknown }).name), arguments: (c as { arguments?: Record<string, unknown> }).arguments ?? {} }));
  if (typeof raw !== "string") return [];
  // The repr's scalar leaves (`'key': 'text'` or `'key': 123`), enough to name the call.
  return raw.split(/(?='name': ')/u).slice(1).map((part) => {
    const args: Record<string, unknown> = {};
    const body = part.slice(part.indexOf("'arguments'"));
    let i = 0;
    for (const m of body.matchAll(/'([a-z_]+)': (?:'([^']*)'|(-?\d+)(?![\d.]))/gu)) args[`${m[1]}#${i++}`] = m[2] ?? Number(m[3]);
    return { name: /^'name': '([^']+)'/u.exec(part)![1], arguments: args };
  });
}

function keyArgs(): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const domain of ["airline", "retail", "telecom"]) {
    for (const t of loadDomainOntology(root, domain).ontology.tables.tools) out.set(t.name, t.keyArg);
  }
  return out;
}

function keyOf(args: Record<string, unknown>, keyArg: string | null): string | null {
  if (keyArg === null) return null;
  const hit = Object.entries(args).find(([k]) => k === keyArg || k.startsWith(`${keyArg}#`));
  return hit === undefined ? null : String(hit[1]);
}

export function extract(resultsDir: string, toolsDir: string): RunsRow[] {
  const writes = writeTools(toolsDir);
  const keys = keyArgs();
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
        const write = toolCalls(m.tool_calls).find((c) => writes.has(c.name));
        const last = users.at(-1);
        if (write === undefined || last === undefined || used.has(last.index)) return;
        used.add(last.index);
        const window = users.slice(-CONSENT_WINDOW);
        rows.push({
          id: `${basename(f, ".json")}#${sim.id.slice(0, 8)}@${last.index}`,
          call: write.name,
          arguments: write.arguments,
          key: keyOf(write.arguments, keys.get(write.name) ?? null),
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
    return l === undefined ? r : { ...r, consent: l.consent, ...(l.explicit === undefined ? {} : { explicit: l.explicit }), reason: l.reason };
  });
  writeFileSync(TABLE, JSON.stringify(rows, null, 1) + "\n");
  const open = rows.filter((r) => r.reason === "").length;
  process.stdout.write(`${rows.length} rows (${open} unlabelled) → ${TABLE}\n`);
}

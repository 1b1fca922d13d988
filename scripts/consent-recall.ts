// Precision and recall of the default consent detector on its two labelled tables:
//   - test/policies/consent-table.json: the project's table (utterances written for the rules), read as the
//     detector reads a window of user messages;
//   - test/policies/consent-runs-table.json: the confirmation exchanges of the development runs
//     (scripts/consent-runs.ts extracts them; each row labelled by reading it), read as the guard's
//     `recent-messages` mode reads them (the assistant messages each user message answers, the call's names).
//
//   npm run consent:recall            (prints both tables' figures and every miss)
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defaultConsentDetector, type ConsentDetector } from "../src/policies/consent.js";
import { scopedConsentDetector } from "../src/policies/consent-scoped.js";
import { consentNames, recentConsentMessages, type ConsentTurn } from "../src/guard/recent-consent.js";

export interface Figures {
  rows: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  /** Recall on the explicit confirmations only (the runs table marks them; the project table's yeses all are). */
  explicitRecall: number;
  misses: string[];
}

interface ProjectRow { messages: string[]; consent: boolean; note: string }
interface RunsRow { id: string; call: string; arguments: Record<string, unknown>; key: string | null; messages: string[]; answers: string[]; consent: boolean | null; explicit?: boolean; reason: string }

const dir = new URL("../test/policies/", import.meta.url);
export const projectTable = (): ProjectRow[] => JSON.parse(readFileSync(new URL("consent-table.json", dir), "utf8"));
export const runsTable = (): RunsRow[] => JSON.parse(readFileSync(new URL("consent-runs-table.json", dir), "utf8"));

function figures(items: { label: boolean; explicit: boolean; got: boolean; what: string }[]): Figures {
  let tp = 0, fp = 0, fn = 0, tn = 0, etp = 0, efn = 0;
  const misses: string[] = [];
  for (const i of items) {
    if (i.got && i.label) tp++;
    else if (i.got) { fp++; misses.push(`FALSE YES ${i.what}`); }
    else if (i.label) { fn++; misses.push(`missed yes ${i.what}`); }
    else tn++;
    if (i.label && i.explicit) i.got ? etp++ : efn++;
  }
  return { rows: items.length, tp, fp, fn, tn, precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp / (tp + fn), explicitRecall: etp / (etp + efn), misses };
}

export function measureProject(detector: ConsentDetector = scopedConsentDetector): Figures {
  return figures(projectTable().map((r) => ({ label: r.consent, explicit: true, got: detector.detect(r.messages).consent, what: `${JSON.stringify(r.messages)} (${r.note})` })));
}

/** The runs table as the guard reads it: each user message after the assistant message it answers. */
export function measureRuns(detector: ConsentDetector = scopedConsentDetector): Figures {
  return figures(
    runsTable()
      .filter((r) => r.consent !== null)
      .map((r) => {
        const conversation: ConsentTurn[] = r.messages.flatMap((m, i) => [{ role: "assistant", content: r.answers[i] }, { role: "user", content: m }]);
        const read = recentConsentMessages(conversation, consentNames(r.call, r.arguments, r.key), detector);
        const got = detector.detect(read.messages, read.context);
        return {
          label: r.consent === true,
          explicit: r.explicit === true,
          got: got.consent,
          what: `${r.id} ${r.call}${r.explicit === false ? " (implied)" : ""}: ${JSON.stringify(r.messages.at(-1)!.slice(0, 160))} [${got.evidence ?? "nothing read"}] (${r.reason})`,
        };
      }),
  );
}

function show(name: string, f: Figures): string {
  return `${name}: ${f.rows} rows, tp=${f.tp} fp=${f.fp} fn=${f.fn} tn=${f.tn}, precision=${f.precision.toFixed(3)} recall=${f.recall.toFixed(3)} (explicit confirmations ${f.explicitRecall.toFixed(3)})`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [name, f] of [["project table", measureProject()], ["runs table (recent-messages)", measureRuns()]] as const) {
    process.stdout.write(`${scopedConsentDetector.id}, ${show(name, f)}\n${f.misses.map((m) => `  ${m}`).join("\n")}\n`);
  }
  // The default detector (the guard's own-question mode) on the same tables, for reference.
  for (const [name, f] of [["project table", measureProject(defaultConsentDetector)], ["runs table (recent-messages)", measureRuns(defaultConsentDetector)]] as const) {
    process.stdout.write(`${defaultConsentDetector.id}, ${show(name, f)}\n`);
  }
}

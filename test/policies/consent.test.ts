import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { CONSENT_WINDOW, classifyMessage, defaultConsentDetector, detectConsent } from "../../src/policies/consent.js";

interface Row {
  messages: string[];
  consent: boolean;
  note: string;
}

const table: Row[] = JSON.parse(readFileSync(new URL("./consent-table.json", import.meta.url), "utf8"));

describe("default consent detector", () => {
  it("has a labelled table of at least 80 utterances in both languages", () => {
    expect(table.length).toBeGreaterThanOrEqual(80);
    expect(table.some((r) => /[\uac00-\ud7a3]/u.test(r.messages.join(" ")))).toBe(true);
    expect(table.filter((r) => r.consent).length).toBeGreaterThan(20);
    expect(table.filter((r) => !r.consent).length).toBeGreaterThan(20);
  });

  it("is precise on the table (precision 1.0) and recalls at least 0.9", () => {
    let tp = 0, fp = 0, fn = 0, tn = 0;
    const misses: string[] = [];
    for (const row of table) {
      const got = detectConsent(row.messages).consent;
      if (got && row.consent) tp++;
      else if (got && !row.consent) { fp++; misses.push(`FALSE YES ${JSON.stringify(row.messages)} (${row.note})`); }
      else if (!got && row.consent) { fn++; misses.push(`missed yes ${JSON.stringify(row.messages)} (${row.note})`); }
      else tn++;
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    console.log(
      `consent table: ${table.length} rows, tp=${tp} fp=${fp} fn=${fn} tn=${tn}, ` +
        `precision=${precision.toFixed(3)} recall=${recall.toFixed(3)}\n  ${misses.join("\n  ")}`,
    );
    expect(fp).toBe(0);
    expect(precision).toBe(1);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  it("reads only the last three messages, most recent decisive message first", () => {
    expect(CONSENT_WINDOW).toBe(3);
    expect(detectConsent(["yes", "a", "b", "c"]).consent).toBe(false);
    expect(detectConsent(["yes", "a", "b"])).toEqual({ consent: true, message: 0, evidence: "yes" });
    expect(detectConsent(["no", "yes"]).message).toBe(1);
    expect(detectConsent([]).consent).toBe(false);
  });

  it("vetoes on negation in both languages even after an affirmative", () => {
    expect(classifyMessage("Yes, go ahead. Actually, don't.").kind).toBe("no");
    expect(classifyMessage("네, 진행해 주세요. 아니 잠깐만요").kind).toBe("no");
    expect(classifyMessage("예약 확인").kind).toBe("none");
  });

  it("is deterministic and safe on hostile text", () => {
    const long = "please ".repeat(20_000) + "go ahead";
    expect(detectConsent([long]).consent).toBe(true);
    expect(detectConsent(["\u0000\u0007yes\u202e"]).consent).toBe(true);
    expect(detectConsent([42 as unknown as string]).consent).toBe(false);
    expect(defaultConsentDetector.detect(["네"])).toEqual(detectConsent(["네"]));
  });
});

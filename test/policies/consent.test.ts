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

  it("reads deferrals, partial consent, consent to something else, jokes and questions as unclear, by class", () => {
    const cases: Array<[string, string]> = [
      ["do it tomorrow", "deferral"], ["do it later", "deferral"], ["yes, hold that thought", "deferral"],
      ["sounds good, let me check with my wife", "deferral"], ["네, 내일 진행해 주세요", "deferral"],
      ["yes, except the return flight", "partial"], ["네, 편도만 취소해 주세요", "partial"],
      ["Yes, I want to keep my reservation as is", "something else"], ["Yes, cancel the OTHER one", "something else"], ["네, 예약은 그대로 유지해 주세요", "something else"],
      ["Yes!! (just kidding)", "joke"], ["네 ㅋㅋ 농담이에요", "joke"], ["네, 얼마예요", "question"],
    ];
    for (const [text, kind] of cases) {
      const c = classifyMessage(text);
      expect(c.kind, text).toBe("no");
      expect(c.evidence, text).toMatch(new RegExp(`^${kind}: `, "u"));
    }
    expect(classifyMessage("Yes. How long will the refund take").kind).toBe("no");
    // Unclear decides: an earlier yes in the window does not count past it.
    expect(detectConsent(["Yes!!", "just kidding"]).consent).toBe(false);
    expect(defaultConsentDetector.id).toBe("polar-regex-en-ko@3");
  });

  it("Korean 취소 as the requested action is consent after a yes; other 취소 and negations still veto", () => {
    expect(detectConsent(["네, 취소해 주세요"]).consent).toBe(true);
    expect(detectConsent(["네, 예약 취소 부탁드립니다"]).consent).toBe(true);
    for (const no of ["취소", "취소할게요", "네, 취소하지 마세요", "아니요, 취소해 주세요", "네, 취소해 주세요. 아니 잠깐만요"]) {
      expect(detectConsent([no]).consent, no).toBe(false);
    }
    // Without a yes, a request to cancel is not an answer to the question.
    expect(classifyMessage("취소해 주세요").kind).toBe("none");
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

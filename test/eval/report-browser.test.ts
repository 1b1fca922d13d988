// The HTML report as a person sees it: opened in headless Chromium at a 1,280 px window, nothing is
// wider than the window, and the answer (the headline table) comes before the first detail table.
// Runs on a report generated now from three real results files and on the checked-in report; keeps
// screenshots under test-results/. Needs Chromium (POLAR_CHROMIUM, default /usr/bin/chromium) and the
// τ²-bench data: skipped by name without them, unless POLAR_REQUIRE_BROWSER=1 / POLAR_REQUIRE_TAU2=1.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { evalTau2 } from "../../src/cli/commands/eval.js";
import { CHROMIUM, launchChromium, type Chromium } from "../runtimes/helpers/chromium.js";
import { HAS_TAU2, REPO_ROOT, tau2Dir } from "../tau2/data-dir.js";

const HAS_CHROMIUM = existsSync(CHROMIUM);
if (!HAS_CHROMIUM && process.env.POLAR_REQUIRE_BROWSER === "1") throw new Error(`chromium is not installed at \`${CHROMIUM}\` (POLAR_REQUIRE_BROWSER=1)`);

const SUBSET = ["gpt-4.1_airline_default_user-gpt-4.1_1trial.json", "gpt-4.1_retail_default_user-gpt-4.1_1trial.json", "gpt-4.1_telecom_no-user_4trials_5tasks.json"];
const SHOTS = join(REPO_ROOT, "test-results");
const CHECKED_IN = join(REPO_ROOT, "docs/tau2-report/tau2-eval.html");

const runs = HAS_CHROMIUM && HAS_TAU2;
const why = !HAS_CHROMIUM ? `needs Chromium at ${CHROMIUM} (POLAR_CHROMIUM)` : "needs τ²-bench data: POLAR_TAU2_DIR";
const suite = runs ? describe : describe.skip;

interface Layout {
  docWidth: number;
  widestTable: number;
  widestChart: number;
  headlineBeforeDetail: boolean;
  headlineRows: number;
  titledCells: number;
}

async function layout(page: Page, url: string): Promise<Layout> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url);
  return page.evaluate(() => {
    const doc = document.documentElement;
    const headline = document.querySelector("table#headline");
    const detail = document.querySelector("table.detail");
    const width = (sel: string): number => Math.max(0, ...[...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().right));
    return {
      docWidth: Math.max(doc.scrollWidth, document.body.scrollWidth),
      widestTable: width("table"),
      widestChart: width("svg"),
      headlineBeforeDetail: headline !== null && detail !== null && (headline.compareDocumentPosition(detail) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0,
      headlineRows: headline === null ? 0 : headline.querySelectorAll("tr").length,
      titledCells: document.querySelectorAll("td[title]").length,
    };
  });
}

suite(`the HTML report in headless Chromium at 1280 px${runs ? "" : ` [skipped: ${why}]`}`, () => {
  let browser: Chromium;
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "polar-report-"));
    evalTau2({ data: tau2Dir(), results: SUBSET, out, resamples: 200, scopes: ["turn"], progress: false });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  for (const [name, file] of [
    ["a report generated now", () => join(out, "tau2-eval.html")],
    ["the checked-in report (docs/tau2-report)", () => CHECKED_IN],
  ] as const) {
    it(`${name}: no wider than the window, the headline before the first detail table`, async () => {
      const page = await browser.context.newPage();
      try {
        const l = await layout(page, pathToFileURL(file()).href);
        expect(l.docWidth).toBeLessThanOrEqual(1280);
        expect(l.widestTable).toBeLessThanOrEqual(1280);
        expect(l.widestChart).toBeLessThanOrEqual(1280);
        expect(l.headlineBeforeDetail).toBe(true);
        // A header row and one row per (domain or all) × (veto, escalate).
        expect(l.headlineRows).toBeGreaterThanOrEqual(1 + 2 * 2);
        // Shortened cells keep their full text on hover.
        expect(l.titledCells).toBeGreaterThan(0);
        const shot = name.startsWith("a report") ? "generated" : "checked-in";
        await page.screenshot({ path: join(SHOTS, `tau2-report-${shot}.png`), fullPage: false });
        // The whole page only for the smaller generated report (the checked-in one is ~25,000 px tall).
        if (shot === "generated") await page.screenshot({ path: join(SHOTS, "tau2-report-generated-full.png"), fullPage: true });
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});

// Without Chromium or data the suite above is registered as skipped, its tests under their names;
// the reason goes to the run's output (the default reporter does not print skipped tests' names).
if (!runs) console.warn(`skipped: the tau2 report in headless Chromium [${why}]`);

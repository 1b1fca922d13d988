// The browser example (examples/browser) in headless Chromium: the page loads the built package, replays
// a τ²-bench airline trajectory through the guard, shows each call's decision, and the decisions it
// shows equal Node's for the same trajectory and settings, also after the reader switches policy and τ.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBrowser, launchChromium, type Chromium } from "./helpers/chromium.js";
import { DIST, REPO, artefactDir, requireDist } from "./helpers/paths.js";
import { serveStatic, type StaticServer } from "./helpers/static-server.js";

type Api = typeof import("../../src/index.js");
interface Row {
  call: unknown;
  decision: { seq: number; route: string; reason: string; verdict: { phi: number; bytes: string } | null };
}
interface Replay {
  replaySimulation(api: Api, data: unknown, settings: { policy: string; tau: number }): Promise<Row[]>;
}

const SAMPLES = join(REPO, "samples/tau2-airline");
const RESULTS = [
  "gpt-4.1_airline_default_user-gpt-4.1_1trial.json",
  "ft-gpt-4.1-tau2-full-sft_airline_default_user-gpt-4.1_1trial.json",
];

let api: Api;
let replay: Replay;
let server: StaticServer;
let browser: Chromium;
let page: Page;
const pageErrors: string[] = [];

const readJson = (path: string): any => JSON.parse(readFileSync(path, "utf8"));

/** The page's trajectories, in its order, and the loop run in Node with the built node entry. */
function simulations(): unknown[] {
  return RESULTS.flatMap((f) => readJson(join(SAMPLES, "results", f)).simulations);
}

async function nodeRows(trajectory: number, settings: { policy: string; tau: number }): Promise<Row["decision"][]> {
  const data = {
    blob: readFileSync(join(REPO, "ontologies/airline/airline.blob")),
    projection: readJson(join(REPO, "ontologies/airline/projection.json")),
    db: readJson(join(SAMPLES, "domains/airline/db.json")),
    simulation: simulations()[trajectory],
  };
  const rows = await replay.replaySimulation(api, data, settings);
  return rows.map((r) => JSON.parse(JSON.stringify(r.decision)));
}

async function shown(): Promise<{ settings: unknown; decisions: Row["decision"][]; rows: Record<string, string>[] }> {
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 30_000 });
  const polar = (await page.evaluate(() => (window as unknown as { __polar: unknown }).__polar)) as {
    settings: unknown;
    decisions: Row["decision"][];
    error?: string;
  };
  expect(polar.error).toBeUndefined();
  const rows = await page.$$eval("#rows tr", (trs) => trs.map((tr) => ({ ...(tr as HTMLElement).dataset }) as Record<string, string>));
  return { settings: polar.settings, decisions: polar.decisions, rows };
}

function expectRowsMatch(rows: Record<string, string>[], expected: Row["decision"][]): void {
  expect(rows.length).toBe(expected.length);
  rows.forEach((row, i) => {
    const d = expected[i];
    expect(row, `row ${i + 1}`).toMatchObject({
      seq: String(d.seq),
      route: d.route,
      reason: d.reason,
      phi: d.verdict ? String(d.verdict.phi) : "",
      bytes: d.verdict ? d.verdict.bytes : "",
    });
  });
}

describeBrowser("browser example in headless Chromium", () => {
  beforeAll(async () => {
    requireDist();
    api = (await import(pathToFileURL(join(DIST, "node.js")).href)) as Api;
    replay = (await import(pathToFileURL(join(REPO, "examples/browser/replay.js")).href)) as Replay;
    server = await serveStatic({ "/": REPO });
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    await page.goto(`${server.url}/examples/browser/index.html`);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("loads and shows the decisions Node makes for the same trajectory (veto, τ 0.80)", async () => {
    const { decisions, rows } = await shown();
    const expected = await nodeRows(0, { policy: "veto", tau: 0.8 });
    expect(expected.length).toBeGreaterThan(3);
    expect(decisions).toEqual(expected);
    expectRowsMatch(rows, expected);
    // The table shows a mutating call's score and inverse sequence.
    const text = await page.textContent("#rows");
    expect(text).toContain("update_reservation_flights");
    expect(pageErrors).toEqual([]);
  });

  it("switching policy and τ re-runs the loop; the page still equals Node", async () => {
    await page.selectOption("#policy", "escalate");
    await page.fill("#tau", "0.95");
    await page.dispatchEvent("#tau", "change");
    const { settings, decisions, rows } = await shown();
    expect(settings).toEqual({ policy: "escalate", tau: 0.95 });
    const expected = await nodeRows(0, { policy: "escalate", tau: 0.95 });
    expect(decisions).toEqual(expected);
    expectRowsMatch(rows, expected);
    const routes = new Set(rows.map((r) => r.route));
    expect(routes.has("Approved")).toBe(true);
  });

  it("the second trajectory under advisory equals Node, and a screenshot is saved", async () => {
    await page.selectOption("#policy", "advisory");
    await page.selectOption("#trajectory", "1");
    const { decisions, rows } = await shown();
    const expected = await nodeRows(1, { policy: "advisory", tau: 0.95 });
    expect(decisions).toEqual(expected);
    expectRowsMatch(rows, expected);
    expect(rows.every((r) => r.route === "AdvisoryPassthrough" || r.route === "Approved")).toBe(true);

    await page.selectOption("#policy", "veto");
    await page.fill("#tau", "0.80");
    await page.dispatchEvent("#tau", "change");
    await shown();
    const file = join(await artefactDir("browser-example"), "browser-example.png");
    await page.screenshot({ path: file, fullPage: true });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe("PNG");
    expect(pageErrors).toEqual([]);
  });
});

// The conformance corpus (test/conformance/) run through the built package, imported by name, in
// Node, headless Chromium and workerd: every runtime must produce byte-identical verdict encodings.
import { execFileSync } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { itBrowser, launchChromium } from "./helpers/chromium.js";
import { installPacked, type PackedPackage } from "./helpers/pack.js";
import { REPO } from "./helpers/paths.js";
import { serveStatic } from "./helpers/static-server.js";
import { startWorker } from "./helpers/workerd.js";

interface CaseResult {
  name: string;
  verdict?: { nodes: number } & Record<string, unknown>;
  hex?: string;
  error?: string;
}

const CORPUS = join(REPO, "test/conformance");
const HARNESS = join(REPO, "test/runtimes/harness");
let pkg: PackedPackage;
let nodeResults: CaseResult[];

beforeAll(async () => {
  pkg = await installPacked("runtimes-conformance");
  for (const f of ["conformance.mjs", "node-run.mjs", "conformance.html", "conformance-worker.mjs"]) {
    await copyFile(join(HARNESS, f), join(pkg.root, f));
  }
  const out = execFileSync(process.execPath, ["node-run.mjs", CORPUS], { cwd: pkg.root, encoding: "utf8" });
  nodeResults = JSON.parse(out) as CaseResult[];
});

describe("conformance corpus across runtimes", () => {
  it("Node (the package by name, node condition) gives each case's expected verdict", async () => {
    const cases = JSON.parse(await readFile(join(pkg.root, "input.json"), "utf8")).cases as { name: string }[];
    expect(nodeResults.length).toBe(cases.length);
    expect(nodeResults.length).toBeGreaterThanOrEqual(45);
    for (const r of nodeResults) {
      const { nodes, ...expected } = JSON.parse(await readFile(join(CORPUS, "cases", `${r.name}.json`), "utf8")).expected;
      expect(r.error, r.name).toBeUndefined();
      expect(r.hex, r.name).toMatch(/^([0-9a-f]{2})+$/);
      const { nodes: got, ...verdict } = r.verdict!;
      expect(verdict, r.name).toEqual(expected);
      if (nodes !== undefined) expect(got, `${r.name} nodes`).toBe(nodes);
    }
  });

  itBrowser("Chromium (import map to dist/browser.js, streamed core) gives byte-identical encodings", async () => {
    const server = await serveStatic({ "/": pkg.root });
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${server.url}/conformance.html`);
      await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, null, { timeout: 30_000 });
      const result = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as {
        ok: boolean;
        results?: CaseResult[];
        error?: string;
      };
      expect(errors).toEqual([]);
      expect(result.error).toBeUndefined();
      expect(result.results).toEqual(nodeResults);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  it("workerd (wrangler bundle, workerd condition, .wasm module import) gives byte-identical encodings", async () => {
    const config = join(pkg.root, "wrangler.toml");
    await writeFile(
      config,
      ['name = "polar-conformance"', 'main = "conformance-worker.mjs"', 'compatibility_date = "2025-01-01"', ""].join("\n"),
    );
    const worker = await startWorker(config, join(pkg.root, "worker-bundle"));
    try {
      const res = await worker.fetch("/");
      const body = (await res.json()) as { ok: boolean; results?: CaseResult[]; error?: string };
      expect(body.error).toBeUndefined();
      expect(res.status).toBe(200);
      expect(body.results).toEqual(nodeResults);
    } finally {
      await worker.dispose();
    }
  });
});


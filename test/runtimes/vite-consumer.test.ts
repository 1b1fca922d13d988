// A browser app built with Vite against the packed package, imported by name: Vite picks the browser
// entry, turns `new URL("./polar-core.wasm", import.meta.url)` into an emitted asset, and the page runs
// a guard in Chromium with no extra configuration (the docs' claim for bundlers).
import { mkdir, writeFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "vite";
import { expect, it } from "vitest";
import { describeBrowser, launchChromium } from "./helpers/chromium.js";
import { installPacked } from "./helpers/pack.js";
import { serveStatic } from "./helpers/static-server.js";
import { CANCELLABLE_JSON } from "./fixtures/airline-cancellable.js";

const MAIN = `
import { loadGuard, LayerB } from "polar-guard";
import blobUrl from "polar-guard/ontologies/airline/airline.blob?url";
const state = LayerB.fromJSON(${CANCELLABLE_JSON});
const guard = await loadGuard({ ontologyUrl: blobUrl, state });
const d = guard.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
window.__result = { route: d.route, phi: d.verdict.phi, bytes: d.verdict.bytes };
`;

describeBrowser("a Vite app using polar-guard", () => {
  it("builds with the core as an asset and runs the guard in Chromium", async () => {
    const pkg = await installPacked("vite-consumer");
    const app = join(pkg.root, "app");
    await mkdir(app, { recursive: true });
    await writeFile(join(app, "index.html"), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>\n');
    await writeFile(join(app, "main.js"), MAIN);
    await build({ root: app, logLevel: "silent", configFile: false, build: { target: "es2022", outDir: join(app, "dist"), emptyOutDir: true } });
    const assets = readdirSync(join(app, "dist/assets"));
    expect(assets.some((f) => /^polar-core-.*\.wasm$/.test(f))).toBe(true);

    const server = await serveStatic({ "/": join(app, "dist") });
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${server.url}/index.html`);
      await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, null, { timeout: 30_000 });
      const result = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as { route: string; phi: number };
      expect(errors).toEqual([]);
      expect(result).toMatchObject({ route: "Approved", phi: 810000 });
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

// Issue 21 item 20: the docs agree on the bundle size. docs/runtimes.md, "Sizes", is the one place that
// states it; this test measures the built entries as test/package/size.test.ts does and fails when a
// figure there is more than 1 KiB from the measurement, or when the README (or another doc) states a
// bundle size of its own again.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { DIST, REPO, requireDist } from "../runtimes/helpers/paths.js";

const KiB = 1024;

async function gzipBytes(entry: string, conditions: string[]): Promise<number> {
  const r = await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", platform: "browser", conditions, write: false, external: ["*.wasm"], logLevel: "silent" });
  return gzipSync(r.outputFiles[0].contents, { level: 9 }).length;
}

/** The `~N KiB gzip` figure of the Sizes table's row starting with `label`. */
function stated(doc: string, label: string): number {
  const row = doc.split("\n").find((l) => l.startsWith(`| ${label}`));
  expect(row, `docs/runtimes.md has a Sizes row for the ${label}`).toBeDefined();
  const m = /~(\d+(?:\.\d+)?) KiB gzip/u.exec(row!);
  expect(m, row).not.toBeNull();
  return Number(m![1]);
}

describe("the docs state the measured bundle size, in one place", () => {
  it("docs/runtimes.md's figures are within 1 KiB of the measured gzip sizes", async () => {
    requireDist();
    const doc = readFileSync(join(REPO, "docs/runtimes.md"), "utf8");
    const measured = {
      browser: (await gzipBytes(join(DIST, "browser.js"), ["browser"])) / KiB,
      workerd: (await gzipBytes(join(DIST, "workerd.js"), ["workerd", "worker"])) / KiB,
    };
    const docs = { browser: stated(doc, "browser entry"), workerd: stated(doc, "Workers entry") };
    const off = Object.entries(docs).filter(([k, v]) => Math.abs(v - measured[k as keyof typeof measured]) > 1);
    expect(off, `measured ${JSON.stringify(measured)} KiB gzip; update docs/runtimes.md, "Sizes"`).toEqual([]);
  });

  it("no other doc states a bundle size of its own", () => {
    const files = ["README.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    for (const f of files) {
      if (f === "docs/runtimes.md") continue;
      const text = readFileSync(join(REPO, f), "utf8");
      // Bundle sizes are quoted gzipped (`~36 KiB gzip`); the core's bytes (`~5 KB WebAssembly core`) are not one.
      const claims = text.split("\n").filter((l) => /\d+(?:\.\d+)?\s*(?:KiB|KB|kB) gzip/u.test(l));
      expect(claims, f).toEqual([]);
    }
  });
});

// polar-guard/sql is Node only: no runtime entry (index, browser, workerd, node) reaches src/sql/, the
// parser (libpg-query), the deparser or a database driver, so the runtime bundles do not grow by it;
// and dist/sql.js imports the parser at run time (optional peer dependencies), never bundles it.
import { build } from "esbuild";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

describe("the sql subpath stays out of the runtime bundles", () => {
  it("no runtime entry imports src/sql, libpg-query, pgsql-deparser, better-sqlite3, pglite or pg", async () => {
    for (const entry of ["index", "runtimes/browser", "runtimes/workerd", "runtimes/node"]) {
      const result = await build({
        entryPoints: [`${REPO}/src/${entry}.ts`],
        absWorkingDir: REPO,
        bundle: true,
        format: "esm",
        platform: entry.endsWith("node") ? "node" : "browser",
        write: false,
        metafile: true,
        external: ["*.wasm"],
        logLevel: "silent",
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((p) => p.startsWith("src/sql/") || /libpg-query|pgsql-deparser|better-sqlite3|pglite|node_modules\/pg\//.test(p)), entry).toEqual([]);
    }
  });

  it("the ./sql export points at dist/sql.js, which imports the parser at run time", () => {
    const pkg = JSON.parse(readFileSync(`${REPO}/package.json`, "utf8")) as { exports: Record<string, unknown>; peerDependenciesMeta: Record<string, { optional: boolean }> };
    expect(pkg.exports["./sql"]).toEqual({ types: "./dist/sql.d.ts", node: "./dist/sql.js", default: "./dist/sql.js" });
    expect(pkg.peerDependenciesMeta["libpg-query"]).toEqual({ optional: true });
    expect(pkg.peerDependenciesMeta["pgsql-deparser"]).toEqual({ optional: true });
    if (!existsSync(`${REPO}/dist/sql.js`)) throw new Error("dist/sql.js is missing: run npm run build");
    const js = readFileSync(`${REPO}/dist/sql.js`, "utf8");
    expect(js).toMatch(/await import\(['"]libpg-query['"]\)/);
    expect(js).not.toMatch(/class Deparser/);
    expect(js).not.toMatch(/from ['"](better-sqlite3|@electric-sql\/pglite|pg)['"]/);
  });
});

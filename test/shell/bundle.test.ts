// polar-guard/shell is Node only: no runtime entry (index, browser, workerd, node) reaches src/shell/,
// the bash grammar or git (source graph), so the runtime bundles do not grow by it.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

describe("the shell subpath stays out of the runtime bundles", () => {
  it("no runtime entry imports src/shell, web-tree-sitter, tree-sitter-bash or picomatch", async () => {
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
      expect(inputs.filter((p) => p.startsWith("src/shell/") || /tree-sitter|picomatch/.test(p)), entry).toEqual([]);
    }
  });
});

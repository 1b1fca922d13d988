// Builds dist/: the runtime entries over one neutral core (index, node, browser, workerd), the compiler
// subpath, and the CLI. Two configs with separate outDirs so neither cleans the other's output.
// The runtime entries never import the compiler: the size test (test/package/size.test.ts) holds that.
import { copyFile, mkdir } from "node:fs/promises";
import { defineConfig } from "tsup";

/** The release core, built by `npm run build:wasm`; runtime entries load it as a file next to them. */
async function copyCore(): Promise<void> {
  await mkdir("dist", { recursive: true });
  await copyFile("build/polar-core.wasm", "dist/polar-core.wasm");
}

export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      node: "src/runtimes/node.ts",
      browser: "src/runtimes/browser.ts",
      workerd: "src/runtimes/workerd.ts",
      compiler: "src/runtimes/compiler.ts",
      // Sealed snapshots (polar-guard/snapshot): the MAC's code stays out of the default bundle.
      snapshot: "src/guard/seal.ts",
      // Reading an audit log back (polar-guard/audit: verifyAuditLog, summarizeLog, formatSummary): the
      // replay carries the reference search and the guard's evaluation, so it stays out of the default
      // bundle; the runtime entries keep what writing a log needs.
      audit: "src/audit/api.ts",
      // The framework adapters (polar-guard/ai, /openai-agents, /langchain): they import the frameworks'
      // types only, so no framework code is in them; the frameworks are optional peer dependencies.
      "adapters/ai": "src/adapters/ai.ts",
      "adapters/openai-agents": "src/adapters/openai-agents.ts",
      "adapters/langchain": "src/adapters/langchain.ts",
      // polar-guard/shell: Node only (the bash grammar, git, the filesystem); never in the runtime bundles.
      shell: "src/shell/index.ts",
      // polar-guard/sql: Node only; the parser (libpg-query, wasm) and pgsql-deparser are optional peer
      // dependencies, imported at run time, never bundled; never in the runtime bundles.
      sql: "src/sql/index.ts",
      // OpenCode's plugin (polar-guard/opencode): Node/Bun only, asks the local polar daemon.
      opencode: "src/hooks/opencode.ts",
    },
    outDir: "dist",
    format: ["esm"],
    target: "es2022",
    // Neutral: no runtime's builtins are assumed; the Node entry's `node:` imports stay imports.
    platform: "neutral",
    // The Workers entry imports the core as a module (workerd refuses to compile wasm from bytes);
    // the import stays as written so the user's bundler (wrangler) attaches dist/polar-core.wasm.
    external: [/^node:/, /\.wasm$/],
    removeNodeProtocol: false,
    splitting: true,
    treeshake: true,
    dts: true,
    // The CLI config writes dist/cli at the same time: leave it alone.
    clean: ["!cli/**"],
    sourcemap: false,
    onSuccess: copyCore,
  },
  {
    entry: { index: "src/cli/index.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    target: "es2022",
    platform: "node",
    // `polar mcp` bundles the MCP SDK (a dev dependency), whose CommonJS parts require Node builtins
    // (child_process for the stdio child): give the ESM bundle a `require`.
    banner: { js: "import { createRequire as __polarCreateRequire } from 'node:module'; const require = __polarCreateRequire(import.meta.url);" },
    splitting: false,
    // Database drivers are the user's (`polar mcp --dispatch --database`, `polar undo --sql`): loaded
    // from their node_modules when used, never bundled (better-sqlite3 finds its native addon itself).
    external: ["better-sqlite3", "pg"],
    dts: false,
    clean: true,
    sourcemap: false,
  },
]);

#!/usr/bin/env node
// The `polar` command: a shim over the built CLI, so the published bin path stays stable whatever the
// bundler names its output. The CLI (with the compiler) lives only in dist/cli, never in a runtime entry.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli/index.js", import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write("polar: the CLI is not built: run `npm run build` first\n");
  process.exit(2);
}
await import(cli.href);

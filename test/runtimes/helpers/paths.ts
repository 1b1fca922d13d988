// Where the runtime tests find the repository, the built package and their artefacts.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const DIST = join(REPO, "dist");
export const RESULTS = join(REPO, "test-results");

const BUILT = ["index.js", "node.js", "browser.js", "workerd.js", "compiler.js", "index.d.ts", "polar-core.wasm", "cli/index.js"];

/** The runtime tests exercise the built package, as a user gets it; CI builds before it tests. */
export function requireDist(): void {
  const missing = BUILT.filter((f) => !existsSync(join(DIST, f)));
  if (missing.length > 0) {
    throw new Error(`dist/ is not built (missing ${missing.join(", ")}): run \`npm run build\` first`);
  }
}

/** A fresh folder under test-results/ (gitignored), inside the repo so Node's resolution still reaches
 * the repo's node_modules for the CLI's dependencies. */
export async function artefactDir(name: string): Promise<string> {
  const dir = join(RESULTS, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

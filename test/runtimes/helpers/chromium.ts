// Headless Chromium (Debian's package) driven by playwright-core; never a browser playwright downloads.
// Where it is not installed (a fresh machine with Node only: the README's `npm test` must pass there)
// the browser suites are reported as skipped, by name, with the reason in the title — never silently.
// CI sets POLAR_REQUIRE_BROWSER=1, and then a missing browser fails the run instead.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { describe, it } from "vitest";

export const CHROMIUM = process.env.POLAR_CHROMIUM ?? "/usr/bin/chromium";
export const HAS_CHROMIUM = existsSync(CHROMIUM);

const MISSING = `chromium is not installed at \`${CHROMIUM}\`: install it with \`apt-get install -y chromium\` (or set POLAR_CHROMIUM)`;
if (!HAS_CHROMIUM && process.env.POLAR_REQUIRE_BROWSER === "1") throw new Error(MISSING);

const NOTE = ` [needs Chromium: not found at ${CHROMIUM}; set POLAR_CHROMIUM]`;
type Fn = () => void | Promise<void>;

/** A suite that drives Chromium: skipped, by name, when the browser is absent (its hooks included). */
export function describeBrowser(name: string, fn: Fn): void {
  if (HAS_CHROMIUM) describe(name, fn);
  else skipped(name, () => {});
}

/** A test that drives Chromium: skipped, by name, when the browser is absent. */
export function itBrowser(name: string, fn: Fn, timeout?: number): void {
  if (HAS_CHROMIUM) it(name, fn, timeout);
  else skipped(name, fn, timeout);
}

/** The skipped entry, and its reason on the run's output (the default reporter lists skipped files
 * but not their tests' names). */
function skipped(name: string, fn: Fn, timeout?: number): void {
  console.warn(`skipped: ${name}${NOTE}`);
  it.skipIf(true)(name + NOTE, fn, timeout);
}

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile; fails when the browser is not installed (a suite that
 * needs it is declared with describeBrowser / itBrowser, which skip by name instead). */
export async function launchChromium(): Promise<Chromium> {
  if (!HAS_CHROMIUM) throw new Error(MISSING);
  const profile = mkdtempSync(join(tmpdir(), "polar-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

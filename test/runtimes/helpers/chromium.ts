// Headless Chromium (Debian's package) driven by playwright-core; never a browser playwright downloads.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.POLAR_CHROMIUM ?? "/usr/bin/chromium";

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

/** Launches Chromium with a fresh profile; fails (never skips) when the browser is not installed. */
export async function launchChromium(): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `chromium is not installed at \`${CHROMIUM}\`: install it with \`apt-get install -y chromium\` (or set POLAR_CHROMIUM)`,
    );
  }
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

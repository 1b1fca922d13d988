// A suite or test that cannot run here (no τ²-bench data, no Python, …) is skipped by name with its
// reason, and the reason is printed on the run's output as well: the default reporter lists skipped
// files but not their tests' names, so without the line `npm test` would not say why they were skipped.
import { it } from "vitest";

/** The line printed for a skipped suite or test. */
export function skipLine(name: string, reason: string): string {
  return `skipped: ${name} [${reason}]`;
}

/** Registers `name` as skipped, titled with the reason, and prints the reason. */
export function skipByName(name: string, reason: string, fn: () => void | Promise<void> = () => {}, timeout?: number): void {
  console.warn(skipLine(name, reason));
  it.skipIf(true)(`${name} [${reason}]`, fn, timeout);
}

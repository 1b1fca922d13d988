// Bounds in "fast enough" tests are on this process's CPU time, not the wall clock: on a shared or
// loaded machine (CI runners, several test files at once) wall time stretches with everyone else's
// work, while the CPU a computation burns does not, so the bound still separates linear from
// quadratic without failing under load. Tests run in forked workers (vitest.config.ts: pool forks),
// so the process's CPU is the test's own.

/** Milliseconds of CPU (user + system) this process spent running `fn`, and what it returned. */
export function cpuTime<T>(fn: () => T): { value: T; ms: number } {
  const before = process.cpuUsage();
  const value = fn();
  const used = process.cpuUsage(before);
  return { value, ms: (used.user + used.system) / 1000 };
}

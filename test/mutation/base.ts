// The vitest config of one module's mutation run: only the test files that cover that module, so each
// mutant runs a few fast tests (see scripts/mutate.ts). Stryker's own `testFiles` option is not used:
// with it, mutants in module-level code stay switched off and survive falsely.
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `timeoutMs`: a test (or hook) that takes longer fails, so a mutant that makes the code wait forever is
 * killed by the test runner in that time instead of timing out in Stryker, which then restarts its
 * test-runner process (seconds each on the shared machine). For sets of fast tests only. */
export function mutationVitestConfig(include: string[], options: { timeoutMs?: number } = {}): ViteUserConfig {
  return defineConfig({
    root,
    test: {
      include,
      testTimeout: options.timeoutMs ?? 60_000,
      hookTimeout: options.timeoutMs ?? 120_000,
    },
  });
}

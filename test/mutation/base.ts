// The vitest config of one module's mutation run: only the test files that cover that module, so each
// mutant runs a few fast tests (see scripts/mutate.ts). Stryker's own `testFiles` option is not used:
// with it, mutants in module-level code stay switched off and survive falsely.
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

const root = fileURLToPath(new URL("../..", import.meta.url));

export function mutationVitestConfig(include: string[]): ViteUserConfig {
  return defineConfig({
    root,
    test: {
      include,
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  });
}

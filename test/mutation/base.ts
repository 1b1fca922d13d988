// The vitest config of one module's mutation run: only the test files that cover that module, so each
// mutant runs a few fast tests (see scripts/mutate.ts). Stryker's own `testFiles` option is not used:
// with it, mutants in module-level code stay switched off and survive falsely.
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig, type ViteUserConfig } from "vitest/config";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `timeoutMs`: a test (or hook) that takes longer fails, so a mutant that makes the code wait forever is
 * killed by the test runner in that time instead of timing out in Stryker, which then restarts its
 * test-runner process (seconds each on the shared machine). For sets of fast tests only. */
/** `shared`: the test files run in one module registry (isolate: false) and keep their expensive
 * fixtures on globalThis (POLAR_SHARED_PGLITE=1, test/sql/pglite.ts) across Stryker's reruns, and run
 * in the order `include` lists them (the fast ones first: Stryker stops a mutant's run at its first
 * failing test). For line ranges whose mutants are all inside functions: a module-level mutant may then
 * be evaluated once, with the original code. */
export function mutationVitestConfig(include: string[], options: { timeoutMs?: number; shared?: boolean } = {}): ViteUserConfig {
  class InListedOrder extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const at = (f: TestSpecification): number => {
        const i = include.indexOf(relative(root, f.moduleId));
        return i < 0 ? include.length : i;
      };
      return [...files].sort((a, b) => at(a) - at(b));
    }
  }
  return defineConfig({
    root,
    test: {
      include,
      ...(options.shared === true ? { isolate: false, env: { POLAR_SHARED_PGLITE: "1" }, sequence: { sequencer: InListedOrder } } : {}),
      testTimeout: options.timeoutMs ?? 60_000,
      hookTimeout: options.timeoutMs ?? 120_000,
    },
  });
}

// The detector's literal patterns are built when its module loads, the others on first use (or by
// compilePatterns); a broken pattern throws there. A test file that fails at import reports no
// failed test, so this one imports the module inside a test: a pattern that no longer compiles fails
// here, by name.
import { expect, it } from "vitest";

it("the consent detector's module loads and its patterns compile", async () => {
  const m = await import("../../src/policies/consent.js");
  const { compilePatterns } = await import("../../src/policies/pattern.js");
  expect(m.classifyMessage("yes").kind).toBe("yes");
  expect(m.classifyMessage("아니요").kind).toBe("no");
  expect(() => compilePatterns()).not.toThrow();
});

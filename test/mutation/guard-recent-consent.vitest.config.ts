import { mutationVitestConfig } from "./base.js";

// src/guard/recent-consent.ts (the recent-messages consent mode: the words that name a call, the user
// messages the detector reads): its own suite, the consent book and the consent context through the
// guard, and the runs table (precision and recall measured on the recorded runs).
export default mutationVitestConfig([
  "test/guard/recent-consent.test.ts",
  "test/guard/consent-book.test.ts",
  "test/guard/consent-context.test.ts",
  "test/policies/consent-runs.test.ts",
]);

import { mutationVitestConfig } from "./base.js";

// src/shell/restore.ts: restore points taken and applied on real folders and small repositories,
// the store's packs, manifests and digests, scopes and the fingerprint (test/shell/restore.test.ts);
// files with other names (hard links) kept as the same file and put back in place, run through the
// guard with bash (test/shell/guard-hardlinks.test.ts); clones' symbolic refs and a submodule's git
// folder (test/shell/guard-clone.test.ts).
export default mutationVitestConfig(["test/shell/restore.test.ts", "test/shell/guard-hardlinks.test.ts", "test/shell/guard-clone.test.ts"], { timeoutMs: 30_000 });

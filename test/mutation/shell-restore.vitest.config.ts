import { mutationVitestConfig } from "./base.js";

// src/shell/restore.ts: restore points taken and applied on real folders and small repositories,
// the store's packs, manifests and digests, scopes and the fingerprint (test/shell/restore.test.ts).
export default mutationVitestConfig(["test/shell/restore.test.ts"], { timeoutMs: 30_000 });

// Every fuzz target, in the order `npm run fuzz` runs them.
import type { FuzzTarget } from "../support.js";
import { blobTarget } from "./blob.js";
import { compilerTarget } from "./compiler.js";
import { consentTarget } from "./consent.js";
import { guardArgsTarget } from "./guard-args.js";
import { projectionTarget } from "./projection.js";
import { consentTimingTarget } from "./consent-timing.js";
import { guardParallelTarget } from "./guard-parallel.js";
import { guardResultsTarget } from "./guard-results.js";
import { auditTamperTarget } from "./audit-tamper.js";
import { workerBatchTarget } from "./worker-batch.js";
import { mcpInterleavingsTarget } from "./mcp-interleavings.js";
import { adapterIdsTarget } from "./adapter-ids.js";

export const TARGETS: readonly FuzzTarget[] = [
  compilerTarget, blobTarget, guardArgsTarget, projectionTarget, consentTarget,
  guardParallelTarget, guardResultsTarget, consentTimingTarget, auditTamperTarget, workerBatchTarget,
  mcpInterleavingsTarget,
  adapterIdsTarget,
];

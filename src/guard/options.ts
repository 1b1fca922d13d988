// createGuard's options → the guard's resolved configuration: every option checked (unknown keys are
// typos, refused; a wrong shape is a typed GuardError, never a default), the ontology loaded, the
// effective configuration resolved, frozen and hashed. Pure: nothing here runs a search.
import type { SearchBackend } from "../core/backend.js";
import type { StateView } from "../core/types.js";
import { blobDigestHex, decodeBlob, type Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";
import { LayerB } from "../projection/layer-b.js";
import type { ProjectionRules } from "../projection/rules.js";
import { defaultConsentDetector, type ConsentDetector } from "../policies/consent.js";
import { BUILTIN_POLICIES, resolvePolicy, type PolicyName } from "../policies/index.js";
import type { DecisionPolicy } from "../policies/types.js";
import { configHash, resolveConfig, type EffectiveConfig, type Scope } from "./config.js";
import { describeError, GuardError } from "./errors.js";
import type { BackendFactory, GuardConfig, GuardOptions, OntologyInput } from "./types.js";

/** What createGuard's options resolve to. */
export interface ResolvedOptions {
  /** The caller's `config` as given (its components: log, projection, models). */
  cfg: GuardConfig;
  sha256: Sha256 | undefined;
  tables: OntologyTables;
  ontologyHash: string;
  blob: Uint8Array | null;
  state: StateView;
  policy: DecisionPolicy;
  scope: Scope;
  detector: ConsentDetector;
  /** The effective configuration, frozen. */
  config: EffectiveConfig;
  configHash: string;
  /** The backend as given (default: a factory of the TypeScript reference backend); checked when the
   * engine is built (src/guard/engine.ts). */
  backend: SearchBackend | BackendFactory | undefined;
}

const OPTION_KEYS = ["ontology", "backend", "state", "policy", "scope", "config", "resume"];
const CONFIG_KEYS = [
  "tau", "tiers", "failClosed", "now", "maxDepth", "maxNodes", "maxAmount", "consent", "consentDetector", "projection",
  "requestClassifier", "intentParser", "log", "sha256", "env",
];

/** Checks createGuard's options and resolves them, in a fixed order (the first problem is the error). */
export function resolveOptions(options: GuardOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) throw new GuardError("invalid-config", "createGuard needs an options object");
  checkKeys(options, OPTION_KEYS, "");
  if (options.config !== undefined && (typeof options.config !== "object" || options.config === null)) {
    throw new GuardError("invalid-config", "`config` is not an object");
  }
  const cfg: GuardConfig = options.config ?? {};
  checkConfig(cfg);
  const sha256 = cfg.sha256;
  if (sha256 !== undefined && typeof sha256 !== "function") throw new GuardError("invalid-config", "`config.sha256` is not a function");
  const { tables, hash: ontologyHash, blob } = loadOntology(options.ontology, sha256);
  const state = options.state;
  if (!isStateView(state)) throw new GuardError("invalid-state", "`state` is not a StateView (hasEntity, slot)");
  if (cfg.projection !== undefined && !(state instanceof LayerB)) {
    throw new GuardError("invalid-config", "`config.projection` needs `state` to be a LayerB", "observe() applies tool results to a LayerB");
  }
  const policy = resolvePolicy(options.policy);
  if (policy === null) throw new GuardError("invalid-config", `unknown policy \`${String(options.policy)}\``, "use veto, escalate, advisory or a DecisionPolicy");
  if (typeof options.policy === "object" && Object.prototype.hasOwnProperty.call(BUILTIN_POLICIES, policy.name) && BUILTIN_POLICIES[policy.name as PolicyName] !== policy) {
    throw new GuardError("invalid-config", `a custom policy cannot be named \`${policy.name}\``, "the built-in policies' names are veto, escalate and advisory; the audit replay looks policies up by name");
  }
  const scope: Scope = options.scope ?? "turn";
  if (scope !== "turn" && scope !== "session") throw new GuardError("invalid-config", `unknown scope \`${String(scope)}\``, "use turn or session");
  const detector = cfg.consentDetector ?? defaultConsentDetector;
  if (typeof detector?.detect !== "function" || typeof detector.id !== "string") {
    throw new GuardError("invalid-config", "`consentDetector` needs an `id` and a `detect` function");
  }
  const config = resolveConfig({
    tau: cfg.tau,
    tiers: cfg.tiers,
    failClosed: cfg.failClosed,
    now: cfg.now,
    maxDepth: cfg.maxDepth,
    maxNodes: cfg.maxNodes,
    maxAmount: cfg.maxAmount,
    env: cfg.env,
    scope,
    policy: policy.name,
    consentDetector: detector.id,
    requestClassifier: cfg.requestClassifier?.id ?? null,
    intentParser: cfg.intentParser?.id ?? null,
    consent: cfg.consent,
  });
  Object.freeze(config.tiers);
  Object.freeze(config);
  return { cfg, sha256, tables, ontologyHash, blob, state, policy, scope, detector, config, configHash: configHash(config, sha256), backend: options.backend };
}

export function loadOntology(input: OntologyInput, sha256: Sha256 | undefined): { tables: OntologyTables; hash: string; blob: Uint8Array | null } {
  if (input instanceof Uint8Array) {
    try {
      return { tables: decodeBlob(input, { sha256 }), hash: blobDigestHex(input, sha256), blob: input };
    } catch (e) {
      throw new GuardError("invalid-ontology", `the ontology blob is refused: ${describeError(e)}`, "compile the ontology again with `polar compile`", { cause: e });
    }
  }
  if (typeof input === "object" && input !== null && typeof input.tables === "object" && input.tables !== null && typeof input.hash === "string" && input.hash !== "") {
    return { tables: input.tables, hash: input.hash, blob: input.blob ?? null };
  }
  throw new GuardError("invalid-ontology", "`ontology` is neither a blob (Uint8Array) nor `{ tables, hash }`");
}

function isStateView(s: unknown): s is StateView {
  return typeof s === "object" && s !== null && typeof (s as StateView).hasEntity === "function" && typeof (s as StateView).slot === "function";
}

/** Unknown keys are typos (`polcy`, `threshold`): refused, never ignored. */
function checkKeys(obj: object, known: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new GuardError("invalid-config", `unknown option \`${where}${k}\``, `the options are ${known.join(", ")}`);
  }
}

function isProjectionRules(r: unknown): r is ProjectionRules {
  const x = r as Partial<ProjectionRules> | null;
  return typeof x === "object" && x !== null && x.tools instanceof Map && x.actions instanceof Map && x.entities instanceof Map && x.documents instanceof Map;
}

function checkConfig(cfg: GuardConfig): void {
  checkKeys(cfg, CONFIG_KEYS, "config.");
  if (cfg.log !== undefined && (typeof cfg.log !== "object" || cfg.log === null || typeof cfg.log.append !== "function")) {
    throw new GuardError("invalid-config", "`config.log` is not an AuditSink (an object with `append(decision)`)", "use `createJsonlSink(write)` or `createMemorySink()`");
  }
  if (cfg.projection !== undefined && !isProjectionRules(cfg.projection)) {
    throw new GuardError("invalid-config", "`config.projection` is not parsed projection rules", "pass `parseProjectionRules(json)`, not the JSON itself");
  }
  for (const [name, v, fn] of [["requestClassifier", cfg.requestClassifier, "classify"], ["intentParser", cfg.intentParser, "parse"]] as const) {
    if (v === undefined) continue;
    const c = v as unknown as Record<string, unknown> | null;
    if (typeof c !== "object" || c === null || typeof c.id !== "string" || typeof c[fn] !== "function") {
      throw new GuardError("invalid-config", `\`config.${name}\` needs an \`id\` and a \`${fn}\` function`);
    }
  }
}

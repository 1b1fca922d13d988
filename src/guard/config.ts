// The guard's configuration: defaults, ablation switches from an injectable environment reader, and
// the canonical, hashable record of the effective configuration that every decision carries.
//
// Precedence: an explicit config field wins over the environment; the environment only fills fields
// the config leaves unset. Code that states a value means it; the environment is for flipping an
// ablation without a code change (the paper's POLAR_ABLATION_TIERS / POLAR_DISABLE_FAIL_CLOSED).
import { MAX_CALLS } from "../abi.js";
import { numberToFixed, timeToFixed } from "../core/values.js";
import type { TierName } from "../core/types.js";
import { canonicalJson } from "../projection/canonical.js";
import { sha256Hex, toHex } from "../util/sha256.js";
import type { Sha256 } from "../blob/decode.js";
import { GuardError } from "./errors.js";

export type EnvReader = (name: string) => string | undefined;
export type Scope = "turn" | "session";
/** Which user messages may carry consent (docs/guard.md, "Consent"): `question` (default) only an
 * answer to the guard's own question about this exact call; `recent-messages` (the paper's, for the
 * offline replay) an affirmative among the last three user messages that answers an assistant message
 * naming this call. */
export type ConsentMode = "question" | "recent-messages";
export const CONSENT_MODES: readonly ConsentMode[] = ["question", "recent-messages"];

/** The part of the configuration that decides verdicts; recorded in every decision and hashed. */
export interface EffectiveConfig {
  tau: number;
  tiers: TierName[];
  failClosed: boolean;
  now: string | number;
  maxDepth: number;
  maxNodes: number;
  scope: Scope;
  policy: string;
  consentDetector: string;
  requestClassifier: string | null;
  intentParser: string | null;
  consent: ConsentMode;
  /** docs/semantics.md, "Amounts": the largest money a step or π may state (currency units); absent:
   * amounts do not decide admissibility (they are only reported). Absent from the record when unset. */
  maxAmount?: number;
}

export const DEFAULT_TAU = 0.8;
export const DEFAULT_TIERS: readonly TierName[] = ["T1", "T2", "T3"];
export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_MAX_NODES = 100_000;
/** τ²-bench's fixed clock; a guard with no `now` uses it so verdicts never depend on the wall clock. */
export const DEFAULT_NOW = "2024-05-15T15:00:00";

const TIER_ORDER: readonly TierName[] = ["T1", "T2", "T3", "T4", "T5"];

export function parseTiers(text: string, where: string): TierName[] {
  const names = text.split(",").map((s) => s.trim().toUpperCase()).filter((s) => s !== "");
  for (const n of names) {
    if (!TIER_ORDER.includes(n as TierName)) {
      throw new GuardError("invalid-config", `${where}: unknown tier \`${n}\``, "tiers are T1, T2, T3, T4, T5, comma separated");
    }
  }
  return normalizeTiers(names as TierName[]);
}

function normalizeTiers(tiers: readonly TierName[]): TierName[] {
  return TIER_ORDER.filter((t) => tiers.includes(t));
}

function parseFlag(text: string, where: string): boolean {
  const t = text.trim().toLowerCase();
  if (t === "1" || t === "true" || t === "yes" || t === "on") return true;
  if (t === "0" || t === "false" || t === "no" || t === "off" || t === "") return false;
  throw new GuardError("invalid-config", `${where}: \`${text}\` is not a boolean`, "use 1 or 0");
}

export interface VerdictSettings {
  tau?: number;
  tiers?: TierName[];
  failClosed?: boolean;
  now?: string | number | Date;
  maxDepth?: number;
  maxNodes?: number;
  /** The largest |amount| a step or the whole π may state (docs/semantics.md, "Amounts"). */
  maxAmount?: number;
}

export interface ResolveInput extends VerdictSettings {
  scope: Scope;
  policy: string;
  consentDetector: string;
  requestClassifier: string | null;
  intentParser: string | null;
  consent?: ConsentMode;
  env?: EnvReader;
}

/** The environment reader, with a reader that throws or answers a non-string made a typed error. */
function safeEnv(env: EnvReader | undefined): EnvReader {
  if (env === undefined) return () => undefined;
  if (typeof env !== "function") throw new GuardError("invalid-config", "`config.env` is not a function", "pass `(name) => process.env[name]` or nothing");
  return (name) => {
    let v: unknown;
    try {
      v = env(name);
    } catch (e) {
      throw new GuardError("invalid-config", `\`config.env\` threw reading \`${name}\`: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
    }
    if (v !== undefined && typeof v !== "string") throw new GuardError("invalid-config", `\`config.env\` answered a ${typeof v} for \`${name}\`, not a string`);
    return v;
  };
}

function checkConsentMode(v: unknown): ConsentMode {
  if (!CONSENT_MODES.includes(v as ConsentMode)) {
    throw new GuardError("invalid-config", `consent mode \`${String(v)}\` is unknown`, "use `question` (default) or `recent-messages`");
  }
  return v as ConsentMode;
}

function checkTau(tau: unknown): number {
  if (typeof tau !== "number" || !(tau >= 0 && tau <= 1) || numberToFixed(tau) === null) {
    throw new GuardError("invalid-config", `tau \`${String(tau)}\` is not a number in [0, 1]`);
  }
  return tau;
}

function checkInt(name: string, v: unknown, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
    throw new GuardError("invalid-config", `${name} \`${String(v)}\` is not an integer in [0, ${max}]`);
  }
  return v;
}

function checkNow(now: unknown): string | number {
  const value = now instanceof Date ? (Number.isNaN(now.getTime()) ? null : now.toISOString()) : now;
  if ((typeof value !== "string" && typeof value !== "number") || timeToFixed(value) === null) {
    throw new GuardError("invalid-config", `now \`${String(now)}\` is not a valid time`, "use an ISO-8601 string, a Date or epoch milliseconds");
  }
  return value;
}

/** The effective configuration: config fields, then the environment, then defaults. */
export function resolveConfig(input: ResolveInput): EffectiveConfig {
  const env = safeEnv(input.env);
  let tiers: TierName[];
  if (input.tiers !== undefined) {
    if (!Array.isArray(input.tiers)) throw new GuardError("invalid-config", "tiers must be an array of tier names");
    tiers = parseTiers(input.tiers.join(","), "config.tiers");
  } else {
    const fromEnv = env("POLAR_ABLATION_TIERS");
    tiers = fromEnv !== undefined && fromEnv.trim() !== "" ? parseTiers(fromEnv, "POLAR_ABLATION_TIERS") : [...DEFAULT_TIERS];
  }
  let failClosed: boolean;
  if (input.failClosed !== undefined) {
    if (typeof input.failClosed !== "boolean") throw new GuardError("invalid-config", "failClosed must be a boolean");
    failClosed = input.failClosed;
  } else {
    const fromEnv = env("POLAR_DISABLE_FAIL_CLOSED");
    failClosed = fromEnv === undefined ? true : !parseFlag(fromEnv, "POLAR_DISABLE_FAIL_CLOSED");
  }
  return {
    tau: checkTau(input.tau ?? DEFAULT_TAU),
    tiers,
    failClosed,
    now: checkNow(input.now ?? DEFAULT_NOW),
    maxDepth: checkInt("maxDepth", input.maxDepth ?? DEFAULT_MAX_DEPTH, MAX_CALLS),
    maxNodes: checkInt("maxNodes", input.maxNodes ?? DEFAULT_MAX_NODES, 0xffffffff),
    scope: input.scope,
    policy: input.policy,
    consentDetector: input.consentDetector,
    requestClassifier: input.requestClassifier,
    intentParser: input.intentParser,
    consent: checkConsentMode(input.consent ?? "question"),
    ...(input.maxAmount === undefined ? {} : { maxAmount: checkMaxAmount(input.maxAmount) }),
  };
}

function checkMaxAmount(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1e12) {
    throw new GuardError("invalid-config", `maxAmount \`${String(v)}\` is not an amount`, "a number of currency units, 0 or more (at most 1e12)");
  }
  return v;
}

/** SHA-256 of the canonical JSON of the effective configuration. */
/** SHA-256 of the configuration's canonical JSON; `hash` is an injected SHA-256 (the guard's
 * `config.sha256`: a cold JavaScript digest is a measurable part of createGuard). */
export function configHash(config: EffectiveConfig, hash?: Sha256): string {
  const text = canonicalJson(config);
  return hash === undefined ? sha256Hex(text) : toHex(hash(text));
}

const tauCache = new WeakMap<EffectiveConfig, number>();

/** τ as fixed point (it passed checkTau, so it converts); cached per (frozen) configuration. */
export function tauFixed(config: EffectiveConfig): number {
  let t = tauCache.get(config);
  if (t === undefined) {
    t = Number(numberToFixed(config.tau));
    tauCache.set(config, t);
  }
  return t;
}

// src/guard/options.ts on its own: createGuard's options → the resolved configuration. Every wrong
// option is a typed GuardError (never a default), checked in a fixed order; the result is frozen and hashed.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resolveOptions, loadOntology } from "../../src/guard/options.js";
import { configHash, type GuardOptions } from "../../src/guard/index.js";
import { GuardError } from "../../src/guard/errors.js";
import { LayerB } from "../../src/projection/layer-b.js";
import { defaultConsentDetector } from "../../src/policies/consent.js";
import { vetoPolicy } from "../../src/policies/veto.js";
import { airline, airlineRules, airlineState, NOW } from "./helpers.js";

const base = (): GuardOptions => ({ ontology: airline.blob, state: airlineState(), config: { now: NOW } });

function error(f: () => unknown): GuardError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(GuardError);
    return e as GuardError;
  }
  throw new Error("no error");
}

describe("resolveOptions", () => {
  it("resolves the defaults: turn scope, the veto policy, the default detector, question consent; frozen and hashed", () => {
    const o = resolveOptions(base());
    expect(o.scope).toBe("turn");
    expect(o.policy).toBe(vetoPolicy);
    expect(o.detector).toBe(defaultConsentDetector);
    expect(o.config.consent).toBe("question");
    expect(o.config.now).toBe(NOW);
    expect(Object.isFrozen(o.config)).toBe(true);
    expect(Object.isFrozen(o.config.tiers)).toBe(true);
    expect(o.configHash).toBe(configHash(o.config));
    expect(o.blob).toBe(airline.blob);
    expect(o.ontologyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(o.backend).toBeUndefined();
    expect(o.sha256).toBeUndefined();
  });

  it("keeps what the caller gave: state, config components, backend, scope, policy by name", () => {
    const state = airlineState();
    const log = { append: () => {} };
    const backend = () => {
      throw new Error("not built here");
    };
    const o = resolveOptions({ ontology: airline.blob, state, scope: "session", policy: "escalate", backend, config: { now: NOW, log, projection: airlineRules, consent: "recent-messages" } });
    expect(o.state).toBe(state);
    expect(o.cfg.log).toBe(log);
    expect(o.backend).toBe(backend);
    expect(o.scope).toBe("session");
    expect(o.policy.name).toBe("escalate");
    expect(o.config.consent).toBe("recent-messages");
    expect(o.config.scope).toBe("session");
    expect(o.config.policy).toBe("escalate");
  });

  it("a different configuration has a different hash", () => {
    expect(resolveOptions({ ...base(), config: { now: NOW, tau: 0.5 } }).configHash).not.toBe(resolveOptions(base()).configHash);
  });

  it.each<[string, () => GuardOptions, string, RegExp]>([
    ["no options object", () => null as never, "invalid-config", /options object/],
    ["an unknown option", () => ({ ...base(), polcy: "veto" }) as never, "invalid-config", /unknown option `polcy`/],
    ["config not an object", () => ({ ...base(), config: 3 }) as never, "invalid-config", /`config` is not an object/],
    ["an unknown config key", () => ({ ...base(), config: { threshold: 1 } }) as never, "invalid-config", /unknown option `config.threshold`/],
    ["a log without append", () => ({ ...base(), config: { log: {} } }) as never, "invalid-config", /AuditSink/],
    ["projection as JSON", () => ({ ...base(), config: { projection: { tools: {} } } }) as never, "invalid-config", /not parsed projection rules/],
    ["a classifier without classify", () => ({ ...base(), config: { requestClassifier: { id: "c" } } }) as never, "invalid-config", /requestClassifier/],
    ["an intent parser without id", () => ({ ...base(), config: { intentParser: { parse: () => null } } }) as never, "invalid-config", /intentParser/],
    ["sha256 not a function", () => ({ ...base(), config: { sha256: "x" } }) as never, "invalid-config", /sha256/],
    ["a corrupted blob", () => ({ ...base(), ontology: new Uint8Array([1, 2, 3]) }), "invalid-ontology", /refused/],
    ["an ontology of the wrong shape", () => ({ ...base(), ontology: { tables: airline.tables } }) as never, "invalid-ontology", /neither a blob/],
    ["a state that is not a StateView", () => ({ ...base(), state: {} }) as never, "invalid-state", /StateView/],
    ["projection without a LayerB", () => ({ ...base(), state: { hasEntity: () => false, slot: () => undefined }, config: { projection: airlineRules } }), "invalid-config", /needs `state` to be a LayerB/],
    ["an unknown policy", () => ({ ...base(), policy: "lenient" }) as never, "invalid-config", /unknown policy/],
    ["a custom policy named like a built-in", () => ({ ...base(), policy: { name: "veto", decide: vetoPolicy.decide } }), "invalid-config", /cannot be named `veto`/],
    ["an unknown scope", () => ({ ...base(), scope: "day" }) as never, "invalid-config", /unknown scope/],
    ["a detector without detect", () => ({ ...base(), config: { consentDetector: { id: "d" } } }) as never, "invalid-config", /consentDetector/],
    ["a tau out of range", () => ({ ...base(), config: { tau: 2 } }), "invalid-config", /tau/],
  ])("refuses %s", (_what, options, code, message) => {
    const e = error(() => resolveOptions(options()));
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it("checks in order: a bad config key is reported before a bad ontology and state", () => {
    const e = error(() => resolveOptions({ ontology: new Uint8Array([1]), state: {} as never, config: { nope: 1 } as never }));
    expect(e.message).toMatch(/config.nope/);
    expect(error(() => resolveOptions({ ontology: new Uint8Array([1]), state: {} as never })).code).toBe("invalid-ontology");
  });

  it("passes the injected sha256 to the blob check and the configuration hash", () => {
    let calls = 0;
    const sha = (d: Uint8Array | string) => {
      calls++;
      return createHash("sha256").update(d).digest();
    };
    const o = resolveOptions({ ...base(), config: { now: NOW, sha256: sha as never } });
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(o.sha256).toBe(sha);
    expect(o.configHash).toBe(configHash(o.config));
    const other = (d: Uint8Array | string) => (typeof d === "string" ? new Uint8Array(32).fill(1) : createHash("sha256").update(d).digest());
    expect(resolveOptions({ ...base(), config: { now: NOW, sha256: other as never } }).configHash).toBe("01".repeat(32));
  });
});

describe("loadOntology", () => {
  it("takes tables with their hash as given, and a blob with its digest", () => {
    const t = loadOntology({ tables: airline.tables, hash: "h" }, undefined);
    expect(t).toEqual({ tables: airline.tables, hash: "h", blob: null });
    expect(loadOntology(airline.blob, undefined).blob).toBe(airline.blob);
    expect(() => loadOntology({ tables: airline.tables, hash: "" } as never, undefined)).toThrow(/neither a blob/);
    expect(() => loadOntology(new LayerB() as never, undefined)).toThrow(/neither a blob/);
  });
});

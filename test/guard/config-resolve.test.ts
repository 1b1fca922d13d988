// The effective configuration: defaults, an explicit field over the environment, the environment over
// defaults, and a typed invalid-config error (with the bad value in backticks) for anything else.
import { describe, expect, it } from "vitest";
import { configHash, DEFAULT_NOW, resolveConfig, tauFixed, type ResolveInput } from "../../src/guard/config.js";
import { GuardError } from "../../src/guard/errors.js";

const base: ResolveInput = { scope: "turn", policy: "veto", consentDetector: "det@1", requestClassifier: null, intentParser: null };
const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

function configError(input: Partial<ResolveInput>): GuardError {
  try {
    resolveConfig({ ...base, ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(GuardError);
    expect((e as GuardError).code).toBe("invalid-config");
    return e as GuardError;
  }
  throw new Error("expected an invalid-config error");
}

describe("resolveConfig", () => {
  it("fills every verdict setting with its default", () => {
    expect(resolveConfig(base)).toEqual({
      tau: 0.8, tiers: ["T1", "T2", "T3"], failClosed: true, now: DEFAULT_NOW, maxDepth: 64, maxNodes: 100_000,
      scope: "turn", policy: "veto", consentDetector: "det@1", requestClassifier: null, intentParser: null, consent: "question",
    });
  });

  it("tiers: case and spaces ignored, duplicates dropped, in tier order; an empty list disables all", () => {
    expect(resolveConfig({ ...base, tiers: ["t3", " T1 ", "T3"] as never }).tiers).toEqual(["T1", "T3"]);
    expect(resolveConfig({ ...base, tiers: [] }).tiers).toEqual([]);
    expect(resolveConfig({ ...base, tiers: ["T5", "T4"] }).tiers).toEqual(["T4", "T5"]);
  });

  it("tiers from POLAR_ABLATION_TIERS only when the config sets none; blank means the default", () => {
    expect(resolveConfig({ ...base, env: envOf({ POLAR_ABLATION_TIERS: "T1, t3" }) }).tiers).toEqual(["T1", "T3"]);
    expect(resolveConfig({ ...base, env: envOf({ POLAR_ABLATION_TIERS: "  " }) }).tiers).toEqual(["T1", "T2", "T3"]);
    expect(resolveConfig({ ...base, tiers: ["T2"], env: envOf({ POLAR_ABLATION_TIERS: "T1" }) }).tiers).toEqual(["T2"]);
  });

  it("failClosed from POLAR_DISABLE_FAIL_CLOSED only when the config sets none", () => {
    for (const v of ["1", "true", "YES", " on "]) expect(resolveConfig({ ...base, env: envOf({ POLAR_DISABLE_FAIL_CLOSED: v }) }).failClosed).toBe(false);
    for (const v of ["0", "false", "No", "off", ""]) expect(resolveConfig({ ...base, env: envOf({ POLAR_DISABLE_FAIL_CLOSED: v }) }).failClosed).toBe(true);
    expect(resolveConfig({ ...base, failClosed: true, env: envOf({ POLAR_DISABLE_FAIL_CLOSED: "1" }) }).failClosed).toBe(true);
    expect(resolveConfig({ ...base, failClosed: false }).failClosed).toBe(false);
  });

  it.each<[string, Partial<ResolveInput>, string, string | undefined]>([
    ["an unknown tier", { tiers: ["T1", "T6"] as never }, "config.tiers: unknown tier `T6`", "tiers are T1, T2, T3, T4, T5, comma separated"],
    ["tiers that are not a list", { tiers: "T1" as never }, "tiers must be an array of tier names", undefined],
    ["an unknown tier in the environment", { env: envOf({ POLAR_ABLATION_TIERS: "T1,X" }) }, "POLAR_ABLATION_TIERS: unknown tier `X`", "tiers are T1, T2, T3, T4, T5, comma separated"],
    ["a failClosed that is not a boolean", { failClosed: "no" as never }, "failClosed must be a boolean", undefined],
    ["a flag that is not a boolean", { env: envOf({ POLAR_DISABLE_FAIL_CLOSED: "maybe" }) }, "POLAR_DISABLE_FAIL_CLOSED: `maybe` is not a boolean", "use 1 or 0"],
    ["τ below 0", { tau: -0.01 }, "tau `-0.01` is not a number in [0, 1]", undefined],
    ["τ above 1", { tau: 1.01 }, "tau `1.01` is not a number in [0, 1]", undefined],
    ["τ NaN", { tau: NaN }, "tau `NaN` is not a number in [0, 1]", undefined],
    ["τ as text", { tau: "0.5" as never }, "tau `0.5` is not a number in [0, 1]", undefined],
    ["maxDepth past MAX_CALLS", { maxDepth: 257 }, "maxDepth `257` is not an integer in [0, 256]", undefined],
    ["a negative maxDepth", { maxDepth: -1 }, "maxDepth `-1` is not an integer in [0, 256]", undefined],
    ["a fractional maxDepth", { maxDepth: 1.5 }, "maxDepth `1.5` is not an integer in [0, 256]", undefined],
    ["maxDepth as text", { maxDepth: "3" as never }, "maxDepth `3` is not an integer in [0, 256]", undefined],
    ["maxNodes past u32", { maxNodes: 2 ** 32 }, "maxNodes `4294967296` is not an integer in [0, 4294967295]", undefined],
    ["an invalid Date", { now: new Date(NaN) }, "now `Invalid Date` is not a valid time", "use an ISO-8601 string, a Date or epoch milliseconds"],
    ["a time that is not one", { now: "yesterday" }, "now `yesterday` is not a valid time", "use an ISO-8601 string, a Date or epoch milliseconds"],
    ["an unknown consent mode", { consent: "always" as never }, "consent mode `always` is unknown", "use `question` (default) or `recent-messages`"],
    ["an environment reader that is not a function", { env: "POLAR" as never }, "`config.env` is not a function", "pass `(name) => process.env[name]` or nothing"],
    ["an environment reader that throws", { env: () => { throw new Error("denied"); } }, "`config.env` threw reading `POLAR_ABLATION_TIERS`: denied", undefined],
    ["an environment reader that answers a number", { env: (() => 1) as never }, "`config.env` answered a number for `POLAR_ABLATION_TIERS`, not a string", undefined],
    ["a time that is an object", { now: {} as never }, "now `[object Object]` is not a valid time", "use an ISO-8601 string, a Date or epoch milliseconds"],
  ])("refuses %s", (_what, input, message, help) => {
    const e = configError(input);
    expect(e.message).toBe(message);
    expect(e.help).toBe(help);
  });

  it("an environment reader's own error is kept as the cause", () => {
    const denied = new Error("denied");
    expect(configError({ env: () => { throw denied; } }).cause).toBe(denied);
  });

  it("accepts the bounds of every range", () => {
    expect(resolveConfig({ ...base, tau: 0, maxDepth: 0, maxNodes: 0 })).toMatchObject({ tau: 0, maxDepth: 0, maxNodes: 0 });
    expect(resolveConfig({ ...base, tau: 1, maxDepth: 256, maxNodes: 0xffffffff })).toMatchObject({ tau: 1, maxDepth: 256, maxNodes: 0xffffffff });
  });

  it("a Date becomes its ISO text; epoch milliseconds and ISO text stay as given", () => {
    expect(resolveConfig({ ...base, now: new Date(0) }).now).toBe("1970-01-01T00:00:00.000Z");
    expect(resolveConfig({ ...base, now: 86_400_000 }).now).toBe(86_400_000);
    expect(resolveConfig({ ...base, now: "2024-05-15" }).now).toBe("2024-05-15");
  });
});

describe("configHash and tauFixed", () => {
  it("the hash is of the whole effective configuration: any field changes it, equal configs agree", () => {
    const a = resolveConfig(base);
    expect(configHash(resolveConfig(base))).toBe(configHash(a));
    expect(configHash(a)).toMatch(/^[0-9a-f]{64}$/);
    for (const over of [{ consent: "recent-messages" as const }, { tau: 0.7 }, { tiers: ["T1"] as never }, { failClosed: false }, { scope: "session" as const }, { policy: "escalate" }, { consentDetector: "x" }]) {
      expect(configHash(resolveConfig({ ...base, ...over }))).not.toBe(configHash(a));
    }
  });

  it("τ in fixed point, the same on every call", () => {
    const c = resolveConfig({ ...base, tau: 0.855 });
    expect(tauFixed(c)).toBe(855_000);
    expect(tauFixed(c)).toBe(855_000);
    expect(tauFixed(resolveConfig({ ...base, tau: 1 }))).toBe(1_000_000);
  });
});

describe("resolveConfig: maxAmount (docs/semantics.md, \"Amounts\")", () => {
  it("unset: absent from the effective configuration, so existing configurations keep their hash", () => {
    const c = resolveConfig(base);
    expect("maxAmount" in c).toBe(false);
    expect(configHash(c)).toBe(configHash(resolveConfig({ ...base, maxAmount: undefined })));
  });

  it("a number of currency units from 0 to 1e12 is kept as given and enters the hash", () => {
    expect(resolveConfig({ ...base, maxAmount: 0 }).maxAmount).toBe(0);
    expect(resolveConfig({ ...base, maxAmount: 250.5 }).maxAmount).toBe(250.5);
    expect(resolveConfig({ ...base, maxAmount: 1e12 }).maxAmount).toBe(1e12);
    expect(configHash(resolveConfig({ ...base, maxAmount: 100 }))).not.toBe(configHash(resolveConfig(base)));
    expect(configHash(resolveConfig({ ...base, maxAmount: 100 }))).not.toBe(configHash(resolveConfig({ ...base, maxAmount: 101 })));
  });

  it.each([["-1", -1], ["-0.01", -0.01], ["1e12 + 1", 1e12 + 1], ["NaN", Number.NaN], ["Infinity", Number.POSITIVE_INFINITY], ["a string", "100"], ["null", null], ["an object", {}]])(
    "%s is refused with invalid-config naming the value",
    (_label, v) => {
      const e = configError({ maxAmount: v as never });
      expect(e.message).toContain("maxAmount");
      expect(e.message).toContain(`\`${String(v)}\``);
    },
  );
});

// The domains this Worker serves: a compiled ontology (Layer A, imported as a Data module) and the
// declarative projection rules that build and update Layer B. Add a domain by adding a line here.
//
// Everything that is the same for every request of an isolate is done here, at module scope, once:
// the core is instantiated from its imported module, each blob is validated and hashed
// (prepareOntologyAsync: its digests by WebCrypto, awaited at module scope), the projection rules are
// parsed, and a tiny warm-up session runs the session path once (warmup.ts). Workers give module scope
// a startup budget (1 s) apart from a request's CPU limit, so a request, and a Durable Object woken
// from storage, pays only for its own verdicts. A failure here is kept and answered as a typed error by every request,
// never swallowed: a Worker whose ontology did not validate approves nothing.
import airlineBlob from "polar-guard/ontologies/airline/airline.blob";
import airlineProjection from "polar-guard/ontologies/airline/projection.json";
import { AIRLINE_WARMUP, warmUp, type WarmUp } from "./warmup.js";
import { loadCore, parseProjectionRules, prepareOntologyAsync } from "polar-guard";
import type { ReadyDomain } from "./build.js";

export interface Domain {
  blob: ArrayBuffer;
  projection: unknown;
  /** A tiny session run once at startup, so the session path's JavaScript is compiled before the
   * first request (warmup.ts); without one, the first session of an isolate runs it cold. */
  warmup?: WarmUp;
}

export const DOMAINS: Record<string, Domain> = {
  airline: { blob: airlineBlob, projection: airlineProjection, warmup: AIRLINE_WARMUP },
};

/** What went wrong while a domain was made ready, kept for the requests that need it. */
export interface StartupFailure {
  code: string;
  message: string;
}

async function prepare(name: string, domain: Domain): Promise<ReadyDomain | StartupFailure> {
  try {
    // One core per domain per isolate: a core holds one ontology, and guards on it share its backend.
    // The workerd entry instantiates synchronously from the imported module, so this runs now.
    const core = loadCore();
    // A rejected core stays observable by the requests that await it; nothing is left unhandled.
    core.catch(() => undefined);
    const ready: ReadyDomain = { core, ontology: await prepareOntologyAsync(domain.blob), projection: parseProjectionRules(domain.projection) };
    try {
      if (domain.warmup !== undefined) await warmUp(name, ready, domain.warmup);
    } catch (err) {
      return { code: "warm-up-failed", message: `the warm-up session failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    return ready;
  } catch (err) {
    const code = typeof (err as { code?: unknown }).code === "string" ? (err as { code: string }).code : "startup-failed";
    return { code, message: err instanceof Error ? err.message : String(err) };
  }
}

export const READY: Record<string, ReadyDomain | StartupFailure> = Object.fromEntries(
  await Promise.all(Object.entries(DOMAINS).map(async ([name, domain]) => [name, await prepare(name, domain)] as const)),
);

export function isReady(d: ReadyDomain | StartupFailure): d is ReadyDomain {
  return "ontology" in d;
}

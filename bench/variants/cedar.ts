// Cedar (@cedar-policy/cedar-wasm, pre-parsed policy set, statefulIsAuthorized) deciding the airline
// calls with the policy derived from the ontology (bench/lib/cedar.ts). A sequence of n calls is n
// authorizations (Cedar has no notion of a sequence: allowed when every call is). Two figures: with
// the requests built beforehand (Cedar alone, its most favourable case) and with the context built
// from Layer B per call. Agreement with the reverse search is counted on every benchmarked case.
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import { FIXED_ONE } from "../../src/abi.js";
import type { ExecutedCall } from "../../src/core/types.js";
import { createVerifier } from "../../src/core/verifier.js";
import { AIRLINE_NOW, lengthsFor, loadAirline, sequence, type HistoryKind } from "../lib/airline.js";
import { cedarPolicies, createRequestBuilder, type CedarRequest } from "../lib/cedar.js";
import { params, progress, report, fail } from "../lib/child.js";
import { backendOf } from "../lib/engines.js";
import { consume, measure, type Figure } from "../lib/stats.js";

interface Params {
  lengths: number[];
  histories: HistoryKind[];
}

const SEQUENCES = 64;
const POLICY_SET = "airline";
const TAU = 0.8;

function authorize(r: CedarRequest): boolean {
  const answer = cedar.statefulIsAuthorized({ ...r, preparsedPolicySetId: POLICY_SET, entities: [] });
  if (answer.type !== "success") throw new Error(`cedar failed: ${answer.errors.map((e) => e.message).join("; ")}`);
  return answer.response.decision === "allow";
}

function main(): void {
  const p = params<Params>();
  progress("loading the airline state");
  const f = loadAirline();
  const policies = cedarPolicies(f.tables, TAU * FIXED_ONE);
  const parsed = cedar.preparsePolicySet(POLICY_SET, { staticPolicies: policies });
  if (parsed.type !== "success") throw new Error(`cedar refused the policy set: ${parsed.errors.map((e) => e.message).join("; ")}`);
  const build = createRequestBuilder(f.tables, AIRLINE_NOW);
  const verifier = createVerifier(f.tables, backendOf("wasm", f.tables, f.blob), { now: AIRLINE_NOW, tau: TAU });

  const figures: Record<string, Record<string, Figure>> = {};
  /** Lengths the db cannot build, with the reason (never silently shorter sequences). */
  const skipped: string[] = [];
  const withContext: Record<string, Record<string, Figure>> = {};
  const agreement: Record<string, { agree: number; total: number; disagreements: string[] }> = {};
  for (const kind of p.histories) {
    figures[kind] = {};
    withContext[kind] = {};
    const usable = lengthsFor(f, p.lengths, kind);
    skipped.push(...usable.skipped);
    for (const n of usable.lengths) {
      progress(`cedar ${kind} n=${n}`);
      const seqs: ExecutedCall[][] = [];
      for (let k = 0; k < SEQUENCES; k++) seqs.push(sequence(f, n, k, kind));
      const requests = seqs.map((s) => s.map((c) => build(c, f.state)));
      // Agreement: Cedar allows every call ⇔ the search finds an admissible inverse sequence.
      const a = { agree: 0, total: 0, disagreements: [] as string[] };
      for (let k = 0; k < SEQUENCES; k++) {
        const allowed = requests[k].every(authorize);
        const v = verifier.verdict(seqs[k], f.state);
        const admissible = v.complete && v.reason === "ok";
        a.total++;
        if (allowed === admissible) a.agree++;
        else if (a.disagreements.length < 5) a.disagreements.push(`${seqs[k][seqs[k].length - 1].name}: cedar ${allowed ? "allow" : "deny"}, search ${v.reason}`);
      }
      agreement[`${kind}/${n}`] = a;
      figures[kind][String(n)] = measure((i) => {
        const rs = requests[i & (SEQUENCES - 1)];
        let allow = true;
        for (let j = 0; j < rs.length; j++) allow = authorize(rs[j]) && allow;
        consume(allow ? 1 : 2);
      }, p.timing);
      withContext[kind][String(n)] = measure((i) => {
        const s = seqs[i & (SEQUENCES - 1)];
        let allow = true;
        for (let j = 0; j < s.length; j++) allow = authorize(build(s[j], f.state)) && allow;
        consume(allow ? 1 : 2);
      }, p.timing);
    }
  }
  report({ variant: "cedar", engine: "cedar", backend: "cedar-wasm", cedarVersion: cedar.getCedarVersion(), dbSource: f.dbSource, sequences: SEQUENCES, skipped, figures, withContext, agreement, policies });
}

try {
  main();
} catch (e) {
  fail(e);
}

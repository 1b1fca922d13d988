// The conformance corpus as one runtime sees it: every case's verdict through the package's public
// API (imported by name), reported as the hex of the canonical output bytes. The same file runs in
// Node, in Chromium (through an import map) and in workerd (bundled by wrangler), so the only thing
// that differs between the three runs is the runtime entry the "polar-guard" name resolves to.
import { LayerB, loadVerifier } from "polar-guard";

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The verdict fields the corpus states by hand (test/conformance/conformance.test.ts compares the same). */
function observed(v) {
  return {
    reason: v.reason,
    complete: v.complete,
    phi: v.phi,
    loss: v.loss,
    nodes: v.nodes,
    steps: v.steps.map((s) => ({ call: s.call, tool: s.tool, tier: s.tier, annotation: s.annotation, arguments: s.arguments })),
    bottleneck: { call: v.bottleneck.call, tool: v.bottleneck.tool, reason: v.bottleneck.reason, annotation: v.bottleneck.annotation },
  };
}

/** input: { ontologies: { key: base64 blob }, cases: [{ name, ontology (a key), state, forward, options }] } */
export async function runConformance(input) {
  const verifiers = {};
  for (const [name, blob] of Object.entries(input.ontologies)) {
    verifiers[name] = await loadVerifier({ blob: fromBase64(blob) });
  }
  return input.cases.map((c) => {
    try {
      const verdict = verifiers[c.ontology].verdict(c.forward, LayerB.fromJSON(c.state), c.options ?? {});
      return { name: c.name, verdict: observed(verdict), hex: hex(verdict.bytes) };
    } catch (err) {
      return { name: c.name, error: err && err.code ? err.code : String(err) };
    }
  });
}

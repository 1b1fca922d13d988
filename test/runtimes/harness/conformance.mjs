// The conformance corpus as one runtime sees it: every case's verdict through the package's public
// API (imported by name), reported as the hex of the canonical output bytes. The same file runs in
// Node, in Chromium (through an import map) and in workerd (bundled by wrangler), so the only thing
// that differs between the three runs is the runtime entry the "polar-guard" name resolves to.
import { LayerB, loadVerifier } from "polar-guard";

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** input: { ontologies: { name: base64 blob }, cases: [{ name, ontology, state, forward, options }] } */
export async function runConformance(input) {
  const verifiers = {};
  for (const [name, blob] of Object.entries(input.ontologies)) {
    verifiers[name] = await loadVerifier({ blob: fromBase64(blob) });
  }
  return input.cases.map((c) => {
    try {
      const verdict = verifiers[c.ontology].verdict(c.forward, LayerB.fromJSON(c.state), c.options ?? {});
      return { name: c.name, reason: verdict.reason, phi: verdict.phi, hex: hex(verdict.bytes) };
    } catch (err) {
      return { name: c.name, error: err && err.code ? err.code : String(err) };
    }
  });
}

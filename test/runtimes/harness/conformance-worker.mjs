// workerd side of the cross-runtime conformance run: bundled by wrangler, which resolves "polar-guard"
// with the workerd condition and uploads the core .wasm as a compiled module.
import input from "./input.json";
import { runConformance } from "./conformance.mjs";

export default {
  async fetch() {
    try {
      return Response.json({ ok: true, results: await runConformance(input) });
    } catch (err) {
      return Response.json({ ok: false, error: String((err && err.stack) || err) }, { status: 500 });
    }
  },
};

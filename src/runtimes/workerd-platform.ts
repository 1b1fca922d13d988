// How workerd obtains the core and the ontology: the core is a WebAssembly.Module imported from a
// .wasm file (workerd refuses to compile bytes at run time); the ontology comes as bytes (a Data
// module) or from a URL.
import { instantiateCoreSync } from "../core/wasm.js";
import { RuntimeError, fetchOk, toBytes, type Platform } from "../loading/shared.js";

export function workerdPlatform(coreModule: WebAssembly.Module): Platform {
  return {
    name: "workerd",
    async core(wasm, options) {
      if (wasm === undefined) return instantiateCoreSync(coreModule, options);
      if (wasm instanceof WebAssembly.Module) return instantiateCoreSync(wasm, options);
      throw new RuntimeError("unsupported-source", "workerd runs only a WebAssembly.Module imported from a .wasm file as `wasm`", "import the core with `import core from \"polar-guard/polar-core.wasm\"` or omit `wasm`");
    },
    async ontology({ ontologyPath, ontologyUrl }) {
      if (ontologyPath !== undefined) {
        throw new RuntimeError("unsupported-source", "`ontologyPath` needs a file system: Workers have none", "import the blob as a Data module and pass it as `blob`");
      }
      return toBytes(await (await fetchOk(ontologyUrl as string | URL, "ontology")).arrayBuffer());
    },
  };
}

// The fetch-based platform shared by the browser entry and the default (portable) entry.
import { instantiateCore } from "../core/wasm.js";
import { RuntimeError, fetchOk, toBytes, type Platform } from "./shared.js";

export function webPlatform(name: "browser" | "default", packagedCore: () => URL): Platform {
  return {
    name,
    core(wasm, options) {
      if (wasm === undefined) return instantiateCore(fetchOk(packagedCore(), "core"), options);
      if (typeof wasm === "string" || wasm instanceof URL) return instantiateCore(fetchOk(wasm, "core"), options);
      return instantiateCore(wasm, options);
    },
    async ontology({ ontologyPath, ontologyUrl }) {
      if (ontologyPath !== undefined) {
        throw new RuntimeError("unsupported-source", "`ontologyPath` needs a file system: this runtime has none", "pass `blob` or `ontologyUrl`");
      }
      return toBytes(await (await fetchOk(ontologyUrl as string | URL, "ontology")).arrayBuffer());
    },
  };
}

// A `.wasm` import is a compiled WebAssembly.Module in Workers (wrangler's CompiledWasm module rule).
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}

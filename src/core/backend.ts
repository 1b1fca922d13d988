// A search backend runs the reverse search of docs/semantics.md over one input record and fills one
// output record (layouts in src/abi.ts). Two implement it: the WebAssembly core (src/core/wasm.ts) and
// the plain TypeScript reference (src/reference/). Both read the same bytes, so the same input gives
// the same output bytes, which the differential tests check.
export interface SearchBackend {
  readonly kind: "wasm" | "reference";
  /** Where to write the input record (INPUT_SIZE bytes from byteOffset 0 of the view). */
  inputView(): DataView;
  /** Runs one search over the input record; returns the output record (OUTPUT_SIZE bytes). Never throws
   * for a bad record: the status field says what went wrong. May throw only on a trap (wasm). */
  run(): DataView;
}

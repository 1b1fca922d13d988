// `polar-guard/compiler`: the ontology compiler and the blob encoder. Kept out of every runtime entry so
// a guard that only loads precompiled blobs never ships the compiler.
export {
  compile,
  formatDiagnostic,
  type CompileOptions,
  type CompileResult,
  type CompileLimits,
  type Diagnostic,
  type DiagnosticCode,
  type Severity,
} from "../compiler/index.js";
export { encodeBlob, decodeBlob, safeDecodeBlob, blobInfo, blobDigestHex, BlobError } from "../blob/index.js";
export type { OntologyTables, Span } from "../ontology/tables.js";

// The compiled-ontology blob: a versioned, self-describing, canonical binary encoding of OntologyTables
// (layout in src/abi.ts, described in docs/abi.md). encodeBlob writes it; decodeBlob validates every
// byte before anything reads it, so the WebAssembly core can index the tables without bounds checks.
export { BlobError, isBlobError, type BlobErrorCode } from "./errors.js";
export { encodeBlob, type EncodeOptions } from "./encode.js";
export { decodeBlob, safeDecodeBlob, type DecodeOptions, type SafeDecodeResult, type Sha256 } from "./decode.js";
export { blobDigestHex, blobInfo, type BlobInfo, type BlobCounts } from "./info.js";

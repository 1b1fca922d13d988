// The one error type of the blob layer. A blob that is not exactly what this version writes is refused
// with a stable code (docs/abi.md lists them) and the byte offset where the problem was found, so a
// corrupt or hostile file never reaches the WebAssembly core.

export type BlobErrorCode =
  | "blob-truncated"
  | "bad-magic"
  | "abi-version-mismatch"
  | "format-version-mismatch"
  | "length-mismatch"
  | "digest-mismatch"
  | "bad-reserved"
  | "bad-section-table"
  | "section-out-of-range"
  | "bad-padding"
  | "bad-string-pool"
  | "bad-record-size"
  | "index-out-of-range"
  | "duplicate-name"
  | "bad-csr"
  | "bad-enum"
  | "bad-weight"
  | "phi-mismatch"
  | "bad-program"
  | "bad-tier-fields"
  | "bad-tool"
  | "bad-span"
  | "bad-constant"
  | "bad-argmap"
  | "bad-meta"
  | "unencodable"
  | "internal-error";

export class BlobError extends Error {
  override readonly name = "BlobError";
  readonly code: BlobErrorCode;
  /** Byte offset in the blob of the field at fault, when there is one. */
  readonly offset: number | undefined;
  readonly help: string | undefined;

  constructor(code: BlobErrorCode, message: string, offset?: number, help?: string) {
    super(message);
    this.code = code;
    this.offset = offset;
    this.help = help;
  }
}

export function isBlobError(e: unknown): e is BlobError {
  return e instanceof BlobError;
}

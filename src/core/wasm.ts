// The host side of the WebAssembly core: instantiate the module, check its ABI version, copy a blob
// into its linear memory once, and expose it as a SearchBackend whose input and output records are
// views straight into that memory. One wasm call per verdict (verdict()); no copy of the records.
//
// The blob handed to load() must already have passed decodeBlob (src/blob): the core trusts its
// contents and re-checks only what its own memory safety needs (docs/core.md).
import { ABI_VERSION, INPUT_SIZE, OUTPUT_SIZE, Status } from "../abi.js";
import type { SearchBackend } from "./backend.js";

export type CoreErrorCode =
  | "core-abi-mismatch"
  | "core-missing-export"
  | "core-bad-blob"
  | "core-out-of-memory"
  | "core-bad-options"
  | "core-stale-backend"
  | "core-trap";

export class CoreError extends Error {
  override readonly name = "CoreError";
  readonly code: CoreErrorCode;
  readonly help: string | undefined;

  constructor(code: CoreErrorCode, message: string, help?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.help = help;
  }
}

export function isCoreError(e: unknown): e is CoreError {
  return e instanceof CoreError;
}

/** The raw exports of build/polar-core*.wasm (assembly/index.ts). Pointers are byte offsets. */
export interface CoreExports {
  memory: WebAssembly.Memory;
  abi_version(): number;
  input_ptr(): number;
  output_ptr(): number;
  blob_ptr(): number;
  load(blobPtr: number, blobLen: number): number;
  verdict(): number;
}

export interface CoreInstance {
  readonly exports: CoreExports;
  /** Copies a validated blob into the core and returns the backend that searches it. A second load
   * replaces the blob: backends from earlier loads then refuse to run (`core-stale-backend`). */
  load(blob: Uint8Array): SearchBackend;
}

export type CoreSource = WebAssembly.Module | BufferSource | Response | PromiseLike<Response>;

export interface CoreOptions {
  /** Most 64 KiB pages the core's memory may grow to when a blob is loaded (default
   * DEFAULT_MAX_MEMORY_PAGES, 64 MiB; at most 65536, the wasm32 ceiling). A larger blob is refused
   * with `core-out-of-memory` before anything is copied. */
  maxMemoryPages?: number;
}

export const DEFAULT_MAX_MEMORY_PAGES = 1024;
const WASM32_MAX_PAGES = 65536;

const PAGE = 65536;
const FUNCTIONS = ["abi_version", "input_ptr", "output_ptr", "blob_ptr", "load", "verdict"] as const;

/** Only a debug build with assertions imports anything (`env.abort`); a failed assertion is a trap. */
const IMPORTS: WebAssembly.Imports = {
  env: {
    abort(): never {
      throw new WebAssembly.RuntimeError("core assertion failed");
    },
  },
};

const STATUS_NAMES: Record<number, string> = {
  [Status.Ok]: "ok",
  [Status.NotLoaded]: "not_loaded",
  [Status.BadInput]: "bad_input",
  [Status.BadBlob]: "bad_blob",
  [Status.Internal]: "internal",
};

function coreExports(instance: WebAssembly.Instance): CoreExports {
  const ex = instance.exports as Record<string, unknown>;
  for (const name of FUNCTIONS) {
    if (typeof ex[name] !== "function") {
      throw new CoreError("core-missing-export", `the module does not export \`${name}\``, "is this a polar-guard core (build/polar-core.wasm)?");
    }
  }
  if (!(ex.memory instanceof WebAssembly.Memory)) {
    throw new CoreError("core-missing-export", "the module does not export `memory`", "is this a polar-guard core (build/polar-core.wasm)?");
  }
  return ex as unknown as CoreExports;
}

function checkAbi(ex: CoreExports): void {
  const version = ex.abi_version();
  if (version !== ABI_VERSION) {
    throw new CoreError(
      "core-abi-mismatch",
      `core ABI version \`${version}\` does not match the host's \`${ABI_VERSION}\``,
      "build the core and the host from the same commit (npm run build:wasm)",
    );
  }
}

function maxPagesOf(options: CoreOptions | undefined): number {
  const max = options?.maxMemoryPages ?? DEFAULT_MAX_MEMORY_PAGES;
  if (!Number.isInteger(max) || max < 1 || max > WASM32_MAX_PAGES) {
    throw new CoreError("core-bad-options", `maxMemoryPages \`${String(max)}\` is not an integer in [1, ${WASM32_MAX_PAGES}]`);
  }
  return max;
}

/** Grows memory so that [0, end) is addressable, within `maxPages`. */
function ensureMemory(memory: WebAssembly.Memory, end: number, maxPages: number): void {
  const pages = Math.ceil(end / PAGE);
  if (pages > maxPages) {
    throw new CoreError("core-out-of-memory", `the blob needs \`${pages}\` pages of core memory, more than the limit \`${maxPages}\``,
      "raise `maxMemoryPages` when instantiating the core, or split the ontology");
  }
  const have = memory.buffer.byteLength;
  if (end <= have) return;
  try {
    memory.grow(Math.ceil((end - have) / PAGE));
  } catch (cause) {
    throw new CoreError("core-out-of-memory", `cannot grow the core's memory to \`${end}\` bytes`, undefined, { cause });
  }
}

function createInstance(instance: WebAssembly.Instance, options?: CoreOptions): CoreInstance {
  const maxPages = maxPagesOf(options);
  const ex = coreExports(instance);
  checkAbi(ex);
  const inputPtr = ex.input_ptr();
  const outputPtr = ex.output_ptr();
  let generation = 0;

  function load(blob: Uint8Array): SearchBackend {
    const ptr = ex.blob_ptr();
    ensureMemory(ex.memory, ptr + blob.byteLength, maxPages);
    new Uint8Array(ex.memory.buffer, ptr, blob.byteLength).set(blob);
    const status = ex.load(ptr, blob.byteLength);
    generation++;
    if (status !== Status.Ok) {
      throw new CoreError(
        "core-bad-blob",
        `the core refused the blob: status \`${STATUS_NAMES[status] ?? status}\``,
        "load only blobs that decodeBlob accepted, built for this ABI version",
      );
    }
    return backend(generation);
  }

  function backend(mine: number): SearchBackend {
    // Memory only grows inside load(), but any growth detaches the old buffer, so the cached views
    // are re-created whenever the buffer object changes.
    let buffer: ArrayBuffer | null = null;
    let input: DataView | null = null;
    let output: DataView | null = null;
    const views = (): void => {
      const current = ex.memory.buffer as ArrayBuffer;
      if (current === buffer) return;
      buffer = current;
      input = new DataView(current, inputPtr, INPUT_SIZE);
      output = new DataView(current, outputPtr, OUTPUT_SIZE);
    };
    return {
      kind: "wasm",
      inputView(): DataView {
        views();
        return input as DataView;
      },
      run(): DataView {
        if (mine !== generation) {
          throw new CoreError("core-stale-backend", "this backend's blob was replaced by a later load", "use the backend the last load() returned");
        }
        try {
          ex.verdict();
        } catch (cause) {
          throw new CoreError("core-trap", `the core trapped: ${cause instanceof Error ? cause.message : String(cause)}`, undefined, { cause });
        }
        views();
        return output as DataView;
      },
    };
  }

  return { exports: ex, load };
}

function isBufferSource(x: unknown): x is BufferSource {
  return x instanceof ArrayBuffer || ArrayBuffer.isView(x);
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof (x as { then?: unknown } | null)?.then === "function";
}

async function instantiateResponse(response: Response): Promise<WebAssembly.Instance> {
  const streaming = typeof WebAssembly.instantiateStreaming === "function";
  if (streaming && response.headers.get("content-type")?.split(";")[0]?.trim() === "application/wasm") {
    return (await WebAssembly.instantiateStreaming(response, IMPORTS)).instance;
  }
  return (await WebAssembly.instantiate(await response.arrayBuffer(), IMPORTS)).instance;
}

/** Instantiates the core from a compiled module, its bytes, or a fetch Response (browsers). */
export async function instantiateCore(source: CoreSource, options?: CoreOptions): Promise<CoreInstance> {
  maxPagesOf(options); // refuse bad options before compiling anything
  let instance: WebAssembly.Instance;
  if (source instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(source, IMPORTS);
  } else if (isBufferSource(source)) {
    instance = (await WebAssembly.instantiate(source, IMPORTS)).instance;
  } else if (isThenable(source)) {
    instance = await instantiateResponse(await source);
  } else {
    instance = await instantiateResponse(source);
  }
  return createInstance(instance, options);
}

/** Synchronous instantiation: what workerd uses with an imported module (it refuses to compile bytes
 * at run time), and handy in Node for small modules. */
export function instantiateCoreSync(module: WebAssembly.Module | BufferSource, options?: CoreOptions): CoreInstance {
  maxPagesOf(options);
  const compiled = module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module);
  return createInstance(new WebAssembly.Instance(compiled, IMPORTS), options);
}

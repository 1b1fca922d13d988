// The one loader every runtime entry shares. A runtime differs only in how it obtains two things: the
// WebAssembly core (a file in Node, a streamed fetch in browsers, an imported module in Workers) and
// the compiled ontology blob (a file, a URL, or bytes the user imported). Everything after that (blob
// validation, the backend, the verifier, the guard) is the same code in every runtime, so the same
// inputs give the same verdict bytes everywhere.
import type { SearchBackend } from "../core/backend.js";
import { createVerifier, type Verifier, type VerifierOptions } from "../core/verifier.js";
import { CoreError, type CoreInstance, type CoreOptions } from "../core/wasm.js";
import { createGuard, GuardError, type BackendFactory, type Guard, type GuardOptions } from "../guard/index.js";
import { describeError } from "../guard/errors.js";
import { prepareOntology, prepareOntologyAsync, type PreparedOntology } from "../ontology/prepared.js";
import type { Sha256 } from "../blob/index.js";
import type { OntologyTables } from "../ontology/tables.js";

/** Bytes of a compiled ontology (`polar compile`), e.g. a Workers Data module's ArrayBuffer. */
export type BlobSource = ArrayBuffer | ArrayBufferView;

/** Where the core comes from: a compiled module (Workers), bytes, a fetch Response, or a URL. */
export type WasmSource = WebAssembly.Module | BufferSource | Response | PromiseLike<Response> | URL | string;

/** Exactly one of `blob`, `ontologyPath` (Node) or `ontologyUrl` (fetched) names the compiled ontology. */
export interface OntologySource {
  blob?: BlobSource;
  ontologyPath?: string | URL;
  ontologyUrl?: string | URL;
}

/** The core to run on: a ready instance, or a source for a new one; default: the packaged core. */
export interface CoreInput {
  core?: CoreInstance;
  wasm?: WasmSource;
  /** How the core is instantiated when `core` is not given (e.g. `maxMemoryPages`, default 1024). */
  coreOptions?: CoreOptions;
}

export type LoadVerifierOptions = OntologySource & CoreInput & { verifier?: VerifierOptions };
export type LoadGuardOptions = OntologySource & CoreInput & Omit<GuardOptions, "ontology" | "backend" | "core">;

export type RuntimeErrorCode =
  | "ontology-missing"
  | "ontology-ambiguous"
  | "ontology-unreadable"
  | "core-unavailable"
  | "unsupported-source";

/** A failure to obtain the core or the ontology in this runtime; blob and core errors keep their own types. */
export class RuntimeError extends Error {
  override readonly name = "RuntimeError";
  readonly code: RuntimeErrorCode;
  readonly help: string | undefined;
  constructor(code: RuntimeErrorCode, message: string, help?: string) {
    super(message);
    this.code = code;
    this.help = help;
  }
}

/** What a runtime entry supplies: how to get the core and the ontology bytes there. */
export interface Platform {
  readonly name: "node" | "browser" | "workerd" | "default";
  core(wasm: WasmSource | undefined, options?: CoreOptions): Promise<CoreInstance>;
  /** Reads `ontologyPath` / `ontologyUrl`; `blob` never reaches the platform. */
  ontology(input: OntologySource): Promise<Uint8Array>;
  /** A native SHA-256 where the runtime has a synchronous one (Node); the JavaScript one otherwise. */
  readonly sha256?: Sha256;
}

/** A loaded ontology on a core: the validated tables and a backend holding the blob. */
export interface LoadedOntology {
  blob: Uint8Array;
  tables: OntologyTables;
  backend: SearchBackend;
}

export function toBytes(source: BlobSource): Uint8Array {
  if (source instanceof Uint8Array) return source;
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  throw new RuntimeError("unsupported-source", "the ontology `blob` is not an ArrayBuffer or a typed array");
}

async function ontologyBytes(platform: Platform, input: OntologySource): Promise<Uint8Array> {
  const given = [input.blob, input.ontologyPath, input.ontologyUrl].filter((v) => v !== undefined).length;
  if (given === 0) {
    throw new RuntimeError(
      "ontology-missing",
      "no ontology given",
      "pass `blob` (the bytes of a compiled ontology), `ontologyPath` (Node) or `ontologyUrl`",
    );
  }
  if (given > 1) {
    throw new RuntimeError("ontology-ambiguous", "more than one ontology given: pass one of `blob`, `ontologyPath`, `ontologyUrl`");
  }
  return input.blob !== undefined ? toBytes(input.blob) : platform.ontology(input);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The backend each core currently serves. A core holds one blob, and a load replaces it (earlier
 * backends then refuse to run), so guards that share a core and an ontology share its backend. */
const served = new WeakMap<CoreInstance, { blob: Uint8Array; backend: SearchBackend }>();

/** A backend factory over a shared core. The first call reuses the core's backend when it holds the
 * same blob; a later call (the guard rebuilding after a failed search) reloads the blob, unless
 * another guard already did so since this one's backend was made. The backend handed out follows the
 * core's current one for this blob, so one guard's reload after a trap never leaves the other guards
 * on the core with a stale backend (which would veto their next call with `internal_error`). */
export function sharedBackend(core: CoreInstance, blob: Uint8Array): BackendFactory {
  let mine: SearchBackend | null = null;
  const follower = following(core, blob);
  return () => {
    const current = served.get(core);
    if (current !== undefined && current.backend !== mine && sameBytes(current.blob, blob)) {
      mine = current.backend;
    } else {
      mine = core.load(blob);
      served.set(core, { blob, backend: mine });
    }
    return follower;
  };
}

/** The core's live backend for `blob`: the served one while it holds these bytes (checked by identity
 * of the served entry on the hot path), else a reload. */
function following(core: CoreInstance, blob: Uint8Array): SearchBackend {
  let entry: { blob: Uint8Array; backend: SearchBackend } | undefined;
  const live = (): SearchBackend => {
    const current = served.get(core);
    if (current !== undefined && current === entry) return current.backend;
    if (current !== undefined && sameBytes(current.blob, blob)) entry = current;
    else {
      entry = { blob, backend: core.load(blob) };
      served.set(core, entry);
    }
    return entry.backend;
  };
  return {
    kind: "wasm",
    inputView: () => live().inputView(),
    run: () => live().run(),
  };
}

/** Validates the blob on the host first (a corrupt blob never reaches the core), then loads it. The
 * validation is done once per distinct bytes (prepareOntology): later loads of the same blob reuse it. */
export async function loadOntology(platform: Platform, options: OntologySource & CoreInput): Promise<LoadedOntology> {
  const [core, bytes] = await Promise.all([
    options.core ?? platform.core(options.wasm, options.coreOptions),
    ontologyBytes(platform, options),
  ]);
  const { tables, blob } = await prepare(bytes, platform.sha256);
  return { blob, tables, backend: sharedBackend(core, blob)(tables, blob) };
}

export async function loadVerifierOn(platform: Platform, options: LoadVerifierOptions): Promise<Verifier> {
  const { tables, backend } = await loadOntology(platform, options);
  return createVerifier(tables, backend, options.verifier);
}

/** The guard decodes and validates the blob itself; its backend factory shares the core (see
 * sharedBackend), so many guards, e.g. one per session, can run on one core. */
export async function loadGuardOn(platform: Platform, options: LoadGuardOptions): Promise<Guard> {
  if (typeof options !== "object" || options === null) {
    throw new GuardError("invalid-config", "loadGuard needs an options object", "pass `{ blob | ontologyPath | ontologyUrl, state, … }`");
  }
  const { blob: _b, ontologyPath: _p, ontologyUrl: _u, core: _c, wasm: _w, coreOptions: _o, ...guardOptions } = options;
  const [core, bytes] = await Promise.all([
    options.core ?? typedCore(platform.core(options.wasm, options.coreOptions)),
    ontologyBytes(platform, options),
  ]);
  // The platform's native hash serves the blob check and the reads digest unless the caller chose one.
  const config = platform.sha256 === undefined ? guardOptions.config : { sha256: platform.sha256, ...guardOptions.config };
  const ontology = await prepareGuardOntology(bytes, config?.sha256);
  return createGuard({ ...guardOptions, config, ontology, backend: sharedBackend(core, ontology.blob) });
}

/** With a synchronous native hash (Node's), prepareOntology; without one (browsers, workerd), the blob's
 * digests come from WebCrypto instead of the JavaScript SHA-256 in a cold interpreter. */
function prepare(bytes: Uint8Array, sha256: Sha256 | undefined): Promise<PreparedOntology> {
  return sha256 !== undefined ? Promise.resolve(prepareOntology(bytes, { sha256 })) : prepareOntologyAsync(bytes);
}

/** prepareOntology with a refused blob reported as createGuard reports it (GuardError `invalid-ontology`). */
async function prepareGuardOntology(bytes: Uint8Array, sha256: Sha256 | undefined): Promise<PreparedOntology> {
  try {
    return await prepare(bytes, sha256);
  } catch (e) {
    throw new GuardError("invalid-ontology", `the ontology blob is refused: ${describeError(e)}`, "compile the ontology again with `polar compile`", { cause: e });
  }
}

/** The core, with a module that does not compile (garbage bytes) made a typed error. */
async function typedCore(core: Promise<CoreInstance>): Promise<CoreInstance> {
  try {
    return await core;
  } catch (e) {
    if (e instanceof RuntimeError || e instanceof CoreError) throw e;
    throw new RuntimeError("core-unavailable", `the core could not be instantiated: ${e instanceof Error ? e.message : String(e)}`, "pass the `polar-core.wasm` the package ships");
  }
}

/** Fetches the core or the ontology, refusing a non-2xx answer with the status in the message. */
export async function fetchOk(url: string | URL, what: "core" | "ontology"): Promise<Response> {
  const code: RuntimeErrorCode = what === "core" ? "core-unavailable" : "ontology-unreadable";
  let res: Response;
  try {
    res = await fetch(url);
  } catch (err) {
    throw new RuntimeError(code, `cannot fetch the ${what} at \`${String(url)}\`: ${(err as Error).message}`);
  }
  if (!res.ok) throw new RuntimeError(code, `cannot fetch the ${what} at \`${String(url)}\`: HTTP ${res.status}`);
  return res;
}

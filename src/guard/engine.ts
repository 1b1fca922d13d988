// The guard's engine: the verifier over one search backend. Given a factory, the guard rebuilds the
// backend after a trap (the instance's memory is suspect); given a backend, it keeps that one.
import type { SearchBackend } from "../core/backend.js";
import { createVerifier, type Verifier } from "../core/verifier.js";
import type { OntologyTables } from "../ontology/tables.js";
import { createReferenceBackend } from "../reference/index.js";
import { describeError, GuardError } from "./errors.js";
import type { BackendFactory } from "./types.js";

function isBackend(b: unknown): b is SearchBackend {
  return typeof b === "object" && b !== null && typeof (b as SearchBackend).run === "function" && typeof (b as SearchBackend).inputView === "function";
}

export class Engine {
  /** The current verifier (replaced by `rebuild`: read it per use, never keep it). */
  verifier: Verifier;
  private readonly factory: BackendFactory | null;
  private readonly given: SearchBackend | BackendFactory;

  /** Builds the first backend; a wrong backend or a factory that fails is a GuardError `invalid-backend`. */
  constructor(
    private readonly tables: OntologyTables,
    private readonly blob: Uint8Array | null,
    backend: SearchBackend | BackendFactory | undefined,
  ) {
    this.given = backend ?? ((t: OntologyTables) => createReferenceBackend(t));
    this.factory = typeof this.given === "function" ? this.given : null;
    if (this.factory === null && !isBackend(this.given)) throw new GuardError("invalid-backend", "`backend` is neither a SearchBackend nor a factory");
    try {
      this.verifier = this.build();
    } catch (e) {
      if (e instanceof GuardError) throw e;
      throw new GuardError("invalid-backend", `the backend could not be built: ${describeError(e)}`, undefined, { cause: e });
    }
  }

  /** After a search whose backend failed: serve the next call from a fresh backend when there is a
   * factory. A rebuild that fails keeps the old one (every failing search is a veto anyway, and the
   * next failure retries). */
  backendFailed(): void {
    if (this.factory === null) return;
    try {
      this.verifier = this.build();
    } catch {
      // Keep the old one.
    }
  }

  private build(): Verifier {
    const backend = this.factory === null ? (this.given as SearchBackend) : this.factory(this.tables, this.blob);
    if (!isBackend(backend)) throw new GuardError("invalid-backend", "the backend factory did not return a SearchBackend");
    return createVerifier(this.tables, backend);
  }
}

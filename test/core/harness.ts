// Runs one verdict on the release core, the debug core and the plain-TS reference, checks that the
// three produce the same canonical output bytes, and returns the decoded output.
import { expect } from "vitest";
import { INPUT_SIZE } from "../../src/abi.js";
import { outputBytes, readOutput, type RawOutput } from "../../src/core/record.js";
import type { SearchBackend } from "../../src/core/backend.js";
import type { OntologyTables } from "../../src/ontology/tables.js";
import { createReferenceBackend } from "../../src/reference/index.js";
import { encodeCoreBlob, newCore, run, type CallSpec, type RunOptions } from "./fixtures.js";

export interface Backends {
  release: SearchBackend;
  debug: SearchBackend;
  reference: SearchBackend;
}

export function backends(tables: OntologyTables): Backends {
  const blob = encodeCoreBlob(tables);
  return {
    release: newCore("release").load(blob),
    debug: newCore("debug").load(blob),
    reference: createReferenceBackend(tables),
  };
}

function copyInput(from: SearchBackend, to: SearchBackend): void {
  const src = from.inputView();
  new Uint8Array(to.inputView().buffer, to.inputView().byteOffset, INPUT_SIZE).set(
    new Uint8Array(src.buffer, src.byteOffset, INPUT_SIZE),
  );
}

/** The verdict of the release core, after checking debug and reference agree byte for byte. */
export function verdict(b: Backends, calls: CallSpec[], o: RunOptions = {}): RawOutput {
  const out = run(b.release, calls, o);
  const bytes = outputBytes(b.release.run());
  copyInput(b.release, b.debug);
  expect(outputBytes(b.debug.run()), "debug core").toEqual(bytes);
  copyInput(b.release, b.reference);
  expect(outputBytes(b.reference.run()), "reference").toEqual(bytes);
  expect(readOutput(b.release.run())).toEqual(out);
  return out;
}

// The WebAssembly core's exports. The host (src/core/wasm.ts) checks abi_version(), grows memory,
// copies a validated blob to blob_ptr() and calls load() once; then per verdict it writes the input
// record at input_ptr(), calls verdict() and reads the output record at output_ptr().
import { ABI_VERSION } from "../src/abi";
import { blobBase, INPUT, OUTPUT } from "./memory";
import { loadBlob } from "./load";
import { runVerdict } from "./core";

export function abi_version(): i32 {
  return ABI_VERSION;
}

export function input_ptr(): usize {
  return INPUT;
}

export function output_ptr(): usize {
  return OUTPUT;
}

export function blob_ptr(): usize {
  return blobBase();
}

/** Reads the section table of the blob at [blobPtr, blobPtr + blobLen); returns a Status. */
export function load(blobPtr: usize, blobLen: u32): i32 {
  return loadBlob(blobPtr, blobLen);
}

/** Runs one search over the input record, writes the output record and returns its status. */
export function verdict(): i32 {
  return runVerdict();
}

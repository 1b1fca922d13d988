// Reads the section table of a blob the host copied into linear memory and caches the section bases.
// The host validated the blob (src/blob decodeBlob) before copying it; the checks here are only the
// ones the core's own memory safety rests on (every pointer the search derives stays inside the blob),
// so that even a blob that skipped validation yields BadBlob instead of a trap or a wild read.
import {
  ABI_VERSION,
  BLOB_HEADER_SIZE,
  BLOB_MAGIC,
  CONST_SIZE,
  EDGE_AMOUNT,
  EDGE_PROGRAM,
  EDGE_SIZE,
  EDGE_TIER,
  HDR_ABI_VERSION,
  HDR_MAGIC,
  HDR_SECTION_COUNT,
  HDR_TOTAL_LEN,
  PROGRAM_SIZE,
  SECTION_ENTRY_SIZE,
  Section,
  Status,
  Tier,
  TOOL_SIZE,
} from "../src/abi";
import { setLoaded, setSections } from "./memory";

/** Loads the blob at [ptr, ptr + len). Returns a Status; only Ok leaves the core loaded. */
export function loadBlob(ptr: usize, len: u32): i32 {
  setLoaded(false);
  if (<u64>ptr + <u64>len > (<u64>memory.size() << 16)) return Status.BadBlob;
  if (len < <u32>BLOB_HEADER_SIZE) return Status.BadBlob;
  if (load<u32>(ptr + HDR_MAGIC) != <u32>BLOB_MAGIC) return Status.BadBlob;
  if (<i32>load<u16>(ptr + HDR_ABI_VERSION) != ABI_VERSION) return Status.BadBlob;
  if (load<u32>(ptr + HDR_TOTAL_LEN) != len) return Status.BadBlob;
  const count = load<u32>(ptr + HDR_SECTION_COUNT);
  if (<u64>BLOB_HEADER_SIZE + <u64>count * SECTION_ENTRY_SIZE > <u64>len) return Status.BadBlob;

  // Offset and length per needed section; offset 0 means absent (the header occupies offset 0).
  let toolsOff: u32 = 0, toolsLen: u32 = 0;
  let rowsOff: u32 = 0, rowsLen: u32 = 0;
  let edgesOff: u32 = 0, edgesLen: u32 = 0;
  let progsOff: u32 = 0, progsLen: u32 = 0;
  let codeOff: u32 = 0, codeLen: u32 = 0;
  let constsOff: u32 = 0, constsLen: u32 = 0;
  for (let i: u32 = 0; i < count; i++) {
    const entry = ptr + BLOB_HEADER_SIZE + <usize>i * SECTION_ENTRY_SIZE; // table[i]: u32 id, offset, length
    const id = load<u32>(entry);
    const off = load<u32>(entry, 4);
    const slen = load<u32>(entry, 8);
    if (off < <u32>BLOB_HEADER_SIZE || <u64>off + <u64>slen > <u64>len) return Status.BadBlob;
    if (id == Section.Tools) { toolsOff = off; toolsLen = slen; }
    else if (id == Section.EdgeOffsets) { rowsOff = off; rowsLen = slen; }
    else if (id == Section.Edges) { edgesOff = off; edgesLen = slen; }
    else if (id == Section.Programs) { progsOff = off; progsLen = slen; }
    else if (id == Section.Code) { codeOff = off; codeLen = slen; }
    else if (id == Section.Constants) { constsOff = off; constsLen = slen; }
  }
  if (toolsOff == 0 || rowsOff == 0 || edgesOff == 0 || progsOff == 0 || codeOff == 0 || constsOff == 0) {
    return Status.BadBlob;
  }
  if (toolsLen % TOOL_SIZE || edgesLen % EDGE_SIZE || progsLen % PROGRAM_SIZE || codeLen % 4 || constsLen % CONST_SIZE) {
    return Status.BadBlob;
  }
  const nTools = toolsLen / TOOL_SIZE;
  const nEdges = edgesLen / EDGE_SIZE;
  const nPrograms = progsLen / PROGRAM_SIZE;
  const nCode = codeLen >> 2;
  if (<u64>rowsLen != (<u64>nTools + 1) * 4) return Status.BadBlob;

  const rows = ptr + rowsOff;
  const edges = ptr + edgesOff;
  const programs = ptr + progsOff;
  if (!rowsInRange(rows, nTools, nEdges)) return Status.BadBlob;
  if (!edgesInRange(edges, nEdges, nPrograms)) return Status.BadBlob;
  if (!programsInRange(programs, nPrograms, nCode)) return Status.BadBlob;

  setSections(
    ptr + toolsOff, nTools,
    rows,
    edges, nEdges,
    programs, nPrograms,
    ptr + codeOff, nCode,
    ptr + constsOff, constsLen / CONST_SIZE,
  );
  setLoaded(true);
  return Status.Ok;
}

/** EdgeOffsets is a CSR row-pointer array: starts at 0, never decreases, ends inside Edges. */
function rowsInRange(rows: usize, nTools: u32, nEdges: u32): bool {
  if (load<u32>(rows) != 0) return false;
  let prev: u32 = 0;
  for (let t: u32 = 1; t <= nTools; t++) {
    const at = load<u32>(rows + (<usize>t << 2)); // EdgeOffsets[t]
    if (at < prev || at > nEdges) return false;
    prev = at;
  }
  return true;
}

/** Every edge has a tier the search knows and a program index inside Programs (or none). */
function edgesInRange(edges: usize, nEdges: u32, nPrograms: u32): bool {
  for (let e: u32 = 0; e < nEdges; e++) {
    const rec = edges + <usize>e * EDGE_SIZE; // Edges[e]
    const tier = <i32>load<u8>(rec + EDGE_TIER);
    if (tier < Tier.T1 || tier > Tier.T5) return false;
    const program = load<i32>(rec + EDGE_PROGRAM);
    if (program < -1 || (program >= 0 && <u32>program >= nPrograms)) return false;
    const amount = load<i32>(rec + EDGE_AMOUNT);
    if (amount < -1 || (amount >= 0 && <u32>amount >= nPrograms)) return false;
  }
  return true;
}

/** Every program's code range lies inside Code. */
function programsInRange(programs: usize, nPrograms: u32, nCode: u32): bool {
  for (let p: u32 = 0; p < nPrograms; p++) {
    const rec = programs + <usize>p * PROGRAM_SIZE; // Programs[p]: u32 start, u32 length, u32 max stack
    if (<u64>load<u32>(rec) + <u64>load<u32>(rec, 4) > <u64>nCode) return false;
  }
  return true;
}

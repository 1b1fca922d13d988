// The core's linear memory: fixed static regions (memory.data, zero-initialised, never allocated at
// run time) followed by the blob, which the host copies to blobBase() after growing memory. The
// section base pointers of the loaded blob are cached in globals by load(); nothing else persists
// between verdicts.
import {
  INPUT_SIZE,
  MAX_CALLS,
  MAX_CANDIDATES,
  MAX_STACK,
  OUTPUT_SIZE,
} from "../src/abi";

// Host-visible records (src/abi.ts IN_* / OUT_*).
export const INPUT: usize = memory.data(INPUT_SIZE, 16);
export const OUTPUT: usize = memory.data(OUTPUT_SIZE, 16);

// Candidates of the walk, all calls concatenated in walk order: edge index and per-step phi.
export const CAND_EDGE: usize = memory.data(MAX_CANDIDATES * 4, 16); // i32[MAX_CANDIDATES]
export const CAND_PHI: usize = memory.data(MAX_CANDIDATES * 4, 16); //  i32[MAX_CANDIDATES]

// One level per mutating call, in walk order (most recent first).
export const LEVEL_CALL: usize = memory.data(MAX_CALLS * 4, 16); //   i32 forward call index
export const LEVEL_START: usize = memory.data(MAX_CALLS * 4, 16); //  i32 first candidate
export const LEVEL_COUNT: usize = memory.data(MAX_CALLS * 4, 16); //  i32 candidate count
export const LEVEL_TYPE: usize = memory.data(MAX_CALLS * 4, 16); //   i32 target entity type, -1 none
export const LEVEL_KEY: usize = memory.data(MAX_CALLS * 4, 16); //    i32 target key

// Depth-first search state, indexed by depth (0 .. MAX_CALLS).
export const DFS_CHOICE: usize = memory.data(MAX_CALLS * 4, 16); //        i32 candidate offset in the level
export const DFS_PHI: usize = memory.data((MAX_CALLS + 1) * 4, 16); //     i32 min phi of the prefix
export const DFS_LOSS: usize = memory.data((MAX_CALLS + 1) * 4, 16); //    i32 loss sum of the prefix
export const DFS_LOST: usize = memory.data((MAX_CALLS + 1) * 4, 16); //    i32 |L| on entering the depth
export const BEST_CAND: usize = memory.data(MAX_CALLS * 4, 16); //         i32 chosen candidate per level

// Branch-and-bound suffix bounds by level (0 .. MAX_CALLS; entry m is the empty suffix).
export const SUF_PHI: usize = memory.data((MAX_CALLS + 1) * 4, 16); //  i32 min over levels >= i of their max phi
export const SUF_LOSS: usize = memory.data((MAX_CALLS + 1) * 4, 16); // i32 sum over levels >= i of their min loss

// The lost-entity set L as a stack: at most one entry per level.
export const LOST_TYPE: usize = memory.data(MAX_CALLS * 4, 16); // i32 entity type
export const LOST_KEY: usize = memory.data(MAX_CALLS * 4, 16); //  i32 target key

// Bound program value stack: tags and payloads side by side.
export const STACK_TAG: usize = memory.data(MAX_STACK * 4, 16); // i32[MAX_STACK]
export const STACK_VAL: usize = memory.data(MAX_STACK * 8, 16); // i64[MAX_STACK]

/** Where the host copies the blob: past every static region, 8-aligned so i64 constants are aligned. */
export function blobBase(): usize {
  return (__heap_base + 7) & ~(<usize>7);
}

// Section bases of the loaded blob (absolute pointers) and their record counts.
export let loaded = false;
export let toolsBase: usize = 0;
export let toolCount: u32 = 0;
export let edgeOffsetsBase: usize = 0;
export let edgesBase: usize = 0;
export let edgeCount: u32 = 0;
export let programsBase: usize = 0;
export let programCount: u32 = 0;
export let codeBase: usize = 0;
export let codeLen: u32 = 0; // instructions
export let constsBase: usize = 0;
export let constCount: u32 = 0;

export function setLoaded(value: bool): void {
  loaded = value;
}

export function setSections(
  tools: usize, nTools: u32,
  edgeOffsets: usize,
  edges: usize, nEdges: u32,
  programs: usize, nPrograms: u32,
  code: usize, nCode: u32,
  consts: usize, nConsts: u32,
): void {
  toolsBase = tools;
  toolCount = nTools;
  edgeOffsetsBase = edgeOffsets;
  edgesBase = edges;
  edgeCount = nEdges;
  programsBase = programs;
  programCount = nPrograms;
  codeBase = code;
  codeLen = nCode;
  constsBase = consts;
  constCount = nConsts;
}

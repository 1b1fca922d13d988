// The fault-injection build (asconfig target "fault"): the release API plus arm_trap, so tests can
// make a verdict trap mid-search and check that the host recovers and the instance keeps serving.
// The release build compiles index.ts only, where nothing arms the trap and the check folds away.
import { armTrap } from "./core";

export { abi_version, input_ptr, output_ptr, blob_ptr, load, verdict } from "./index";

/** The next verdict executes `unreachable` once its walk has looked at `afterCalls` calls. */
export function arm_trap(afterCalls: i32): void {
  armTrap(afterCalls);
}

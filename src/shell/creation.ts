// Calls that lose nothing in any state: creation-only. For these the verdict "nothing lost" needs no
// Layer B; only their undo (remove what they created) does.
//
// The class is strict. fs_mkdir is in it (mkdir, mkdir -p's missing ancestors, git init's folders):
// POSIX mkdir creates a directory or fails when the path exists (a file, a symbolic link, anything),
// and -p leaves an existing directory alone; no state makes it change or remove what was there
// (ontologies/shell/shell.polar: an inverse_of edge of tier T1 for every kind, no loss edge; the
// executed proof is in test/shell/creation.test.ts). Not in it: touch (changes modification times),
// cp, mv, ln -f, install (overwrite), redirections (`>` truncates), git branch/tag (-f, -M overwrite
// a ref and the dispatcher types them as a delete plus a creation).
import type { TypedCall } from "./dispatch.js";

export const CREATION_ONLY_TOOLS: ReadonlySet<string> = new Set(["fs_mkdir"]);

/** Every typed call of the line is creation-only (and there is at least one). */
export function creationOnly(calls: readonly Pick<TypedCall, "name">[]): boolean {
  return calls.length > 0 && calls.every((c) => CREATION_ONLY_TOOLS.has(c.name));
}

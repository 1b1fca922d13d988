// The shell guard (polar-guard/shell, issue 23) behind the HookGuard interface. Until a build carries
// it, the factory is null and the engine refuses shell commands and file edits ("shell guard not
// available"): never allowed unjudged.
import type { ShellGuardFactory } from "./engine.js";

export async function shellGuardFactory(): Promise<ShellGuardFactory | null> {
  return null;
}

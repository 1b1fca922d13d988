// One writer per file (Node only): a lock file holding the writer's pid, created exclusively. A
// hash-chained log written by two processes forks its chain, so the MCP gateway's audit log, each hook
// session's log and the hooks' daemon itself take one of these before writing.
//   - held: another live process's pid is in it → LockBusyError (the caller refuses, saying what to do);
//   - stale: the pid is gone (or is this process's own pid but no lock of this process is registered,
//     e.g. a pid reused after a container restart) → taken over;
//   - the takeover of a stale lock is itself serialized by `<lock>.takeover` (exclusive create), so two
//     processes that both saw the dead pid cannot both end up holding the lock.
// A live process that reused a dead writer's pid makes its lock look held: the refusal names the pid
// and the lock file, which the user removes once no polar process has that pid.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

export class LockBusyError extends Error {
  override readonly name = "LockBusyError";
  readonly code = "lock-busy";
  constructor(
    /** The lock file. */
    readonly lock: string,
    /** The holder's pid, or null when the lock cannot be read. */
    readonly holder: number | null,
  ) {
    super(`\`${lock}\` is held by ${holder === null ? "another process" : `pid ${holder}`}`);
  }
}

export class LockError extends Error {
  override readonly name = "LockError";
  readonly code = "lock-failed";
  constructor(
    readonly lock: string,
    readonly errno: string,
  ) {
    super(`cannot create the lock \`${lock}\`: ${errno}`);
  }
}

export interface FileLock {
  readonly path: string;
  /** Removes the lock (once; later calls do nothing). */
  release(): void;
}

/** The locks this process holds (a lock file with this pid and no entry here is stale). */
const held = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  return !zombie(pid);
}

/** A killed process whose parent has not reaped it yet (a daemon orphaned to a container's pid 1 that
 * reaps late) still answers `kill(pid, 0)`; it holds nothing. Linux says so in /proc (state Z or X);
 * where /proc cannot be read the process counts as alive (its lock is kept: fail closed). */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}

/** The pid in a lock file, or null (no lock, or not a pid). */
export function readLockHolder(lock: string): number | null {
  return readHolder(lock);
}

function readHolder(lock: string): number | null {
  try {
    const n = Number.parseInt(readFileSync(lock, "utf8").trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

function isStale(holder: number | null, lock: string): boolean {
  if (holder === null) return false; // unreadable or half-written: treated as held
  if (holder === process.pid) return !held.has(lock);
  return !pidAlive(holder);
}

function createExclusive(path: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    if (code === "EEXIST") return false;
    throw new LockError(path, code);
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

function holding(lock: string): FileLock {
  held.add(lock);
  let released = false;
  return {
    path: lock,
    release() {
      if (released) return;
      released = true;
      held.delete(lock);
      if (readHolder(lock) === process.pid) removeQuietly(lock);
    },
  };
}

/** Takes the lock file `lock` for this process, or throws LockBusyError (a live holder) or LockError. */
export function takeFileLock(lock: string): FileLock {
  if (held.has(lock)) throw new LockBusyError(lock, process.pid);
  for (let attempt = 0; attempt < 4; attempt++) {
    if (createExclusive(lock)) return holding(lock);
    const holder = readHolder(lock);
    if (!isStale(holder, lock)) throw new LockBusyError(lock, holder);
    // Stale: taken over under `<lock>.takeover`, after checking again that it is the same stale lock;
    // the new lock is created before the marker goes.
    const takeover = `${lock}.takeover`;
    if (!createExclusive(takeover)) {
      const t = readHolder(takeover);
      // A taker that died mid-way (or before it wrote its pid, seconds ago): the marker is cleared.
      if (t !== null ? t !== process.pid && !pidAlive(t) : ageMs(takeover) > 10_000) removeQuietly(takeover);
      continue;
    }
    try {
      if (readHolder(lock) === holder) removeQuietly(lock);
      if (createExclusive(lock)) return holding(lock);
    } finally {
      removeQuietly(takeover);
    }
  }
  throw new LockBusyError(lock, readHolder(lock));
}

// Reading the files a command is given, with the CLI's one error style (./errors.ts): an unreadable
// file or text that is not JSON is a CliError (exit 1) naming what the file was for.
//
// Every read is bounded: only a regular file is read (a device such as /dev/zero, a FIFO, a socket
// or a folder is refused before a byte is read, so nothing hangs or fills memory), and the bytes are
// counted while reading, so a file larger than the cap — or one that grows while it is read — is
// refused at the cap instead of being read to the end.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { CliError } from "./errors.js";

/** The most bytes a command reads from one input file (ontologies, states, calls, rules, manifests). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** The most bytes read from a decision log. */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

function unreadable(path: string, what: string, err: unknown): CliError {
  return new CliError("unreadable-file", `cannot read the ${what} \`${path}\`: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
}

function kindOf(stat: import("node:fs").Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a pipe (FIFO)";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

/** The file's bytes: a regular file of at most `limit` bytes, else a CliError. */
export function readBytes(path: string, what: string, limit: number = MAX_INPUT_BYTES): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer must not block; a regular file ignores it.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw unreadable(path, what, err);
  }
  try {
    let stat;
    try {
      stat = fstatSync(fd);
    } catch (err) {
      throw unreadable(path, what, err);
    }
    if (!stat.isFile()) {
      throw new CliError("not-a-file", `the ${what} \`${path}\` is ${kindOf(stat)}, not a regular file`, "save the input to a regular file and pass its path");
    }
    const tooLarge = () =>
      new CliError("file-too-large", `the ${what} \`${path}\` is larger than ${limit} bytes`, "split it, or check that it is the file you meant");
    if (stat.size > limit) throw tooLarge();
    // Counted while reading: the size may change between fstat and the reads.
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(stat.size, 1), 1 << 20) + 1);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (err) {
        throw unreadable(path, what, err);
      }
      if (n === 0) break;
      total += n;
      if (total > limit) throw tooLarge();
      chunks.push(Buffer.from(chunk.subarray(0, n)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

export function readText(path: string, what: string, limit?: number): string {
  return readBytes(path, what, limit).toString("utf8");
}

/** JSON text parsed; `text` when the caller has already read the file. */
export function parseJsonText(text: string, path: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError("bad-json", `the ${what} \`${path}\` is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function readJson(path: string, what: string): unknown {
  return parseJsonText(readText(path, what), path, what);
}

// Reading the files a command is given, with the CLI's one error style (./errors.ts): an unreadable
// file or text that is not JSON is a CliError (exit 1) naming what the file was for.
import { readFileSync } from "node:fs";
import { CliError } from "./errors.js";

function unreadable(path: string, what: string, err: unknown): CliError {
  return new CliError("unreadable-file", `cannot read the ${what} \`${path}\`: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
}

export function readBytes(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw unreadable(path, what, err);
  }
}

export function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw unreadable(path, what, err);
  }
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

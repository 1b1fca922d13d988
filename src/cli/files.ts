// Reading the files a command is given, with the CLI's one error style (./errors.ts): an unreadable
// file or text that is not JSON is a CliError (exit 1) naming what the file was for.
import { readFileSync } from "node:fs";
import { CliError } from "./errors.js";

export function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError("unreadable-file", `cannot read the ${what} \`${path}\`: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
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

// One error style for every command: `error[code]: message` on stderr, then `help: …` when there is
// more to say; exit 1 for findings and domain errors (bad input, a file that is not what it should
// be), exit 2 for usage (unknown command or option, a missing or malformed flag).
import type { CAC, Command } from "cac";

export type ExitCode = 1 | 2;

export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    readonly code: string,
    message: string,
    readonly help?: string,
    readonly exit: ExitCode = 1,
  ) {
    super(message);
  }
}

/** A usage error (exit 2). */
export function usageError(code: string, message: string, help?: string): CliError {
  return new CliError(code, message, help, 2);
}

/** The error's lines as printed. Errors from the library keep their own `code` and `help`. */
export function formatError(err: unknown): string {
  const e = err as { code?: unknown; help?: unknown; message?: unknown };
  const code = typeof e?.code === "string" && e.code !== "" ? e.code : "error";
  const message = err instanceof Error ? err.message : String(err);
  const help = typeof e?.help === "string" && e.help !== "" ? `\nhelp: ${e.help}` : "";
  return `error[${code}]: ${message}${help}\n`;
}

/** Prints the error and sets the exit code (2 for usage errors, else 1). */
export function reportError(err: unknown): void {
  process.stderr.write(formatError(err));
  process.exitCode = err instanceof CliError ? err.exit : 1;
}

/** Wraps a command's action so every failure is reported in the one style. */
export function action<A extends unknown[]>(run: (...args: A) => void | Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (err) {
      reportError(err);
    }
  };
}

/** A flag's text as typed. The argument parser turns every value that looks numeric into a number
 * (`--tau 0x0` and `--tau ""` become 0): commands read the raw text and parse it themselves. */
export function rawOptionText(argv: readonly string[], command: Command): Record<string, string | string[]> {
  const takesValue = new Map<string, string>();
  for (const o of command.options) {
    if (o.isBoolean) continue;
    for (const n of o.rawName.split(/[ ,]+/u)) if (n.startsWith("-")) takesValue.set(n.replace(/^-+/u, ""), o.name);
  }
  const out: Record<string, string | string[]> = {};
  const put = (name: string, value: string): void => {
    const prev = out[name];
    out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  };
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i];
    if (t === "--") break;
    const m = /^--?([^=]+)(?:=(.*))?$/su.exec(t);
    if (m === null) continue;
    const name = takesValue.get(m[1]);
    if (name === undefined) continue;
    if (m[2] !== undefined) put(name, m[2]);
    else if (i + 1 < argv.length) put(name, argv[++i]);
  }
  return out;
}

/** cac shows a `--no-x` flag's default as `(default: true)`, which reads as if the flag were on by
 * default; the flag is off by default (x is on). Say that instead. */
export function realNegatedDefaults(cli: CAC): void {
  const rewrite = (sections: Array<{ title?: string; body: string }>) =>
    sections.map((s) => ({ ...s, body: s.body.replace(/^(\s*--no-([\w-]+)\b.*?)\s*\(default: true\)$/gmu, (_, head: string, x: string) => `${head.trimEnd()} (default: off, ${x} on)`) }));
  cli.help(rewrite);
}

// `polar check FILE`: compile an ontology and report every diagnostic. Exit 1 on any error.
import type { CAC } from "cac";
import { compile, formatDiagnostic, type Diagnostic } from "../../compiler/index.js";
import { reportError } from "../errors.js";
import { readBytes } from "../files.js";

export function register(cli: CAC): void {
  cli
    .command("check <file>", "Check a Layer A ontology and report every diagnostic")
    .example("polar check ontologies/example/library.polar")
    .action((file: string) => {
      const source = readSource(file);
      if (source === null) return;
      const result = compile(source, { name: baseName(file) });
      printDiagnostics(result.diagnostics, source, file);
      if (!result.ok) {
        process.exitCode = 1;
        return;
      }
      const annotations = result.tables.edges.length;
      process.stdout.write(`ok: ${result.tables.tools.length} tools, ${annotations} annotations\n`);
    });
}

/** The file's bytes, or null after printing why they could not be read (exit 1): a regular file of
 * bounded size only (../files.ts), so `/dev/zero` or a FIFO is refused instead of read forever. */
export function readSource(file: string): Uint8Array | null {
  try {
    return readBytes(file, "ontology");
  } catch (err) {
    reportError(err);
    return null;
  }
}

export function printDiagnostics(diagnostics: Diagnostic[], source: Uint8Array, file: string): void {
  for (const d of diagnostics) process.stderr.write(formatDiagnostic(d, source, file) + "\n\n");
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  if (diagnostics.length > 0) {
    process.stderr.write(`${file}: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
  }
}

/** The file name without its directories: the blob records it, and it must not depend on the machine. */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

// `polar compile FILE -o OUT.blob`: compile an ontology to its versioned binary blob. Exit 1 on error.
// Without `-o` the blob goes beside the source (FILE.blob) and an existing file there is kept unless
// `--force`: a default path must never destroy what a user did not name. An output that is the source
// itself (the same path, a link to it, another name of the same file) is refused, `--force` or not.
import { existsSync, statSync, writeFileSync } from "node:fs";
import type { CAC } from "cac";
import { compile } from "../../compiler/index.js";
import { sha256Hex } from "../../util/sha256.js";
import { baseName, printDiagnostics, readSource } from "./check.js";
import { action, CliError } from "../errors.js";

export function register(cli: CAC): void {
  cli
    .command("compile <file>", "Compile a Layer A ontology to a blob")
    .option("-o, --out <path>", "Output blob (default: the source path with .blob, never overwritten without --force)")
    .option("--force", "Overwrite an existing blob at the default path")
    .example("polar compile ontologies/example/library.polar -o library.blob")
    .action(action((file: string, options: { out?: string; force?: boolean }) => {
      const source = readSource(file);
      if (source === null) return;
      const result = compile(source, { name: baseName(file) });
      printDiagnostics(result.diagnostics, source, file);
      if (!result.ok) {
        process.exitCode = 1;
        return;
      }
      const named = typeof options.out === "string" && options.out !== "";
      const out = named ? options.out! : defaultOut(file);
      if (sameFile(file, out)) {
        throw new CliError("output-is-source", `the output \`${out}\` is the source \`${file}\`: writing the blob would destroy it`, "pass `-o` another path, e.g. the source's name with .blob");
      }
      if (!named && options.force !== true && existsSync(out)) {
        throw new CliError("exists", `\`${out}\` already exists`, "pass `-o PATH` to choose the output, or `--force` to overwrite it");
      }
      try {
        writeFileSync(out, result.blob);
      } catch (err) {
        throw new CliError("unwritable-file", `cannot write \`${out}\`: ${err instanceof Error ? err.message : String(err)}`);
      }
      const { tools, edges } = result.tables;
      process.stdout.write(`wrote ${out}: ${result.blob.length} bytes, ${tools.length} tools, ${edges.length} annotations, sha256 ${sha256Hex(result.blob)}\n`);
    }));
}

function defaultOut(file: string): string {
  return /\.[^./\\]+$/.test(file) ? file.replace(/\.[^./\\]+$/, ".blob") : `${file}.blob`;
}

/** Whether two paths name one file (same device and inode: symbolic links, hard links, `./x` and `x`).
 * A path that does not exist is not the source. */
function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a, { bigint: true });
    const sb = statSync(b, { bigint: true });
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

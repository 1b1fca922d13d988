// `polar compile FILE -o OUT.blob`: compile an ontology to its versioned binary blob. Exit 1 on error.
import { writeFileSync } from "node:fs";
import type { CAC } from "cac";
import { compile } from "../../compiler/index.js";
import { sha256Hex } from "../../util/sha256.js";
import { baseName, printDiagnostics, readSource } from "./check.js";

export function register(cli: CAC): void {
  cli
    .command("compile <file>", "Compile a Layer A ontology to a blob")
    .option("-o, --out <path>", "Output blob (default: the source path with .blob)")
    .example("polar compile ontologies/example/library.polar -o library.blob")
    .action((file: string, options: { out?: string }) => {
      const source = readSource(file);
      if (source === null) return;
      const result = compile(source, { name: baseName(file) });
      printDiagnostics(result.diagnostics, source, file);
      if (!result.ok) {
        process.exitCode = 1;
        return;
      }
      const out = typeof options.out === "string" && options.out !== "" ? options.out : defaultOut(file);
      try {
        writeFileSync(out, result.blob);
      } catch (err) {
        process.stderr.write(`error[unwritable-file]: cannot write \`${out}\`: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
        return;
      }
      const { tools, edges } = result.tables;
      process.stdout.write(`wrote ${out}: ${result.blob.length} bytes, ${tools.length} tools, ${edges.length} annotations, sha256 ${sha256Hex(result.blob)}\n`);
    });
}

function defaultOut(file: string): string {
  return /\.[^./\\]+$/.test(file) ? file.replace(/\.[^./\\]+$/, ".blob") : `${file}.blob`;
}

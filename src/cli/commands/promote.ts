// `polar promote FILE --id ID [-o OUT]`: makes one provisional guess of a drafted ontology live
// (in place unless -o), then re-compiles to show the result still compiles. Exit 1 when it does not,
// 2 on bad input (unknown id, not provisional).
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { CAC } from "cac";
import { compile } from "../../compiler/index.js";
import { DraftError, promote, provisionalItems } from "../../mcp/draft.js";
import { printDiagnostics } from "./check.js";
import { CliError, reportError } from "../errors.js";
import { readText } from "../files.js";

export function register(cli: CAC): void {
  cli
    .command("promote <file>", "Make one provisional annotation (or drafted read_only) of an ontology live")
    .option("--id <id>", "The annotation id (or the id in `%provisional(ID)`)")
    .option("-o, --out <file>", "Write the result here instead of in place")
    .example("polar promote draft.polar --id draft.delete_entities.compensation")
    .action((file: string, flags: { id?: string; out?: string }) => {
      try {
        if (!flags.id) throw new DraftError("missing-option", "`polar promote` needs `--id ID`");
        const source = readText(file, "ontology");
        const before = compile(source, { name: basename(file) });
        if (!before.ok) {
          printDiagnostics(before.diagnostics, new TextEncoder().encode(source), file);
          throw new DraftError("ontology-errors", `\`${file}\` does not compile; fix it first`);
        }
        const text = promote(source, String(flags.id), before.tables);
        const after = compile(text, { name: basename(file) });
        if (!after.ok) {
          printDiagnostics(after.diagnostics, new TextEncoder().encode(text), file);
          reportError(new CliError("promote-breaks-ontology", `\`${flags.id}\` made live does not compile; nothing written`, "fix the diagnostics above in the provisional declaration first"));
          return;
        }
        const out = flags.out ?? file;
        writeFileSync(out, text);
        const left = provisionalItems(after.tables, text).length;
        process.stdout.write(`promoted \`${flags.id}\` in ${out}; ${left} provisional item${left === 1 ? "" : "s"} left\n`);
      } catch (e) {
        if (!(e instanceof DraftError)) throw e;
        // The CLI's one style (src/cli/errors.ts): a missing option is usage (2), bad input is 1.
        reportError(new CliError(e.code, e.message, undefined, e.code === "missing-option" ? 2 : 1));
      }
    });
}

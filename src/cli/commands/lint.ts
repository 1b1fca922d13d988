import type { CAC } from "cac";
import { basename } from "node:path";
import { decodeBlob } from "../../blob/index.js";
import { compile, formatDiagnostic, type CompiledModel } from "../../compiler/index.js";
import { lintOntology, parseManifest, type LintReport, type ToolSide } from "../../lint/index.js";
import type { OntologyTables } from "../../ontology/tables.js";
import { action, CliError, usageError } from "../errors.js";
import { readBytes, readJson, readText } from "../files.js";
import { provisionalItems } from "../../mcp/draft.js";

// `polar lint --ontology FILE --tools MANIFEST`: tools the manifest has and the ontology does not (and
// the reverse), and tools the two classify differently. It also lists what is still provisional
// (drafted guesses that take no part in a verdict, docs/mcp.md); `--provisional` without `--tools`
// lists only that. Exit 0 when clean (warnings allowed), 1 when a finding is an error or an input
// cannot be read or is empty, 2 on bad usage.

interface LintFlags {
  ontology?: string;
  tools?: string;
  side?: string;
  json?: boolean;
  provisional?: boolean;
}

const fail = (code: string, message: string, help?: string) => new CliError(code, message, help);

/** The tables, and the declared tool parameters when the ontology is source (a blob carries none). */
function readOntology(file: string): { tables: OntologyTables; model: CompiledModel | null } {
  const bytes = readBytes(file, "ontology");
  if (file.endsWith(".blob")) return { tables: decodeBlob(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)), model: null };
  const text = bytes.toString("utf8");
  const r = compile(text, { name: basename(file) });
  if (!r.ok) {
    const shown = r.diagnostics.filter((d) => d.severity === "error").map((d) => formatDiagnostic(d, text, file));
    process.stderr.write(shown.join("\n") + "\n");
    throw fail("ontology-errors", `the ontology \`${file}\` has errors`, "run `polar check` on it");
  }
  return { tables: r.tables, model: r.model };
}


function sideFlag(v: string | undefined): ToolSide | undefined {
  if (v === undefined || v === "all") return undefined;
  if (v === "agent" || v === "user") return v;
  throw usageError("bad-option", `\`--side\` is \`agent\`, \`user\` or \`all\`, got \`${v}\``);
}

function printText(report: LintReport, ontology: string, tools: string): void {
  for (const f of report.findings) process.stdout.write(`${f.severity}[${f.code}]: ${f.message}\n`);
  const clean = report.errors === 0 ? "clean" : "not clean";
  process.stdout.write(
    `lint ${basename(ontology)} against ${basename(tools)}: ${report.checked} tools checked, ` +
      `${report.errors} error${report.errors === 1 ? "" : "s"}, ${report.warnings} warning${report.warnings === 1 ? "" : "s"} (${clean})\n`,
  );
}

export function register(cli: CAC): void {
  cli
    .command("lint", "Check an ontology against a τ²-bench tool manifest (tools JSON, tool_defs or results file)")
    .option("--ontology <file>", "ontology source (.polar) or compiled blob (.blob)")
    .option("--tools <file>", "tool manifest: tools/<domain>.json, a tool_defs block, or a results file")
    .option("--side <side>", "manifest tools to check: agent, user or all (default all)")
    .option("--provisional", "list what is still provisional (drafted guesses); also listed with --tools")
    .option("--json", "print the report as JSON")
    .action(
      action((flags: LintFlags) => {
        if (!flags.ontology || (!flags.tools && !flags.provisional)) {
          throw usageError("missing-option", "`polar lint` needs `--ontology FILE` and `--tools MANIFEST` (or `--provisional` to list only what is still provisional)");
        }
        const side = sideFlag(flags.side);
        const { tables, model } = readOntology(flags.ontology);
        const provisional = provisionalItems(tables, flags.ontology.endsWith(".blob") ? null : readText(flags.ontology, "ontology"));
        const printProvisional = (): void => {
          for (const p of provisional) process.stdout.write(`warning[provisional]: ${p.kind} \`${p.id}\` (line ${p.line}) is still provisional: it takes no part in a verdict until promoted (\`polar promote ${basename(flags.ontology!)} --id ${p.id}\`)\n`);
          process.stdout.write(`${provisional.length} provisional item${provisional.length === 1 ? "" : "s"} in ${basename(flags.ontology!)}\n`);
        };
        if (!flags.tools) {
          if (flags.json) process.stdout.write(JSON.stringify({ provisional }, null, 2) + "\n");
          else printProvisional();
          process.exitCode = 0;
          return;
        }
        const manifest = parseManifest(readJson(flags.tools, "tool manifest"));
        if (manifest.tools.length === 0) {
          // An empty manifest checks nothing: passing it would say "clean" about no tools at all.
          throw fail("empty-manifest", `the manifest \`${flags.tools}\` lists no tools`, "pass a tools/<domain>.json, a tool_defs block or a results file");
        }
        const report = lintOntology(tables, manifest, { side, declaredParams: model?.tools });
        if (flags.json) process.stdout.write(JSON.stringify({ format: manifest.format, ...report, provisional }, null, 2) + "\n");
        else {
          printText(report, flags.ontology, flags.tools);
          if (provisional.length > 0) printProvisional();
        }
        process.exitCode = report.errors > 0 ? 1 : 0;
      }),
    );
}

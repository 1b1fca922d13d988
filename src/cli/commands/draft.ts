// `polar draft --tools TOOLS.json -o draft.polar`: a starting ontology from an MCP tools/list result or
// an OpenAI tools list, every guess provisional (docs/mcp.md, "Drafting"). Exit 1 when the draft does
// not compile (a bug worth reporting), 2 on bad input.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { CAC } from "cac";
import { compile } from "../../compiler/index.js";
import { dispatchArgument, draftOntology, parseToolList, DraftError } from "../../mcp/draft.js";
import { printDiagnostics } from "./check.js";
import { CliError, reportError } from "../errors.js";
import { readJson } from "../files.js";

export function register(cli: CAC): void {
  cli
    .command("draft", "Draft a provisional ontology from an MCP tools/list result or an OpenAI tools list")
    .option("--tools <file>", "tools/list result JSON (or an OpenAI tools list)")
    .option("-o, --out <file>", "Where to write the draft (default: stdout)")
    .example("polar draft --tools tools.json -o draft.polar")
    .action((flags: { tools?: string; out?: string }) => {
      try {
        if (!flags.tools) throw new DraftError("missing-option", "`polar draft` needs `--tools FILE`");
        const tools = parseToolList(readJson(flags.tools, "tools list"));
        const text = draftOntology(tools, `\`${basename(flags.tools)}\``);
        const r = compile(text, { name: flags.out ? basename(flags.out) : "draft.polar" });
        if (!r.ok) {
          printDiagnostics(r.diagnostics, new TextEncoder().encode(text), flags.out ?? "draft.polar");
          process.exitCode = 1;
          return;
        }
        if (flags.out) {
          writeFileSync(flags.out, text);
          const provisional = r.tables.edges.length + (text.match(/^%provisional\(/gm)?.length ?? 0);
          process.stderr.write(`wrote ${flags.out}: ${tools.length} tools, ${provisional} provisional guesses (none live)\n`);
        } else process.stdout.write(text);
        // Tools that take an SQL or shell string: never read-only, refused until judged as dispatchers.
        for (const t of tools) {
          const d = dispatchArgument(t);
          if (d !== null) process.stderr.write(`note: \`${t.name}\` takes ${d.kind === "sql" ? "an SQL statement" : "a shell command"} in \`${d.argument}\`: it is not read-only; every call is refused unless the gateway judges it (\`polar mcp --dispatch ${t.name}=${d.kind}:${d.argument}\`)\n`);
        }
      } catch (e) {
        if (!(e instanceof DraftError)) throw e;
        // The CLI's one style (src/cli/errors.ts): a missing option is usage (2), bad input is 1.
        reportError(new CliError(e.code, e.message, undefined, e.code === "missing-option" ? 2 : 1));
      }
    });
}

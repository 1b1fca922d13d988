// `polar audit verify LOG --ontology FILE [--ontology FILE …] [--backend reference|wasm] [--json]`:
// re-derives every decision of a JSONL decision log from the record alone and reports each mismatch
// by line. Exit 0 when every record re-derives, 1 on any mismatch, 2 on bad usage.
// `polar audit summary LOG [--json]`: calls, what ran, and what enforcement would have refused, by
// reason and by tool (for a shadow-mode log written by the Advisory policy).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CAC } from "cac";
import { formatSummary, summarizeLog, verifyAuditLog, type VerifyReport } from "../../audit/index.js";
import { blobDigestHex, decodeBlob } from "../../blob/index.js";
import { compile } from "../../compiler/index.js";
import { instantiateCoreSync } from "../../core/wasm.js";
import type { BackendFactory } from "../../guard/index.js";
import { createReferenceBackend } from "../../reference/index.js";
import { baseName, printDiagnostics } from "./check.js";

interface Flags {
  ontology?: string | string[];
  backend?: string;
  json?: boolean;
}

class AuditUsageError extends Error {
  constructor(readonly code: string, message: string, readonly help?: string) {
    super(message);
  }
}

const CORE_FILES = ["../polar-core.wasm", "./polar-core.wasm", "../../build/polar-core.wasm", "../../../build/polar-core.wasm"];

function readBytes(path: string, what: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new AuditUsageError("unreadable-file", `cannot read the ${what} \`${path}\`: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** A blob file as is; an ontology source compiled (deterministic, so the hash matches the guard's
 * when the guard ran the blob compiled from the same file name). */
function loadBlob(path: string): Uint8Array {
  const bytes = readBytes(path, "ontology");
  if (path.endsWith(".blob")) {
    try {
      decodeBlob(bytes);
    } catch (err) {
      throw new AuditUsageError("bad-blob", `the blob \`${path}\` is refused: ${err instanceof Error ? err.message : String(err)}`);
    }
    return bytes;
  }
  const result = compile(bytes, { name: baseName(path) });
  if (!result.ok) {
    printDiagnostics(result.diagnostics, bytes, path);
    throw new AuditUsageError("ontology-errors", `the ontology \`${path}\` has errors`);
  }
  return result.blob;
}

function wasmFactory(): BackendFactory {
  for (const rel of CORE_FILES) {
    const file = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(file)) {
      const module = new WebAssembly.Module(readFileSync(file));
      return (_tables, blob) => instantiateCoreSync(module).load(blob!);
    }
  }
  throw new AuditUsageError("core-unavailable", "the core `polar-core.wasm` was not found", "run `npm run build:wasm`, or pass `--backend reference`");
}

function short(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? "undefined";
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

export function formatReport(report: VerifyReport, log: string): string {
  const out: string[] = [];
  for (const m of report.mismatches) {
    out.push(`${log}:${m.line}: mismatch in \`${m.field}\``, `  replayed: ${short(m.expected)}`, `  recorded: ${short(m.actual)}`);
  }
  if (report.transient.length > 0) {
    out.push(`${report.transient.length} record(s) failed closed on a backend fault (not reproducible, never approving): lines ${report.transient.join(", ")}`);
  }
  out.push(`${log}: ${report.verified} of ${report.total} decisions re-derived, ${report.mismatches.length} mismatch${report.mismatches.length === 1 ? "" : "es"}`);
  return out.join("\n");
}

export function runAuditVerify(log: string, flags: Flags): { report: VerifyReport; text: string } {
  const files = flags.ontology === undefined ? [] : Array.isArray(flags.ontology) ? flags.ontology : [flags.ontology];
  if (files.length === 0) throw new AuditUsageError("missing-option", "`--ontology FILE` is required (repeat it for several ontologies)");
  const blobs = files.map(loadBlob);
  const backendName = flags.backend ?? "reference";
  if (backendName !== "reference" && backendName !== "wasm") {
    throw new AuditUsageError("bad-option", `unknown backend \`${backendName}\``, "use reference or wasm");
  }
  const text = new TextDecoder().decode(readBytes(log, "decision log"));
  const report = verifyAuditLog(text, {
    ontologies: Object.fromEntries(blobs.map((b) => [blobDigestHex(b), b])),
    backend: backendName === "wasm" ? wasmFactory() : (t) => createReferenceBackend(t),
  });
  return { report, text: flags.json ? JSON.stringify(report, null, 2) : formatReport(report, log) };
}

export function register(cli: CAC): void {
  cli
    .command("audit <action> <log>", "Re-derive every decision of a JSONL decision log (verify), or summarise it (summary)")
    .option("--ontology <file>", "Ontology blob (.blob) or source (.polar); repeat for several")
    .option("--backend <name>", "Search backend: reference or wasm", { default: "reference" })
    .option("--json", "Print the report as JSON")
    .example("polar audit verify decisions.jsonl --ontology ontologies/airline/airline.blob")
    .example("polar audit summary decisions.jsonl")
    .action((action: string, log: string, flags: Flags) => {
      try {
        if (action === "summary") {
          const summary = summarizeLog(new TextDecoder().decode(readBytes(log, "decision log")));
          process.stdout.write((flags.json ? JSON.stringify(summary, null, 2) : formatSummary(summary, log)) + "\n");
          process.exitCode = 0;
          return;
        }
        if (action !== "verify") throw new AuditUsageError("unknown-action", `unknown audit action \`${action}\``, "use `verify` or `summary`");
        const { report, text } = runAuditVerify(log, flags);
        process.stdout.write(text + "\n");
        process.exitCode = report.ok ? 0 : 1;
      } catch (err) {
        if (!(err instanceof AuditUsageError)) throw err;
        process.stderr.write(`error[${err.code}]: ${err.message}\n${err.help ? `  help: ${err.help}\n` : ""}`);
        process.exitCode = 2;
      }
    });
}

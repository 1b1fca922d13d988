// `polar audit verify LOG --ontology FILE [--ontology FILE …] [--backend reference|wasm] [--head HASH] [--json]`:
// checks the log's hash chain and re-derives every decision from the record alone, reporting each
// mismatch by line. `polar audit head LOG` prints the last record's hash, to anchor elsewhere.
// `polar audit summary LOG [--json]`: calls, what ran, and what enforcement would have refused, by
// reason and by tool (for a shadow-mode log written by the Advisory policy).
// Exit 0 when every record re-derives, 1 on any mismatch or unreadable input, 2 on bad usage.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CAC } from "cac";
import { chainHead, formatSummary, summarizeLog, verifyAuditLog, type VerifyOptions, type VerifyReport } from "../../audit/index.js";
import { blobDigestHex, decodeBlob } from "../../blob/index.js";
import { compile } from "../../compiler/index.js";
import { instantiateCoreSync } from "../../core/wasm.js";
import type { BackendFactory } from "../../guard/index.js";
import { createReferenceBackend } from "../../reference/index.js";
import { baseName, printDiagnostics } from "./check.js";
import { action, CliError, usageError } from "../errors.js";
import { MAX_LOG_BYTES, readBytes } from "../files.js";
import { scopedConsentDetector } from "../../policies/consent-scoped.js";

interface Flags {
  ontology?: string | string[];
  backend?: string;
  head?: string;
  acceptTransient?: boolean;
  allowEmpty?: boolean;
  json?: boolean;
}


const CORE_FILES = ["../polar-core.wasm", "./polar-core.wasm", "../../build/polar-core.wasm", "../../../build/polar-core.wasm"];


/** A blob file as is; an ontology source compiled (deterministic, so the hash matches the guard's
 * when the guard ran the blob compiled from the same file name). */
function loadBlob(path: string): Uint8Array {
  const bytes = readBytes(path, "ontology");
  if (path.endsWith(".blob")) {
    try {
      decodeBlob(bytes);
    } catch (err) {
      throw new CliError("bad-blob", `the blob \`${path}\` is refused: ${err instanceof Error ? err.message : String(err)}`);
    }
    return bytes;
  }
  const result = compile(bytes, { name: baseName(path) });
  if (!result.ok) {
    printDiagnostics(result.diagnostics, bytes, path);
    throw new CliError("ontology-errors", `the ontology \`${path}\` has errors`);
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
  throw new CliError("core-unavailable", "the core `polar-core.wasm` was not found", "run `npm run build:wasm`, or pass `--backend reference`");
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
    out.push(`${report.transient.length} record(s) accepted as backend faults the replay does not reproduce (never approving): lines ${report.transient.join(", ")}`);
  }
  const outcomes = report.outcomes ?? 0;
  const checked = outcomes > 0 ? `, ${report.outcomesVerified} of ${outcomes} outcome records checked` : "";
  out.push(`${log}: ${report.verified - (report.outcomesVerified ?? 0)} of ${report.total - outcomes} decisions re-derived${checked}, ${report.mismatches.length} mismatch${report.mismatches.length === 1 ? "" : "es"}`);
  if (report.total > 0) out.push(`  head ${report.head.hash} (record ${report.head.index})`);
  return out.join("\n");
}

export function runAuditVerify(log: string, flags: Flags, shellReadOnly?: VerifyOptions["shellReadOnly"]): { report: VerifyReport; text: string } {
  const files = flags.ontology === undefined ? [] : Array.isArray(flags.ontology) ? flags.ontology : [flags.ontology];
  if (files.length === 0) throw usageError("missing-option", "`--ontology FILE` is required (repeat it for several ontologies)");
  const head = flags.head === undefined ? undefined : String(flags.head).trim().toLowerCase();
  if (head !== undefined && !/^[0-9a-f]{64}$/u.test(head)) throw usageError("bad-option", `--head \`${String(flags.head)}\` is not a record hash`, "64 hex digits, as `polar audit head LOG` prints");
  const blobs = files.map(loadBlob);
  const backendName = flags.backend ?? "reference";
  if (backendName !== "reference" && backendName !== "wasm") {
    throw usageError("bad-option", `unknown backend \`${backendName}\``, "use reference or wasm");
  }
  const text = new TextDecoder().decode(readBytes(log, "decision log", MAX_LOG_BYTES));
  const report = verifyAuditLog(text, {
    ontologies: Object.fromEntries(blobs.map((b) => [blobDigestHex(b), b])),
    backend: backendName === "wasm" ? wasmFactory() : (t) => createReferenceBackend(t),
    head,
    acceptTransient: flags.acceptTransient === true,
    allowEmpty: flags.allowEmpty === true,
    // The τ²-bench replay's records name the scoped detector (src/policies/consent-scoped.ts).
    consentDetectors: { [scopedConsentDetector.id]: scopedConsentDetector },
    ...(shellReadOnly === undefined ? {} : { shellReadOnly }),
  });
  return { report, text: flags.json ? JSON.stringify(report, null, 2) : formatReport(report, log) };
}

/** `polar audit head LOG`: the last record's hash (to store elsewhere), from the log's text. */
export function runAuditHead(log: string): string {
  const text = new TextDecoder().decode(readBytes(log, "decision log", MAX_LOG_BYTES));
  let head;
  try {
    head = chainHead(text);
  } catch (err) {
    throw new CliError("bad-log", `the decision log \`${log}\` has no head to anchor: ${err instanceof Error ? err.message : String(err)}`, "run `polar audit verify` on it");
  }
  if (head.index === 0) throw new CliError("empty-log", `the decision log \`${log}\` is empty`);
  return head.hash;
}

export function register(cli: CAC): void {
  cli
    .command("audit <action> <log>", "Check a JSONL decision log: verify (hash chain + re-derive every decision), head (the hash to anchor) or summary (what ran, what enforcement would have refused)")
    .option("--ontology <file>", "verify: ontology blob (.blob) or source (.polar); repeat for several")
    .option("--backend <name>", "verify: search backend, reference or wasm (default reference)")
    .option("--head <hash>", "verify: a head printed earlier by `polar audit head`; the log must still hold it")
    .option("--accept-transient", "verify: accept records of backend faults the replay does not reproduce (listed, never approving)")
    .option("--allow-empty", "verify: an empty log is not an error")
    .option("--json", "verify, summary: print the report as JSON")
    .example("polar audit verify decisions.jsonl --ontology ontologies/airline/airline.blob")
    .example("polar audit summary decisions.jsonl")
    .example("polar audit head decisions.jsonl > decisions.head")
    .example("polar audit verify decisions.jsonl --ontology ontologies/airline/airline.blob --head $(cat decisions.head)")
    .action(
      action(async (verb: string, log: string, flags: Flags) => {
        if (verb === "head") {
          process.stdout.write(runAuditHead(log) + "\n");
          return;
        }
        if (verb === "summary") {
          const summary = summarizeLog(new TextDecoder().decode(readBytes(log, "decision log", MAX_LOG_BYTES)));
          process.stdout.write((flags.json ? JSON.stringify(summary, null, 2) : formatSummary(summary, log)) + "\n");
          return;
        }
        if (verb !== "verify") throw usageError("unknown-action", `unknown audit action \`${verb}\``, "the actions are `verify`, `head` and `summary`");
        // A coding-agent hook log with read-only shell approvals: the shell dispatcher re-derives them.
        const raw = new TextDecoder().decode(readBytes(log, "decision log", MAX_LOG_BYTES));
        const shell = raw.includes('"readOnly"') ? await (await import("../../shell/index.js")).readOnlyChecker() : undefined;
        const { report, text } = runAuditVerify(log, flags, shell);
        process.stdout.write(text + "\n");
        process.exitCode = report.ok ? 0 : 1;
      }),
    );
}

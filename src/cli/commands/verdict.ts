// `polar verdict --ontology FILE --state STATE.json --call CALL.json`: one verdict from the command line,
// explained in plain text (or the Verdict as JSON with --json). Exit 0 with a verdict, 1 on bad input,
// 2 on bad usage. Instead of `--state`, `--rules projection.json --db db.json` projects the state on
// the spot (as `polar project` does).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CAC } from "cac";
import { decodeBlob } from "../../blob/index.js";
import { compile } from "../../compiler/index.js";
import type { SearchBackend } from "../../core/backend.js";
import { explainVerdict } from "../../core/explain.js";
import type { ExecutedCall, TierName, Verdict, VerdictOptions } from "../../core/types.js";
import { createVerifier, JsonState, VerifierError } from "../../core/verifier.js";
import { fieldAt, timeToFixed } from "../../core/values.js";
import { action, CliError, usageError } from "../errors.js";
import { readBytes, readJson } from "../files.js";
import { instantiateCoreSync } from "../../core/wasm.js";
import type { OntologyTables } from "../../ontology/tables.js";
import { createReferenceBackend } from "../../reference/index.js";
import { baseName, printDiagnostics } from "./check.js";
import { dbList, projectFiles } from "./project.js";

interface Flags {
  ontology?: string;
  state?: string;
  rules?: string;
  db?: string | string[];
  call?: string;
  earlier?: string;
  tau?: string | number;
  now?: string;
  tiers?: string;
  failClosed?: boolean;
  backend?: string;
  json?: boolean;
}

const UsageError = CliError;

// dist/cli/ (built CLI), dist/, then src/cli/commands/ run from source.
const CORE_FILES = ["../polar-core.wasm", "./polar-core.wasm", "../../build/polar-core.wasm", "../../../build/polar-core.wasm"];

function loadOntology(path: string): { tables: OntologyTables; blob: Uint8Array; source?: string } {
  const bytes: Uint8Array = readBytes(path, "ontology");
  if (path.endsWith(".blob")) {
    try {
      return { tables: decodeBlob(bytes), blob: bytes };
    } catch (err) {
      throw new UsageError("bad-blob", `the blob \`${path}\` is refused: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const result = compile(bytes, { name: baseName(path) });
  if (!result.ok) {
    printDiagnostics(result.diagnostics, bytes, path);
    throw new UsageError("ontology-errors", `the ontology \`${path}\` has errors`);
  }
  return { tables: result.tables, blob: result.blob, source: new TextDecoder().decode(bytes) };
}

function wasmBackend(blob: Uint8Array): SearchBackend {
  for (const rel of CORE_FILES) {
    const url = new URL(rel, import.meta.url);
    const file = fileURLToPath(url);
    if (existsSync(file)) return instantiateCoreSync(readFileSync(file)).load(blob);
  }
  throw new UsageError("core-unavailable", "the core `polar-core.wasm` was not found", "run `npm run build:wasm`, or pass `--backend reference`");
}

function parseTiers(text: string): TierName[] {
  const tiers = text.split(",").map((t) => t.trim().toUpperCase()).filter((t) => t !== "");
  for (const t of tiers) {
    if (!/^T[1-5]$/.test(t)) throw usageError("bad-option", `unknown tier \`${t}\``, "tiers are T1, T2, T3 (T4 and T5 are always on)");
  }
  return tiers as TierName[];
}

/** τ as typed: a decimal in [0, 1] (`0.8`, `.75`, `1`); not hex, exponents, blanks or words. */
export function parseTau(v: string | number): number {
  const text = typeof v === "number" ? String(v) : v;
  const tau = /^(?:\d+(?:\.\d*)?|\.\d+)$/u.test(text) ? Number(text) : Number.NaN;
  if (!(tau >= 0 && tau <= 1)) throw usageError("bad-option", `--tau \`${String(v)}\` is not a decimal in [0, 1]`, "e.g. `--tau 0.8`");
  return tau;
}

function parseNow(v: string): string {
  if (timeToFixed(v) === null) throw usageError("bad-option", `--now \`${v}\` is not a time`, "an ISO-8601 time, e.g. `2024-05-15T15:00:00`");
  return v;
}

function asCall(v: unknown, path: string): ExecutedCall {
  const c = v as { name?: unknown; arguments?: unknown } | null;
  if (typeof c !== "object" || c === null || Array.isArray(c) || typeof c.name !== "string" || typeof c.arguments !== "object" || c.arguments === null || Array.isArray(c.arguments)) {
    throw new CliError("bad-call", `\`${path}\` must hold a call \`{ "name": string, "arguments": object }\``);
  }
  return v as ExecutedCall;
}

function readState(json: unknown, path: string): JsonState {
  try {
    return new JsonState(json);
  } catch (err) {
    if (err instanceof VerifierError) throw new CliError("bad-state", `the state \`${path}\` is refused: ${err.message}`, err.help);
    throw err;
  }
}

function asCalls(v: unknown, path: string): ExecutedCall[] {
  if (!Array.isArray(v)) throw new UsageError("bad-json", `\`${path}\` must hold a JSON array of calls`);
  return v.map((c, i) => asCall(c, `${path}[${i}]`));
}

function toJson(v: Verdict): string {
  return JSON.stringify({ ...v, bytes: Buffer.from(v.bytes).toString("hex") }, null, 2);
}

export function runVerdict(flags: Flags): string {
  const fromDb = flags.rules !== undefined || flags.db !== undefined;
  if (!flags.ontology || !flags.call || (!flags.state && !fromDb)) {
    throw usageError("missing-option", "`--ontology`, `--call` and either `--state` or `--rules` with `--db` are required");
  }
  if (flags.state && fromDb) throw usageError("bad-option", "give either `--state` or `--rules` with `--db`, not both");
  if (fromDb && (!flags.rules || dbList(flags.db).length === 0)) throw usageError("missing-option", "`--rules` and `--db` go together");
  const backendName = flags.backend ?? "wasm";
  if (backendName !== "wasm" && backendName !== "reference") {
    throw usageError("bad-option", `unknown backend \`${backendName}\``, "use `wasm` or `reference`");
  }
  const options: VerdictOptions = { failClosed: flags.failClosed !== false };
  if (flags.tau !== undefined) options.tau = parseTau(flags.tau);
  if (flags.tiers !== undefined) options.tiers = parseTiers(String(flags.tiers));
  const flagNow = flags.now === undefined ? undefined : parseNow(String(flags.now));
  const ontology = loadOntology(flags.ontology);
  let stateJson: unknown;
  if (fromDb) {
    stateJson = projectFiles(flags.rules!, dbList(flags.db)).toJSON();
  } else {
    stateJson = readJson(flags.state!, "state");
  }
  const state = readState(stateJson, flags.state ?? "the projected state");
  const candidate = asCall(readJson(flags.call, "call"), flags.call);
  const earlier = flags.earlier ? asCalls(readJson(flags.earlier, "earlier calls"), flags.earlier) : [];
  const backend = backendName === "wasm" ? wasmBackend(ontology.blob) : createReferenceBackend(ontology.tables);
  const now = flagNow ?? state.now;
  if (now !== undefined) options.now = now;
  const verifier = createVerifier(ontology.tables, backend);
  // As the guard does: a call on a record the state does not hold is `missing_entity`, not a search.
  const tool = verifier.tool(candidate.name);
  if (tool.known && !tool.readOnly && tool.actsOn !== null && tool.keyArg !== null) {
    const key = fieldAt(candidate.arguments, tool.keyArg);
    if ((typeof key === "string" || typeof key === "number") && !state.hasEntity(tool.actsOn, String(key))) {
      const detail = `\`${tool.actsOn}\` \`${String(key)}\` is not in the state`;
      return flags.json
        ? JSON.stringify({ reason: "missing_entity", complete: false, entity: tool.actsOn, id: String(key), detail }, null, 2)
        : `verdict: missing_entity — the record it acts on is not in the state\n${detail}`;
    }
  }
  const verdict = verifier.verdict([...earlier, candidate], state, options);
  return flags.json ? toJson(verdict) : explainVerdict(verdict, ontology.source);
}

export function register(cli: CAC): void {
  cli
    .command("verdict", "Explain the reversibility verdict for a call against a state")
    .option("--ontology <file>", "Ontology source (.polar) or compiled blob (.blob)")
    .option("--state <file>", "Layer B as JSON: { now?, entities: { entity: { id: { slot: value } } } }")
    .option("--rules <file>", "Instead of --state: the domain's projection rules, with --db")
    .option("--db <file>", "Instead of --state: a database document (JSON or TOML; NAME=FILE, repeatable), with --rules")
    .option("--call <file>", "The candidate call as JSON: { name, arguments }")
    .option("--earlier <file>", "Earlier calls of the sequence as a JSON array, forward order (each with its `before` snapshot)")
    .option("--tau <number>", "Threshold τ in [0, 1] (default 0.8)")
    .option("--now <iso>", "Session time (default: the state's `now`, else the epoch)")
    .option("--tiers <list>", "Enabled positive tiers, e.g. T1,T3 (default T1,T2,T3)")
    .option("--no-fail-closed", "Score T4/T5 steps 1 instead of 0 (ablation)")
    .option("--backend <name>", "wasm (default) or reference")
    .option("--json", "Print the Verdict as JSON (bytes as hex)")
    .example("polar verdict --ontology ontologies/airline/airline.blob --rules ontologies/airline/projection.json --db samples/tau2-airline/domains/airline/db.json --call samples/tau2-airline/call.json")
    .example("polar verdict --ontology ontologies/airline/airline.polar --state state.json --call samples/tau2-airline/call.json")
    .action(
      action((flags: Flags) => {
        process.stdout.write(runVerdict(flags) + "\n");
      }),
    );
}

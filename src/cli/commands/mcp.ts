// `polar mcp --ontology O --rules R [--policy veto|escalate|advisory] [--audit-log F] [--listen
// 127.0.0.1:PORT] [--upstream URL] [-- <server command…>]`: the MCP gateway (docs/mcp.md). Stdout is
// the MCP channel in stdio mode: everything the command says goes to stderr. Exit 0 on a clean
// shutdown (client gone, SIGTERM), 1 when the server crashed, 2 on bad usage.
import type { CAC } from "cac";
import { compile } from "../../compiler/index.js";
import { baseName, printDiagnostics } from "./check.js";
import { parseTau } from "./verdict.js";
import { action, CliError } from "../errors.js";
import { readBytes, readJson } from "../files.js";
import { resolve } from "node:path";
import { polarHome, shellStorePath } from "../../hooks/server.js";
import type { DispatcherTool } from "../../mcp/gateway.js";
import type { SqlModule } from "../../mcp/sql-dispatch.js";

interface Flags {
  ontology?: string;
  rules?: string;
  policy?: string;
  scope?: string;
  tau?: string | number;
  auditLog?: string;
  listen?: string;
  upstream?: string;
  maxSessions?: string | number;
  sessionIdle?: string | number;
  allowOrigin?: string | string[];
  dispatch?: string | string[];
  database?: string;
  store?: string;
  workspace?: string;
  "--"?: string[];
}

/** A missing or malformed flag (`--listen` off loopback, no upstream or two of them) is usage. */
const USAGE_CODES = new Set(["missing-option", "bad-option", "bad-listen", "bad-upstream", "bad-database"]);

/** The command's failures in the CLI's one style: a missing or bad option is a usage error (exit 2). */
class UsageError extends CliError {
  constructor(code: string, message: string, help?: string) {
    super(code, message, help, USAGE_CODES.has(code) ? 2 : 1);
  }
}


/** A `.blob` as is; a `.polar` source compiled on the spot (the same bytes as `polar compile`). */
export function loadOntology(path: string): Uint8Array {
  const bytes = readBytes(path, "ontology");
  if (path.endsWith(".blob")) return new Uint8Array(bytes);
  const r = compile(bytes, { name: baseName(path) });
  if (!r.ok) {
    printDiagnostics(r.diagnostics, bytes, path);
    throw new UsageError("ontology-errors", `the ontology \`${path}\` has errors`);
  }
  return r.blob;
}

function parseListen(v: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError("bad-option", `\`--listen\` takes HOST:PORT, got \`${v}\``, "e.g. --listen 127.0.0.1:8808");
  return { host: m[1].replace(/^\[|\]$/g, ""), port };
}

/** A whole number in [1, max] from its text (`--max-sessions 0`, `1.5`, `""`, `1e3` are usage errors). */
function positiveInt(v: string | number, flag: string, max: number): number {
  const text = String(v).trim();
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new UsageError("bad-option", `\`${flag}\` takes a whole number from 1 to ${max}, got \`${String(v)}\``);
  return n;
}

/** `--dispatch TOOL=sql:ARG … --database URL` and `--dispatch TOOL=shell:ARG … --workspace DIR`
 * [`--store DIR`]: the SQL guard or the shell guard judges those tools' strings. */
async function dispatchersOf(flags: Flags, policy: string): Promise<Map<string, DispatcherTool> | undefined> {
  const specs = flags.dispatch === undefined ? [] : (Array.isArray(flags.dispatch) ? flags.dispatch : [flags.dispatch]).map(String);
  if (specs.length === 0) {
    if (flags.database !== undefined || flags.store !== undefined || flags.workspace !== undefined) throw new UsageError("bad-option", "`--database`, `--workspace` and `--store` go with `--dispatch TOOL=sql:ARG` / `TOOL=shell:ARG`");
    return undefined;
  }
  const { parseDispatch, sqlDispatchers, SqlDispatchError } = await import("../../mcp/sql-dispatch.js");
  try {
    const tools = specs.map(parseDispatch);
    const seen = new Set<string>();
    for (const t of tools) {
      if (seen.has(t.tool)) throw new SqlDispatchError("bad-option", `\`--dispatch\` names \`${t.tool}\` twice`);
      seen.add(t.tool);
    }
    const sqlTools = tools.filter((t) => t.kind === "sql");
    const shellTools = tools.filter((t) => t.kind === "shell");
    if (sqlTools.length > 0 && (flags.database === undefined || String(flags.database) === "")) throw new UsageError("missing-option", "`--dispatch TOOL=sql:ARG` needs `--database sqlite:PATH` or `--database postgres://…` (the server's database, read before each statement)");
    if (sqlTools.length === 0 && flags.database !== undefined) throw new UsageError("bad-option", "`--database` goes with `--dispatch TOOL=sql:ARG`");
    if (shellTools.length > 0 && (flags.workspace === undefined || String(flags.workspace) === "")) throw new UsageError("missing-option", "`--dispatch TOOL=shell:ARG` needs `--workspace DIR` (where the server runs its commands)");
    if (shellTools.length === 0 && flags.workspace !== undefined) throw new UsageError("bad-option", "`--workspace` goes with `--dispatch TOOL=shell:ARG`");
    const store = resolve(flags.store !== undefined ? String(flags.store) : shellStorePath(polarHome()));
    const out = new Map<string, DispatcherTool>();
    if (sqlTools.length > 0) {
      const sql: SqlModule = await import("../../sql/index.js");
      // A restore point makes a DROP undoable, so the gateway's veto still admits it; advisory only records.
      for (const [k, v] of await sqlDispatchers(sql, { tools: sqlTools, database: String(flags.database), store, policy: policy === "advisory" ? "advisory" : "snapshot" })) out.set(k, v);
    }
    if (shellTools.length > 0) {
      const { shellDispatchers } = await import("../../mcp/shell-dispatch.js");
      const shell = await import("../../shell/index.js");
      for (const [k, v] of shellDispatchers(shell, { tools: shellTools, workspace: resolve(String(flags.workspace)), store, policy: policy === "advisory" ? "advisory" : "snapshot" })) out.set(k, v);
    }
    return out;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const err = e as Error & { code?: string };
    if (e instanceof SqlDispatchError || typeof err.code === "string") throw new UsageError(err.code ?? "bad-option", err.message);
    throw e;
  }
}

export function register(cli: CAC): void {
  cli
    .command("mcp", "Run the MCP gateway: judge every tools/call of an MCP server before it runs")
    .option("--ontology <file>", "Ontology (.blob or .polar) for the server's tools")
    .option("--rules <file>", "Projection rules (projection.json) with the reads before judging")
    .option("--policy <name>", "veto, escalate (consent through elicitation) or advisory", { default: "veto" })
    .option("--scope <scope>", "turn (each call alone) or session (calls since the start)", { default: "turn" })
    .option("--tau <number>", "Threshold τ in [0, 1] (default 0.8)")
    .option("--audit-log <file>", "Append one JSONL decision record per judged call")
    .option("--listen <host:port>", "Serve Streamable HTTP on 127.0.0.1:PORT instead of stdio")
    .option("--max-sessions <n>", "With --listen: client sessions open at once (default 16)")
    .option("--session-idle <seconds>", "With --listen: close a session after this long without a request (default 1800)")
    .option("--allow-origin <origin>", "With --listen: also serve browser requests from this Origin (repeatable)")
    .option("--upstream <url>", "The MCP server over Streamable HTTP (instead of a command after --)")
    .option("--dispatch <tool=kind:arg>", "Judge this tool's string argument: TOOL=sql:ARG (an SQL statement) or TOOL=shell:ARG (a shell command); repeatable (docs/sql.md)")
    .option("--database <url>", "With --dispatch: the server's database, sqlite:PATH or postgres://…")
    .option("--workspace <dir>", "With --dispatch TOOL=shell:ARG: the directory the server runs its commands in")
    .option("--store <dir>", "With --dispatch: restore points and the undo journal (default $POLAR_HOME/store, what `polar undo` reads)")
    .example("polar mcp --ontology ontologies/mcp-memory/memory.blob --rules ontologies/mcp-memory/projection.json -- npx @modelcontextprotocol/server-memory")
    .action(action(async (flags: Flags) => {
      {
        if (!flags.ontology || !flags.rules) throw new UsageError("missing-option", "`polar mcp` needs `--ontology FILE` and `--rules FILE`");
        const policy = flags.policy ?? "veto";
        if (!["veto", "escalate", "advisory"].includes(policy)) throw new UsageError("bad-option", `unknown policy \`${policy}\``, "use veto, escalate or advisory");
        const scope = flags.scope ?? "turn";
        if (scope !== "turn" && scope !== "session") throw new UsageError("bad-option", `unknown scope \`${scope}\``, "use turn or session");
        const tau = flags.tau === undefined ? undefined : parseTau(flags.tau);
        const ontology = loadOntology(flags.ontology);
        const rules = readJson(flags.rules, "projection rules");
        const command = flags["--"] ?? [];
        const maxSessions = flags.maxSessions === undefined ? undefined : positiveInt(flags.maxSessions, "--max-sessions", 10_000);
        const sessionIdleSeconds = flags.sessionIdle === undefined ? undefined : positiveInt(flags.sessionIdle, "--session-idle", 7 * 24 * 3600);
        const dispatchers = await dispatchersOf(flags, policy);
        // The SDK stays out of every other command: loaded only here.
        const { startGateway, GatewayStartError } = await import("../../mcp/node.js");
        try {
          const running = await startGateway({
            ontology,
            rules,
            policy: policy as "veto" | "escalate" | "advisory",
            scope,
            tau,
            auditLog: flags.auditLog,
            command: command.length > 0 ? command : undefined,
            upstreamUrl: flags.upstream,
            listen: flags.listen === undefined ? undefined : parseListen(flags.listen),
            maxSessions,
            sessionIdleSeconds,
            dispatchers,
            allowedOrigins: flags.allowOrigin === undefined ? undefined : (Array.isArray(flags.allowOrigin) ? flags.allowOrigin : [flags.allowOrigin]).map(String),
          });
          const code = await running.done;
          process.exitCode = code;
          // Nothing else should keep the process alive once the gateway is down.
          setTimeout(() => process.exit(code), 100).unref();
        } catch (e) {
          if (e instanceof GatewayStartError) throw new UsageError(e.code, e.message, e.help);
          const err = e as Error & { code?: string };
          throw new UsageError(err.code === "invalid-rules" ? "invalid-rules" : "start-failed", err.message, (err as { help?: string }).help);
        }
      }
    }));
}

// Shared by the gateway tests: the real servers from node_modules, temp dirs, a scripted SDK client
// talking to `polar mcp` (run from source with tsx), and process checks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
export const FS_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const MEMORY_ONTOLOGY = join(ROOT, "ontologies/mcp-memory/memory.blob");
export const MEMORY_RULES = join(ROOT, "ontologies/mcp-memory/projection.json");
export const FS_ONTOLOGY = join(ROOT, "ontologies/mcp-filesystem/filesystem.blob");
export const FS_RULES = join(ROOT, "ontologies/mcp-filesystem/projection.json");
const CLI = join(ROOT, "src/cli/index.ts");

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `polar-mcp-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export type Elicit = (message: string, params: unknown) => ElicitResult | Promise<ElicitResult>;

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  /** The gateway process id. */
  pid: number;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** `polar mcp` in front of `server` (a command line), with an SDK client on its stdio. */
export async function gateway(opts: {
  ontology: string;
  rules: string;
  server: string[];
  policy?: string;
  scope?: string;
  tau?: number;
  upstream?: string;
  auditLog?: string;
  env?: Record<string, string>;
  elicit?: Elicit;
  /** More `polar mcp` flags, before the server command (e.g. `--dispatch`). */
  extraArgs?: string[];
}): Promise<Connected> {
  // One process (tsx as a loader, not its CLI wrapper), so the pid is the gateway's own.
  const args = ["--import", "tsx", CLI, "mcp", "--ontology", opts.ontology, "--rules", opts.rules, "--policy", opts.policy ?? "veto"];
  if (opts.scope) args.push("--scope", opts.scope);
  if (opts.tau !== undefined) args.push("--tau", String(opts.tau));
  if (opts.auditLog) args.push("--audit-log", opts.auditLog);
  if (opts.extraArgs) args.push(...opts.extraArgs);
  if (opts.upstream) args.push("--upstream", opts.upstream);
  else args.push("--", ...opts.server);
  const transport = new StdioClientTransport({ command: process.execPath, args, env: { ...getDefaultEnvironment(), ...(opts.env ?? {}) }, stderr: "pipe", cwd: ROOT });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => (err += c.toString("utf8")));
  const client = new Client({ name: "polar-test-client", version: "1.0.0" }, opts.elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  if (opts.elicit) {
    const elicit = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, (req) => elicit((req.params as { message: string }).message, req.params));
  }
  await client.connect(transport);
  return {
    client,
    transport,
    pid: transport.pid!,
    stderr: () => err,
    call: (name, a) => client.request({ method: "tools/call", params: { name, arguments: a } }, CallToolResultSchema) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone (or fails after `ms`). */
export async function gone(pid: number, ms = 8000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

/** Every descendant of a process (Linux /proc). */
export async function descendantsOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const c of await childrenOf(pid)) out.push(c, ...(await descendantsOf(c)));
  return out;
}

/** The children of a process (Linux /proc), to check none is left behind. */
export async function childrenOf(pid: number): Promise<number[]> {
  const { readdirSync, readFileSync } = await import("node:fs");
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export interface DecisionMetaShape {
  seq: number | null;
  route: string;
  reason: string;
  phi: number | null;
  inverse: Array<{ tool: string | null; arguments: Record<string, unknown> | null; tier: string; annotation: string }>;
  approval?: string;
}

export function decisionOf(r: CallToolResult): DecisionMetaShape {
  const m = (r._meta as Record<string, unknown> | undefined)?.["polar-guard/decision"];
  if (m === undefined) throw new Error(`no decision in the result: ${JSON.stringify(r)}`);
  return m as DecisionMetaShape;
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

/** Runs the inverse sequence π of a decision through the gateway, step by step; each step must run. */
export async function runInverse(g: Connected, d: DecisionMetaShape): Promise<CallToolResult[]> {
  const out: CallToolResult[] = [];
  for (const s of d.inverse) {
    if (s.tool === null || s.arguments === null) throw new Error(`a step without an inverse call: ${JSON.stringify(s)}`);
    const r = await g.call(s.tool, s.arguments);
    if (r.isError) throw new Error(`inverse step ${s.tool} failed: ${textOf(r)}`);
    out.push(r);
  }
  return out;
}

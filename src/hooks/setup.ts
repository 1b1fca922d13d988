// The engine as `polar serve` and `polar hook --in-process` build it: the shell guard when the build
// has one, and a core guard for each MCP server configured in `<home>/config.json`:
//   { "mcp": { "<server>": { "ontology": "file.blob|.polar", "rules": "projection.json", "policy": "veto|escalate" } } }
// A configuration that cannot be read is an error at start (the daemon does not run half-configured).
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { compile } from "../compiler/index.js";
import { createGuard } from "../guard/index.js";
import { LayerB, parseProjectionRules } from "../projection/index.js";
import { HookEngine, type ShellGuardFactory } from "./engine.js";
import { coreHookGuard, type HookGuard } from "./guards.js";

export interface McpServerConfig {
  ontology: string;
  rules?: string;
  policy?: "veto" | "escalate";
}

export interface HookConfig {
  mcp: Record<string, McpServerConfig>;
}

export class HookConfigError extends Error {
  override readonly name = "HookConfigError";
  readonly code = "bad-hook-config";
}

const sha256 = (d: Uint8Array | string): Uint8Array => createHash("sha256").update(d).digest();

export function readHookConfig(home: string): HookConfig {
  const file = join(home, "config.json");
  if (!existsSync(file)) return { mcp: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new HookConfigError(`\`${file}\` is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const o = raw as { mcp?: unknown };
  if (typeof o !== "object" || o === null || Array.isArray(o)) throw new HookConfigError(`\`${file}\` is not a JSON object`);
  for (const k of Object.keys(o)) if (k !== "mcp") throw new HookConfigError(`\`${file}\`: unknown key \`${k}\``);
  // Absent: no server. Any other value that is not an object (null too) is a wrong shape, never "none".
  const mcp = o.mcp === undefined ? {} : o.mcp;
  if (typeof mcp !== "object" || mcp === null || Array.isArray(mcp)) throw new HookConfigError(`\`${file}\`: \`mcp\` is not an object`);
  const out: Record<string, McpServerConfig> = {};
  for (const [name, v] of Object.entries(mcp as Record<string, unknown>)) {
    const c = v as Record<string, unknown>;
    // JSON's null has no properties to read; any other value that is not an object has no \`ontology\` string.
    if (c === null || typeof c.ontology !== "string") throw new HookConfigError(`\`${file}\`: mcp.${name} needs an \`ontology\` file`);
    for (const k of Object.keys(c)) if (!["ontology", "rules", "policy"].includes(k)) throw new HookConfigError(`\`${file}\`: mcp.${name}: unknown key \`${k}\``);
    if (c.rules !== undefined && typeof c.rules !== "string") throw new HookConfigError(`\`${file}\`: mcp.${name}.rules is not a file name`);
    if (c.policy !== undefined && c.policy !== "veto" && c.policy !== "escalate") throw new HookConfigError(`\`${file}\`: mcp.${name}.policy is veto or escalate`);
    const at = (p: string): string => (isAbsolute(p) ? p : resolve(home, p));
    out[name] = { ontology: at(c.ontology), ...(c.rules === undefined ? {} : { rules: at(c.rules as string) }), ...(c.policy === undefined ? {} : { policy: c.policy as "veto" | "escalate" }) };
  }
  return { mcp: out };
}

function loadBlob(path: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(path));
  if (path.endsWith(".blob")) return bytes;
  // Named by its file name as `polar compile` and `polar audit verify` name it: the same source gives
  // the same blob, so the hash the daemon's records carry is the one the audit finds.
  const r = compile(bytes, { name: basename(path) });
  if (!r.ok) throw new HookConfigError(`the ontology \`${path}\` has errors (run \`polar check ${path}\`)`);
  return r.blob;
}

/** One factory per MCP server: each session gets its own guard over its own Layer B. */
export function mcpGuards(config: HookConfig): Record<string, () => HookGuard> {
  const out: Record<string, () => HookGuard> = {};
  for (const [name, c] of Object.entries(config.mcp)) {
    const blob = loadBlob(c.ontology);
    const projection = c.rules === undefined ? undefined : parseProjectionRules(JSON.parse(readFileSync(c.rules, "utf8")));
    const make = (): HookGuard =>
      coreHookGuard(
        createGuard({
          ontology: blob,
          state: new LayerB(),
          policy: c.policy ?? "veto",
          scope: "session",
          config: { sha256, ...(projection === undefined ? {} : { projection }) },
        }),
      );
    // One guard built now: a blob the guard refuses (corrupted, another format) or rules that do not fit
    // the ontology stop the start, instead of a daemon that refuses every call of that server.
    try {
      make();
    } catch (e) {
      throw new HookConfigError(`mcp.${name}: the guard cannot be built from \`${c.ontology}\` (${e instanceof Error ? e.message : String(e)})`);
    }
    out[name] = make;
  }
  return out;
}

export function createHookEngine(home: string, shellGuard: ShellGuardFactory | null): HookEngine {
  return new HookEngine({ home, shellGuard, mcp: mcpGuards(readHookConfig(home)) });
}

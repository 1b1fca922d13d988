// Tool manifests for `polar lint`: what a domain's agent can call, read from the shapes τ²-bench and
// its tooling produce. Every shape becomes one list of ManifestTool; the kind is known only when the
// manifest says it (a τ²-bench tools JSON does, a `tool_defs` block does not).

export type ToolKind = "read" | "write" | "pure" | "transfer" | "unknown";
export type ToolSide = "agent" | "user";

export interface ManifestParam {
  name: string;
  required: boolean;
}

export interface ManifestTool {
  name: string;
  kind: ToolKind;
  side: ToolSide;
  /** The tool's parameters when the manifest lists them, null when it does not. */
  params: ManifestParam[] | null;
}

export type ManifestFormat =
  | "tools-json" // ../shared/tau2/tools/<domain>.json: [{ name, kind, mutates_state, side? }]
  | "tool-defs" // τ²-bench EnvironmentInfo.tool_defs: { name: { name, doc, params, returns } }
  | "results" // a τ²-bench results file: info.environment_info.tool_defs (+ user_tool_defs)
  | "openai-tools"; // [{ type: "function", function: { name } }]

export interface Manifest {
  format: ManifestFormat;
  tools: ManifestTool[];
}

export type ManifestErrorCode = "bad-manifest" | "no-tool-definitions";

export class ManifestError extends Error {
  readonly code: ManifestErrorCode;
  readonly help: string | undefined;
  constructor(code: ManifestErrorCode, message: string, help?: string) {
    super(message);
    this.name = "ManifestError";
    this.code = code;
    this.help = help;
  }
}

type Obj = Record<string, unknown>;

const SHAPES_HELP =
  "a manifest is a τ²-bench tools JSON (a list of { name, kind }), a `tool_defs` object ({ name: { name, doc, params } }), " +
  "a τ²-bench results file (info.environment_info.tool_defs) or an OpenAI tools list";

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const KINDS: ReadonlySet<string> = new Set(["read", "write", "pure", "transfer"]);

/** The kind a manifest entry states: `kind` when it is one we know, else `mutates_state`, else unknown. */
function kindOf(entry: Obj): ToolKind {
  if (typeof entry.kind === "string" && KINDS.has(entry.kind)) return entry.kind as ToolKind;
  if (entry.mutates_state === true) return "write";
  if (entry.mutates_state === false) return "read";
  return "unknown";
}

/** A tools-JSON parameter type is optional when it states a default outside parentheses
 * (`"int = 12"`; `"str (prefix L=Line)"` is required) or admits None/Optional. */
function optionalType(type: string): boolean {
  let depth = 0;
  let outside = "";
  for (const ch of type) {
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") depth = Math.max(0, depth - 1);
    else if (depth === 0) outside += ch;
  }
  return /=/.test(outside) || /\bOptional\b|\|\s*None\b|\bNone\s*\|/.test(type);
}

/** Parameters in any listed shape: `{ name: "type" }` (tools JSON), or a JSON schema
 * `{ properties, required }` (tool_defs, OpenAI tools); null when there are none listed or the shape is
 * unknown. */
function paramsOf(v: unknown): ManifestParam[] | null {
  if (!isObj(v)) return null;
  if (isObj(v.properties) || v.type === "object") {
    if (!isObj(v.properties)) return [];
    const required = new Set(Array.isArray(v.required) ? v.required.filter((x): x is string => typeof x === "string") : []);
    return Object.keys(v.properties).map((name) => ({ name, required: required.has(name) }));
  }
  const keys = Object.keys(v);
  if (!keys.every((k) => typeof v[k] === "string")) return null;
  return keys.map((name) => ({ name, required: !optionalType(v[name] as string) }));
}

function sideOf(entry: Obj, fallback: ToolSide): ToolSide {
  return entry.side === "user" ? "user" : entry.side === "agent" ? "agent" : fallback;
}

function fromList(list: unknown[]): Manifest {
  const tools: ManifestTool[] = [];
  let openai = false;
  list.forEach((entry, i) => {
    if (!isObj(entry)) throw new ManifestError("bad-manifest", `manifest entry ${i} is not an object`, SHAPES_HELP);
    if (isObj(entry.function) && typeof entry.function.name === "string") {
      openai = true;
      tools.push({ name: entry.function.name, kind: "unknown", side: "agent", params: paramsOf(entry.function.parameters) });
      return;
    }
    if (typeof entry.name !== "string" || entry.name === "") {
      throw new ManifestError("bad-manifest", `manifest entry ${i} has no string \`name\``, SHAPES_HELP);
    }
    tools.push({ name: entry.name, kind: kindOf(entry), side: sideOf(entry, "agent"), params: paramsOf(entry.params) });
  });
  return { format: openai ? "openai-tools" : "tools-json", tools };
}

function fromToolDefs(defs: Obj, side: ToolSide, into: ManifestTool[]): void {
  for (const key of Object.keys(defs)) {
    const def = defs[key];
    const name = isObj(def) && typeof def.name === "string" && def.name !== "" ? def.name : key;
    into.push({ name, kind: isObj(def) ? kindOf(def) : "unknown", side, params: isObj(def) ? paramsOf(def.params) : null });
  }
}

/** A `tool_defs` block: every value is a signature object (`doc`, `params`, or a `name` equal to its key). */
function looksLikeToolDefs(o: Obj): boolean {
  const keys = Object.keys(o);
  return keys.length > 0 && keys.every((k) => {
    const v = o[k];
    return isObj(v) && (v.name === k || "doc" in v || "params" in v);
  });
}

function fromEnvironmentInfo(env: Obj, format: ManifestFormat): Manifest {
  const tools: ManifestTool[] = [];
  if (isObj(env.tool_defs)) fromToolDefs(env.tool_defs, "agent", tools);
  if (isObj(env.user_tool_defs)) fromToolDefs(env.user_tool_defs, "user", tools);
  if (tools.length === 0) {
    throw new ManifestError(
      "no-tool-definitions",
      "the results file records no tool definitions (`info.environment_info.tool_defs` is empty or null)",
      "τ²-bench writes them only when run with tool info included; pass the domain's tools JSON instead",
    );
  }
  return { format, tools };
}

/** Reads a manifest in any supported shape. Throws ManifestError. */
export function parseManifest(json: unknown): Manifest {
  if (Array.isArray(json)) return fromList(json);
  if (!isObj(json)) throw new ManifestError("bad-manifest", "a manifest must be a JSON list or object", SHAPES_HELP);
  if (isObj(json.info) && isObj(json.info.environment_info)) return fromEnvironmentInfo(json.info.environment_info, "results");
  if (isObj(json.environment_info)) return fromEnvironmentInfo(json.environment_info, "results");
  if ("tool_defs" in json || "user_tool_defs" in json) return fromEnvironmentInfo(json, "tool-defs");
  if (Array.isArray(json.tools)) return fromList(json.tools);
  if (looksLikeToolDefs(json)) {
    const tools: ManifestTool[] = [];
    fromToolDefs(json, "agent", tools);
    return { format: "tool-defs", tools };
  }
  throw new ManifestError("bad-manifest", "the JSON is not a tool manifest this command knows", SHAPES_HELP);
}

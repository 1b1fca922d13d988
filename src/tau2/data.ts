// A τ²-bench data folder (laid out like `../shared/tau2` and τ²-bench's own `data/tau2`): domains with
// their databases and tasks, tool manifests and results files. Node only (it reads files).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseTomlDocument } from "../projection/toml.js";
import { ProjectionError } from "../projection/errors.js";
import { normalizeTask, readResults, type Tau2Task, type Trajectory } from "./adapter.js";

export interface Tau2Domain {
  name: string;
  dir: string;
  /** The domain's documents by the name projection rules use: `db` (db.json or db.toml), `user_db`. */
  documents: Record<string, unknown>;
  tasks: Map<string, Tau2Task>;
}

export interface Tau2Data {
  root: string;
  domainNames: string[];
  /** Loads (once) and returns a domain; throws `bad-document` when it is absent. */
  domain(name: string): Tau2Domain;
  /** Results files under `results/`, sorted (absolute paths). */
  resultsFiles(): string[];
  /** Reads one results file, attaching the domain's tasks when the file does not embed them. */
  readResultsFile(file: string): Trajectory[];
}

export function readTau2Data(dir: string): Tau2Data {
  const root = resolve(dir);
  if (!existsSync(join(root, "domains")) || !statSync(join(root, "domains")).isDirectory()) {
    throw new ProjectionError("bad-document", `\`${root}\` is not a τ²-bench data folder: it has no \`domains/\``, {
      help: "pass a folder laid out like τ²-bench's data/tau2: domains/<domain>/db.json|db.toml, tasks.json; results/",
    });
  }
  const domainNames = readdirSync(join(root, "domains"))
    .filter((d) => statSync(join(root, "domains", d)).isDirectory())
    .sort();
  const cache = new Map<string, Tau2Domain>();
  const domain = (name: string): Tau2Domain => {
    const hit = cache.get(name);
    if (hit) return hit;
    const d = loadDomain(root, name);
    cache.set(name, d);
    return d;
  };
  return {
    root,
    domainNames,
    domain,
    resultsFiles() {
      const r = join(root, "results");
      if (!existsSync(r)) return [];
      return readdirSync(r).filter((f) => f.endsWith(".json")).sort().map((f) => join(r, f));
    },
    readResultsFile(file: string) {
      const json: unknown = parseFile(file, readFileSync(file, "utf8"), JSON.parse);
      const first = readResults(json, { file });
      // Bare lists carry no tasks: attach the domain's (tasks.json), when the domain is known and present.
      if (first.length > 0 && first.every((t) => t.task === null) && first[0].domain && domainNames.includes(first[0].domain)) {
        return readResults(json, { file, tasks: domain(first[0].domain).tasks });
      }
      return first;
    },
  };
}

/** A data file parsed; a failure names the file (a corrupt db must say which one). */
function parseFile(file: string, text: string, parse: (text: string) => unknown): unknown {
  try {
    return parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ProjectionError("bad-document", `\`${file}\` cannot be read: ${why.charAt(0).toLowerCase()}${why.slice(1)}`);
  }
}

function loadDomain(root: string, name: string): Tau2Domain {
  const dir = join(root, "domains", name);
  if (!existsSync(dir)) throw new ProjectionError("bad-document", `τ²-bench domain \`${name}\` is not in \`${root}\``);
  const documents: Record<string, unknown> = {};
  const readIf = (f: string): string | null => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), "utf8") : null);
  const dbJson = readIf("db.json");
  const dbToml = readIf("db.toml");
  if (dbJson !== null) documents.db = parseFile(join(dir, "db.json"), dbJson, JSON.parse);
  else if (dbToml !== null) documents.db = parseFile(join(dir, "db.toml"), dbToml, parseTomlDocument);
  const userDb = readIf("user_db.toml");
  if (userDb !== null) documents.user_db = parseFile(join(dir, "user_db.toml"), userDb, parseTomlDocument);
  const userDbJson = readIf("user_db.json");
  if (userDbJson !== null) documents.user_db = parseFile(join(dir, "user_db.json"), userDbJson, JSON.parse);
  const tasks = new Map<string, Tau2Task>();
  const tasksText = readIf("tasks.json");
  if (tasksText !== null) {
    const list: unknown = parseFile(join(dir, "tasks.json"), tasksText, JSON.parse);
    if (Array.isArray(list)) for (const t of list) {
      const task = normalizeTask(t);
      tasks.set(task.id, task);
    }
  }
  return { name, dir, documents, tasks };
}

// `polar project --rules projection.json --db db.json [--db NAME=FILE …] [-o state.json]`: from a real
// database to the Layer B state file `polar verdict --state` reads. A `--db` is a JSON or TOML file
// (by extension); `NAME=FILE` names which of the rules' documents it is (default `db`), so telecom's
// `db.toml` and `user_db.toml` go in one state. The same projection code the guard runs (src/projection).
import { writeFileSync } from "node:fs";
import type { CAC } from "cac";
import { LayerB } from "../../projection/layer-b.js";
import { projectDocument } from "../../projection/project.js";
import { parseProjectionRules } from "../../projection/rules.js";
import { parseTomlDocument } from "../../projection/toml.js";
import { ProjectionError } from "../../projection/errors.js";
import { action, CliError, usageError } from "../errors.js";
import { parseJsonText, readText } from "../files.js";

interface Flags {
  rules?: string;
  db?: string | string[];
  o?: string;
  output?: string;
}

function parseDocument(path: string, what: string): unknown {
  const text = readText(path, what);
  if (/\.toml$/i.test(path)) {
    try {
      return parseTomlDocument(text);
    } catch (err) {
      throw new CliError("bad-document", `the ${what} \`${path}\` is not valid TOML`, err instanceof ProjectionError ? err.help : undefined);
    }
  }
  return parseJsonText(text, path, what);
}

/** `FILE` (the `db` document) or `NAME=FILE`. */
function documentSpec(spec: string): { document: string; path: string } {
  const eq = spec.indexOf("=");
  // A path may hold `=`; a document name never holds a path separator.
  if (eq > 0 && !/[\\/]/.test(spec.slice(0, eq))) return { document: spec.slice(0, eq), path: spec.slice(eq + 1) };
  return { document: "db", path: spec };
}

/** Layer B from the rules file and the database files, as the guard would project them. */
export function projectFiles(rulesPath: string, dbSpecs: readonly string[]): LayerB {
  if (dbSpecs.length === 0) throw usageError("missing-option", "`--db FILE` is required (repeat it as `--db NAME=FILE` for more documents)");
  let rules;
  try {
    rules = parseProjectionRules(parseDocument(rulesPath, "projection rules"));
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError((err as ProjectionError).code ?? "invalid-rules", `the projection rules \`${rulesPath}\` are refused: ${(err as Error).message}`, (err as ProjectionError).help);
  }
  const state = new LayerB();
  for (const spec of dbSpecs) {
    const { document, path } = documentSpec(spec);
    const doc = parseDocument(path, "database");
    try {
      projectDocument(rules, doc, state, { document });
    } catch (err) {
      if (!(err instanceof ProjectionError)) throw err;
      throw new CliError(err.code, `\`${path}\` (document \`${document}\`): ${err.message}`, err.help);
    }
  }
  return state;
}

export function dbList(db: string | string[] | undefined): string[] {
  return db === undefined ? [] : Array.isArray(db) ? db.map(String) : [String(db)];
}

export function runProject(flags: Flags): { json: string; out: string | null } {
  if (!flags.rules) throw usageError("missing-option", "`--rules FILE` is required", "the domain's projection rules, e.g. `ontologies/airline/projection.json`");
  const state = projectFiles(flags.rules, dbList(flags.db));
  const json = JSON.stringify(state.toJSON(), null, 2) + "\n";
  const out = flags.o ?? flags.output ?? null;
  return { json, out };
}

export function register(cli: CAC): void {
  cli
    .command("project", "Project a database (JSON or TOML) through a domain's rules into a Layer B state file")
    .option("--rules <file>", "The domain's projection rules (projection.json)")
    .option("--db <file>", "A database document, JSON or TOML; `NAME=FILE` for a document other than `db` (repeatable)")
    .option("-o, --output <file>", "Write the state here (default: stdout)")
    .example("polar project --rules ontologies/airline/projection.json --db samples/tau2-airline/domains/airline/db.json -o state.json")
    .example("polar project --rules ontologies/telecom/projection.json --db db.toml --db user_db=user_db.toml -o state.json")
    .action(
      action((flags: Flags) => {
        const { json, out } = runProject(flags);
        if (out === null) process.stdout.write(json);
        else writeFileSync(out, json);
      }),
    );
}

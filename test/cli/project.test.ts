// `polar project` (a database → the Layer B state file) and `polar verdict --rules --db`: the same
// projection the guard runs, from JSON or TOML, through the CLI.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "smol-toml";
import { describe, expect, test } from "vitest";
import { parseProjectionRules, projectDocument } from "../../src/projection/index.js";
import { projectFiles, runProject } from "../../src/cli/commands/project.js";
import { runVerdict } from "../../src/cli/commands/verdict.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const rulesFile = join(root, "ontologies/airline/projection.json");
const dbFile = join(root, "samples/tau2-airline/domains/airline/db.json");
const callFile = join(root, "samples/tau2-airline/call.json");
const dir = mkdtempSync(join(tmpdir(), "polar-project-"));

function cli(args: string[]): { code: number; out: string; err: string } {
  try {
    return { code: 0, out: execFileSync("npx", ["tsx", "src/cli/index.ts", ...args], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }), err: "" };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, out: x.stdout, err: x.stderr };
  }
}

describe("polar project", () => {
  const expected = projectDocument(parseProjectionRules(JSON.parse(readFileSync(rulesFile, "utf8"))), JSON.parse(readFileSync(dbFile, "utf8"))).toJSON();

  test("JSON database → the state the guard projects", () => {
    expect(JSON.parse(runProject({ rules: rulesFile, db: dbFile }).json)).toEqual(expected);
    expect(Object.keys(expected.entities.reservation)).toContain("FQ8APE");
  });

  test("the same database as TOML gives the same state", () => {
    const toml = join(dir, "db.toml");
    writeFileSync(toml, stringify(JSON.parse(readFileSync(dbFile, "utf8"))));
    expect(projectFiles(rulesFile, [toml]).toJSON()).toEqual(expected);
  });

  test("a document the rules do not have, a file that is not JSON, a missing --db: typed errors", () => {
    expect(() => projectFiles(rulesFile, [`user_db=${dbFile}`])).toThrow(/no document `user_db`/);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{not json");
    expect(() => projectFiles(rulesFile, [bad])).toThrow(/is not JSON/);
    expect(() => runProject({ rules: rulesFile })).toThrow(/`--db FILE` is required/);
  });

  test("the CLI writes the state file that polar verdict --state reads; verdict --rules --db says the same", () => {
    const out = join(dir, "state.json");
    const r = cli(["project", "--rules", rulesFile, "--db", dbFile, "-o", out]);
    expect(r).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(expected);
    const viaState = runVerdict({ ontology: join(root, "ontologies/airline/airline.blob"), state: out, call: callFile, now: "2024-05-15T15:00:00", json: true, backend: "reference" });
    const viaDb = runVerdict({ ontology: join(root, "ontologies/airline/airline.blob"), rules: rulesFile, db: dbFile, call: callFile, now: "2024-05-15T15:00:00", json: true, backend: "reference" });
    expect(viaDb).toBe(viaState);
    expect(JSON.parse(viaDb)).toMatchObject({ reason: "ok", phi: 990000 });
    const missing = cli(["project", "--db", dbFile]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error\[missing-option\]: `--rules FILE` is required/);
  });
});

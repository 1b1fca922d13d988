// The CLI's one error style (`error[code]: message`, `help: …`; exit 1 for findings and bad input, 2
// for usage), run as a user runs it (tsx, child process), plus the in-process checks of bad input.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseTau, runVerdict } from "../../src/cli/commands/verdict.js";
import { formatError, CliError, usageError } from "../../src/cli/errors.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "polar-cli-style-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function polar(...args: string[]) {
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), join(REPO, "src", "cli", "index.ts"), ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const ontology = join(REPO, "test", "guard", "fixtures", "airline.polar");
const state = file("state.json", JSON.stringify({ entities: { reservation: { R1: { status: "confirmed", user_id: "mia", flights: [], cabin: "economy" } } } }));
const call = file("call.json", JSON.stringify({ name: "cancel_reservation", arguments: { reservation_id: "R1" } }));
const ERROR_LINE = /^error\[[a-z][a-z0-9-]*\]: [^\n]+\n(?:help: [^\n]+\n)?$/u;

describe("one error style", () => {
  it("formats every error as `error[code]: message` then `help: …`", () => {
    expect(formatError(new CliError("bad-thing", "the `x` is bad", "try `y`"))).toBe("error[bad-thing]: the `x` is bad\nhelp: try `y`\n");
    expect(formatError(new Error("plain"))).toBe("error[error]: plain\n");
    expect(usageError("u", "m").exit).toBe(2);
    expect(new CliError("c", "m").exit).toBe(1);
  });

  it("bare `polar` and `polar --nope` exit 2 with the usage", () => {
    for (const args of [[], ["--nope"], ["nope"]]) {
      const r = polar(...args);
      expect(r.code, args.join(" ")).toBe(2);
      // Every registered command, in registration order.
      expect(r.stderr).toMatch(/^usage: polar <check\|compile\|verdict(?:\|[a-z]+)*> \[options\]\n/u);
      for (const c of ["audit", "lint", "eval", "demo"]) expect(r.stderr.split("\n")[0]).toContain(`|${c}`);
      expect(r.stderr.split("\n").slice(1).join("\n")).toMatch(ERROR_LINE);
    }
    expect(polar("--help").code).toBe(0);
  });

  it("an unknown option of every command exits 2 in the style", () => {
    for (const cmd of [["check", ontology], ["compile", ontology], ["verdict"], ["audit", "verify", "x.jsonl"], ["lint"], ["eval", "tau2"], ["demo"]]) {
      const r = polar(...cmd, "--bogus-flag");
      expect(r.code, cmd[0]).toBe(2);
      expect(r.stderr, cmd[0]).toMatch(/^error\[usage\]: unknown option `--bogusFlag`\nhelp: run `polar [a-z]+ --help`\n$/u);
    }
  });

  it("a missing required flag is a usage error (2), bad input a domain error (1)", () => {
    const missing = polar("verdict", "--ontology", ontology);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(ERROR_LINE);
    const bad = polar("verdict", "--ontology", ontology, "--state", file("raw-db.json", JSON.stringify({ reservations: {} })), "--call", call, "--backend", "reference");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(ERROR_LINE);
    expect(bad.stderr).toContain("error[bad-state]");
  });

  it("`--no-x` flags show their real default in --help", () => {
    const help = polar("verdict", "--help").stdout;
    const line = help.split("\n").find((l) => l.includes("--no-fail-closed"))!;
    expect(line).not.toContain("(default: true)");
    expect(line).toContain("(default: off, fail-closed on)");
    expect(polar("eval", "--help").stdout).toMatch(/--no-progress .*\(default: off, progress on\)/u);
  });
});

describe("polar verdict refuses bad input", () => {
  it("τ must be a decimal in [0, 1], as typed", () => {
    for (const t of ["", " ", "0x0", "1e", "2", "-0.1", "1e-1", "NaN", "0.8.1", "Infinity"]) {
      expect(() => parseTau(t), JSON.stringify(t)).toThrow(/is not a decimal in \[0, 1\]/u);
    }
    expect([parseTau("0"), parseTau("0.8"), parseTau(".75"), parseTau("1"), parseTau("1.0"), parseTau(0.5)]).toEqual([0, 0.8, 0.75, 1, 1, 0.5]);
    // Through the argument parser, which would read `0x0` as the number 0.
    const r = polar("verdict", "--ontology", ontology, "--state", state, "--call", call, "--backend", "reference", "--tau", "0x0");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error[bad-option]: --tau `0x0` is not a decimal in [0, 1]\nhelp: e.g. `--tau 0.8`\n");
  });

  const flags = (stateJson: unknown, extra: Record<string, unknown> = {}) => ({
    ontology,
    state: file(`s${Math.random().toString(36).slice(2)}.json`, JSON.stringify(stateJson)),
    call,
    backend: "reference",
    ...extra,
  });

  it("refuses a raw db, {}, [], null and wrong-shaped entities, naming what was expected", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ reservations: { R1: { status: "confirmed" } }, users: {} }, /unexpected key `reservations`.*expected only `now` and `entities`/u],
      [{}, /has no `entities`/u],
      [[], /is an array, expected an object with `entities`/u],
      [null, /is `null`, expected an object/u],
      [{ entities: [] }, /`entities` is an array, expected an object of entity types/u],
      [{ entities: { reservation: [] } }, /`entities.reservation` is an array, expected an object of ids/u],
      [{ entities: { reservation: { R1: "confirmed" } } }, /`entities.reservation.R1` is the string `confirmed`, expected an object of slots/u],
      [{ now: true, entities: {} }, /`now` is boolean `true`, expected an ISO-8601 time/u],
      [{ now: "tomorrow", entities: {} }, /`now` is the string `tomorrow`/u],
      [{ now: {}, entities: {} }, /`now` is an object/u],
    ];
    for (const [json, message] of cases) {
      expect(() => runVerdict(flags(json)), JSON.stringify(json)).toThrow(message);
    }
    expect(() => runVerdict(flags({ entities: {} }, { now: "not a time" }))).toThrow(/--now `not a time` is not a time/u);
  });

  it("a call on a record the state does not hold is missing_entity, not a search", () => {
    const out = runVerdict(flags({ entities: { reservation: {} } }));
    expect(out).toMatch(/^verdict: missing_entity/u);
    expect(JSON.parse(runVerdict(flags({ entities: { reservation: {} } }, { json: true })))).toMatchObject({ reason: "missing_entity", entity: "reservation", id: "R1" });
    expect(runVerdict(flags({ entities: { reservation: { R1: { status: "confirmed", user_id: "mia", flights: [], cabin: "economy" } } } }))).not.toMatch(/missing_entity/u);
  });

  it("refuses a call file that is not a call", () => {
    expect(() => runVerdict({ ...flags({ entities: {} }), call: file("notcall.json", "[1]") })).toThrow(/must hold a call/u);
  });
});

describe("polar compile, lint and demo", () => {
  it("compile without -o refuses to overwrite FILE.blob unless --force", () => {
    const src = join(dir, "lib.polar");
    cpSync(ontology, src);
    expect(polar("compile", src).code).toBe(0);
    const blob = join(dir, "lib.blob");
    writeFileSync(blob, "precious");
    const again = polar("compile", src);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`error[exists]: \`${blob}\` already exists\nhelp: pass \`-o PATH\` to choose the output, or \`--force\` to overwrite it\n`);
    expect(readFileSync(blob, "utf8")).toBe("precious");
    expect(polar("compile", src, "--force").code).toBe(0);
    expect(readFileSync(blob).subarray(0, 4).toString("latin1")).not.toBe("prec");
    // A path the user names is theirs to overwrite.
    expect(polar("compile", src, "-o", blob).code).toBe(0);
  });

  // Every command reads its files through src/cli/files.ts: one message per failure, naming what the file
  // was for, in the one error style, exit 1.
  it.each([
    ["lint --tools", (missing: string) => ["lint", "--ontology", ontology, "--tools", missing], "tool manifest"],
    ["lint --ontology", (missing: string) => ["lint", "--ontology", missing, "--tools", ontology], "ontology"],
    ["draft --tools", (missing: string) => ["draft", "--tools", missing], "tools list"],
    ["promote", (missing: string) => ["promote", missing, "--id", "x"], "ontology"],
    ["audit verify --ontology", (missing: string) => ["audit", "verify", file("one.jsonl", "{}\n"), "--ontology", missing], "ontology"],
  ])("%s: a missing file is unreadable-file, naming what it was for", (_name, args, what) => {
    const missing = join(dir, "no-such-file.json");
    const r = polar(...args(missing));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(ERROR_LINE);
    expect(r.stderr).toContain(`error[unreadable-file]: cannot read the ${what} \`${missing}\`: ENOENT`);
  });

  it.each([
    ["lint --tools", (bad: string) => ["lint", "--ontology", ontology, "--tools", bad], "tool manifest"],
    ["draft --tools", (bad: string) => ["draft", "--tools", bad], "tools list"],
  ])("%s: text that is not JSON is bad-json", (_name, args, what) => {
    const bad = file("not-json.json", "{nope");
    const r = polar(...args(bad));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(ERROR_LINE);
    expect(r.stderr).toContain(`error[bad-json]: the ${what} \`${bad}\` is not JSON: `);
  });

  it("lint refuses an empty manifest", () => {
    const r = polar("lint", "--ontology", ontology, "--tools", file("empty.json", "[]"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(ERROR_LINE);
    expect(r.stderr).toMatch(/error\[(?:empty-manifest|no-tool-definitions)\]/u);
  });

  it("demo --data with a corrupt db names the file", () => {
    const data = join(dir, "tau2");
    cpSync(join(REPO, "samples", "tau2-airline"), data, { recursive: true });
    const db = join(data, "domains", "airline", "db.json");
    expect(existsSync(db)).toBe(true);
    writeFileSync(db, '{"reservations": {"R1": ');
    const r = polar("demo", "--data", data, "--backend", "reference");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(ERROR_LINE);
    expect(r.stderr).toContain(`\`${db}\` cannot be read`);
  });
});

// Every flag of every command reaches its handler, through the real program: src/cli/index.ts runs as
// `polar` runs it (its own parse, raw option text, flag names), with each command's action replaced by a
// recorder of what the action would receive. The table is the CLI's own command definitions, so a command
// or flag added later is covered without editing this file.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { CAC, Command } from "cac";
import { flagKey } from "../../src/cli/flags.js";

interface Received { command: string; args: unknown[] }
const state = vi.hoisted(() => ({ cli: null as CAC | null, received: [] as Received[] }));

vi.mock("cac", async () => {
  const real = await vi.importActual<typeof import("cac")>("cac");
  return {
    cac: (name?: string) => {
      const cli = real.cac(name);
      const command = cli.command.bind(cli);
      cli.command = ((raw: string, description?: string, config?: object) => {
        const cmd = command(raw, description, config);
        // The handler as registered is not run: what it would be given is recorded.
        cmd.action = ((_handler: unknown) => {
          cmd.commandAction = (...args: unknown[]) => void state.received.push({ command: cmd.name, args });
          return cmd;
        }) as Command["action"];
        return cmd;
      }) as CAC["command"];
      state.cli = cli;
      return cli;
    },
  };
});

const ENTRY = new URL("../../src/cli/index.ts", import.meta.url).href;
const argv = process.argv;
let run = 0;
/** Runs the real program with these arguments; returns what the matched command's handler was given. */
async function polar(...args: string[]): Promise<Received[]> {
  state.received = [];
  process.argv = [argv[0], "polar", ...args];
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    // A fresh evaluation of the program per run (the query makes it a new module instance).
    await import(/* @vite-ignore */ `${ENTRY}?run=${run++}`);
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    process.argv = argv;
  }
  return state.received;
}
afterEach(() => {
  process.exitCode = undefined;
});

interface FlagCase { command: string; words: string[]; flag: string; key: string; kind: "value" | "boolean" | "negated" }

/** Each command's flags, each spelling (`-o` and `--out`), from the CLI's own definitions. */
function table(cli: CAC): FlagCase[] {
  const cases: FlagCase[] = [];
  for (const c of cli.commands) {
    const words = [...c.rawName.split(" ").filter((w) => !/^[<[]/u.test(w)), ...c.args.filter((a) => a.required).map((a) => `ARG-${a.value}`)];
    for (const o of c.options) {
      const spellings = o.rawName.replace(/[<[].*$/u, "").split(/[ ,]+/u).filter((n) => n.startsWith("-"));
      const kind = o.negated ? "negated" : o.isBoolean ? "boolean" : "value";
      for (const flag of spellings) {
        cases.push({ command: c.name, words, flag, key: flagKey(o.negated ? flag.replace(/^--no-/u, "") : o.rawName.replace(/[<[].*$/u, "").split(/[ ,]+/u).filter((n) => n.startsWith("--"))[0]?.replace(/^--/u, "") ?? flag.replace(/^-+/u, "")), kind });
      }
    }
  }
  return cases;
}

let cases: FlagCase[] = [];
beforeAll(async () => {
  await polar("--version");
  cases = table(state.cli!);
});

describe("every CLI flag reaches its command's handler (table from the CLI's command definitions)", () => {
  it("the table covers every registered command, and flags with digits and dashes", () => {
    const commands = state.cli!.commands.map((c) => c.name);
    expect(commands.length).toBeGreaterThanOrEqual(11);
    for (const name of commands) {
      const c = state.cli!.commands.find((x) => x.name === name)!;
      if (c.options.length > 0) expect(cases.some((x) => x.command === name), name).toBe(true);
    }
    expect(cases.find((c) => c.flag === "--tau2-src")?.key).toBe("tau2Src");
    expect(cases.find((c) => c.flag === "--audit-log")?.key).toBe("auditLog");
  });

  it("each flag arrives under the camelCase key the handler reads, with the value as typed", async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const value = c.kind === "value" ? `v-${c.key}-0x1` : undefined;
      const forms = value === undefined ? [[c.flag]] : [[c.flag, value], [`${c.flag}=${value}`]];
      for (const form of forms) {
        const got = await polar(...c.words, ...form);
        const where = `polar ${[...c.words, ...form].join(" ")}`;
        if (got.length !== 1 || got[0].command !== c.command) { failures.push(`${where}: handler not run (exit ${String(process.exitCode)})`); continue; }
        const flags = got[0].args[got[0].args.length - 1] as Record<string, unknown>;
        const want = c.kind === "value" ? value : c.kind === "boolean";
        if (flags[c.key] !== want) failures.push(`${where}: flags.${c.key} is ${JSON.stringify(flags[c.key])}, expected ${JSON.stringify(want)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("each flag's key is read by the commands' code", () => {
    const dir = fileURLToPath(new URL("../../src/cli/commands/", import.meta.url));
    const code = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    const unread = [...new Set(cases.map((c) => c.key))].filter((k) => !new RegExp(`(?<![\\w$])${k}(?![\\w$])`, "u").test(code));
    expect(unread).toEqual([]);
  });

  it("`polar eval tau2 --execute --tau2-src DIR` hands DIR to the handler", async () => {
    const got = await polar("eval", "tau2", "--data", "D", "--out", "O", "--execute", "--tau2-src", "/some/tau2-bench", "--audit-log", "O/decisions.jsonl");
    const flags = got[0].args[2] as Record<string, unknown>;
    expect(flags).toMatchObject({ execute: true, tau2Src: "/some/tau2-bench", auditLog: "O/decisions.jsonl", data: "D", out: "O" });
  });

  it("an unknown flag still reaches no handler", async () => {
    expect(await polar("eval", "tau2", "--tau3-src", "x")).toEqual([]);
    expect(process.exitCode).toBe(2);
  });
});

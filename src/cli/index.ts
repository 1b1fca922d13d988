#!/usr/bin/env node
// `polar`: one command per file in ./commands, registered here. Errors: ./errors.ts (exit 1 for
// findings and bad input, 2 for usage).
import { cac } from "cac";
import { register as check } from "./commands/check.js";
import { register as compile } from "./commands/compile.js";
import { register as verdict } from "./commands/verdict.js";
import { register as audit } from "./commands/audit.js";
import { register as lint } from "./commands/lint.js";
import { register as evalCmd } from "./commands/eval.js";
import { register as demo } from "./commands/demo.js";
import { register as mcp } from "./commands/mcp.js";
import { register as project } from "./commands/project.js";
import { register as draft } from "./commands/draft.js";
import { register as promote } from "./commands/promote.js";
import { register as undo } from "./commands/undo.js";
import { register as hook } from "./commands/hook.js";
import { register as init } from "./commands/init.js";
import { VERSION } from "../version.js";
import { rawOptionText, realNegatedDefaults, reportError, usageError } from "./errors.js";

const cli = cac("polar");
for (const reg of [check, compile, verdict, audit, lint, evalCmd, demo, project, mcp, draft, promote, undo, hook, init]) reg(cli);
realNegatedDefaults(cli);
const USAGE = `usage: polar <${cli.commands.map((c) => c.name.split(" ")[0]).join("|")}> [options]
`;
cli.version(VERSION);
try {
  const parsed = cli.parse(process.argv, { run: false });
  const command = cli.matchedCommand;
  if (parsed.options.help || (command === undefined && parsed.options.version)) {
    // cac has already printed the help or the version.
  } else if (command === undefined) {
    const word = parsed.args[0];
    const unknownFlag = Object.keys(parsed.options).find((k) => k !== "--" && k !== "help" && k !== "h" && k !== "version" && k !== "v");
    process.stderr.write(USAGE);
    if (word === undefined && unknownFlag === undefined) throw usageError("no-command", "no command given", "run `polar --help` for the list of commands");
    if (word !== undefined) throw usageError("unknown-command", `unknown command \`${String(word)}\``, "run `polar --help` for the list of commands");
    throw usageError("unknown-option", `unknown option \`${unknownFlag!.length > 1 ? "--" : "-"}${unknownFlag}\``, "run `polar --help` for the list of commands");
  } else {
    // Values as typed: the parser would turn `--tau 0x0` into 0 (./errors.ts, rawOptionText).
    Object.assign(cli.options, rawOptionText(process.argv.slice(2), command));
    await cli.runMatchedCommand();
  }
} catch (err) {
  if (err instanceof Error && err.name === "CACError") {
    // Unknown options, missing arguments or values: usage errors.
    const name = cli.matchedCommand?.name;
    reportError(usageError("usage", lowerFirst(err.message), `run \`polar ${name ? `${name} ` : ""}--help\``));
  } else {
    reportError(err);
  }
}


function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

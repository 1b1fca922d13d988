#!/usr/bin/env node
// `polar`: one command per file in ./commands, registered here.
import { cac } from "cac";
import { register as check } from "./commands/check.js";
import { register as compile } from "./commands/compile.js";
import { register as verdict } from "./commands/verdict.js";
import { register as audit } from "./commands/audit.js";
import { register as lint } from "./commands/lint.js";
import { register as evalCmd } from "./commands/eval.js";
import { register as demo } from "./commands/demo.js";
import { register as project } from "./commands/project.js";
import { register as mcp } from "./commands/mcp.js";
import { VERSION } from "../version.js";

const cli = cac("polar");
for (const reg of [check, compile, verdict, project, audit, lint, evalCmd, demo, mcp]) reg(cli);
cli.help();
cli.version(VERSION);
try {
  const parsed = cli.parse(process.argv, { run: false });
  // cac has already printed help or the version for -h / -v.
  if (parsed.options.help || parsed.options.version) {
    // nothing left to do
  } else if (!cli.matchedCommand) {
    const word = parsed.args[0];
    if (word === undefined) {
      cli.outputHelp();
    } else {
      process.stderr.write(`polar: unknown command \`${String(word)}\`\nhelp: run \`polar --help\` for the list of commands\n`);
      process.exitCode = 2;
    }
  } else {
    await cli.runMatchedCommand();
  }
} catch (err) {
  process.stderr.write(`polar: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}

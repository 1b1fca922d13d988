// `polar init <claude-code|codex|gemini> [--project | --user] [--remove]`: installs (or removes) polar's
// hooks in the agent's configuration, merged with what is there (docs/hooks.md). `--project` (default)
// writes the project's file under the current directory; `--user` the one in your home directory.
// `polar init --check`: which agents have polar's hooks, where, and whether the daemon answers.
import { join } from "node:path";
import type { CAC } from "cac";
import { AGENTS, isHookAgent } from "../../hooks/agents.js";
import { configFile, installed, installHooks, removeHooks, type Scope } from "../../hooks/init.js";
import { ensureTcpEndpoint, ping, polarHome, socketPath } from "../../hooks/server.js";
import { readHookConfig } from "../../hooks/setup.js";
import { action, CliError, usageError } from "../errors.js";
import { packageRoot } from "./demo.js";

interface Flags {
  project?: boolean;
  user?: boolean;
  remove?: boolean;
  check?: boolean;
  http?: boolean;
}

async function check(): Promise<void> {
  const lines: string[] = [];
  for (const agent of AGENTS) {
    for (const scope of ["project", "user"] as const) {
      for (const file of new Set([configFile(agent, scope, process.cwd()), configFile(agent, scope, process.cwd(), undefined, true)])) {
        if (installed(file)) lines.push(`${agent}: hooks installed (${scope}) in ${file}`);
      }
    }
  }
  if (lines.length === 0) lines.push("no agent has polar's hooks here (run `polar init claude-code`)");
  const home = polarHome();
  const s = await ping(socketPath(home));
  lines.push(s === null ? `daemon: not running (it starts with the agent's next session or hook call; socket ${socketPath(home)})` : `daemon: answers (pid ${s.pid}, ${s.sessions} session(s), socket ${socketPath(home)})`);
  process.stdout.write(lines.join("\n") + "\n");
}

async function run(agent: string | undefined, flags: Flags): Promise<void> {
  if (flags.check === true) return check();
  if (agent === undefined) throw usageError("missing-agent", "name the agent: `polar init claude-code`, `codex` or `gemini`", "or `polar init --check`");
  if (!isHookAgent(agent)) throw usageError("unknown-agent", `unknown agent \`${agent}\``, "the agents are claude-code, codex and gemini");
  if (flags.project === true && flags.user === true) throw usageError("bad-option", "`--project` and `--user` exclude each other");
  const scope: Scope = flags.user === true ? "user" : "project";
  // An http hook carries the daemon's token: in a project, the settings file that is not committed.
  const file = configFile(agent, scope, process.cwd(), undefined, flags.http === true);
  try {
    if (flags.remove === true) {
      const r = removeHooks(file);
      process.stdout.write(r.removed ? `removed polar's hooks from ${file} (the file as it was before polar: ${r.backup})\n` : `no polar hooks in ${file}: nothing changed\n`);
      return;
    }
    const servers = Object.keys(readHookConfig(polarHome()).mcp);
    if (flags.http === true && agent !== "claude-code") throw usageError("bad-option", "`--http` is for Claude Code (its `http` hook type)", "codex and gemini run command hooks");
    const http = flags.http === true ? await ensureTcpEndpoint(polarHome()) : null;
    const r = installHooks(agent, file, join(packageRoot(), "bin", "polar-hook"), servers, http);
    process.stdout.write(
      `installed polar's hooks for ${agent} in ${r.file}` + (r.backup === null ? "\n" : ` (the file as it was before polar: ${r.backup})\n`) +
        `undo: polar init ${agent}${scope === "user" ? " --user" : ""}${flags.http === true ? " --http" : ""} --remove\n`,
    );
  } catch (e) {
    if (e instanceof Error && "code" in e && typeof (e as { code: unknown }).code === "string") throw new CliError((e as { code: string }).code, e.message);
    throw e;
  }
}

export function register(cli: CAC): void {
  cli
    .command("init [agent]", "Install polar's hooks for a coding agent (claude-code, codex, gemini), merged with its configuration")
    .option("--project", "The project's configuration under the current directory (default)")
    .option("--user", "Your user configuration (~/.claude, ~/.codex, ~/.gemini)")
    .option("--remove", "Remove polar's hooks again (everything else stays)")
    .option("--check", "Which agents have polar's hooks, and whether the daemon answers")
    .option("--http", "Claude Code: pre/post-tool hooks of type http straight to the daemon (no process per call; needs Claude Code 2.1.295 or later for onFailure: block)")
    .example("polar init claude-code")
    .example("polar init --check")
    .action(action(run));
}

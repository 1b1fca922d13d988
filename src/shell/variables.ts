// Environment variables that change what a command runs or reads: read by the parser (a variable set
// on its own is kept as a command of its own so the dispatcher sees it) and by the dispatcher.

/** Variables that make a command load or run other code, or read another configuration, repository
 * or program than the one judged (`LD_PRELOAD=./x.so ls`, `PATH=.:$PATH ls`, `GIT_EXTERNAL_DIFF=./x git
 * diff`, `HOME=/tmp/x git status` with that home's .gitconfig, `BASH_ENV=./x bash -c ls`). A pager,
 * editor or browser variable set to `cat`, `less`, `more` or nothing runs no other code. */
const CODE_VARIABLES = new Set([
  "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4", "SHELL", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR",
  "LESSOPEN", "LESSCLOSE", "LESS", "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "MANOPT", "SSH_ASKPASS", "SUDO_ASKPASS", "KUBECONFIG", "DOCKER_CONFIG",
  "NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
  "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GOFLAGS", "GOENV",
  // Where curl finds its .curlrc and wget its startup file: options there write files or send them.
  "CURL_HOME", "WGETRC", "SYSTEM_WGETRC",
]);
const GIT_HARMLESS = /^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$|^GIT_(TERMINAL_PROMPT|OPTIONAL_LOCKS)$/;
/** A program to show, edit or open with: `PAGER`, `GIT_PAGER`, also without an underscore (`MANPAGER`,
 * which man runs; `HGEDITOR`, `CVSEDITOR`). */
const PROGRAM_VARIABLE = /(PAGER|EDITOR|VISUAL|BROWSER)$/;
const HARMLESS_PROGRAMS = new Set<string | null>(["", "cat", "less", "more"]);

/** Why a variable set for a command may change what it does (null when it cannot). */
export function codeVariable(name: string, value: { text: string | null }): string | null {
  // A PATH of the system's own directories only (`env -i PATH=/bin cmd`) finds the programs judged.
  if (name === "PATH" && value.text !== null && value.text.split(":").every((d) => /^(\/usr(\/local)?)?\/s?bin$/.test(d))) return null;
  if (PROGRAM_VARIABLE.test(name)) return HARMLESS_PROGRAMS.has(value.text) ? null : `${name} names a program it may run`;
  if (CODE_VARIABLES.has(name) || /^(LD|DYLD)_/.test(name) || /^npm_config_/i.test(name) || (name.startsWith("GIT_") && !GIT_HARMLESS.test(name))) return `${name} changes the code or configuration it loads`;
  return null;
}

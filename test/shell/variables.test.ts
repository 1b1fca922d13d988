// Which variables set for a command change what it runs or reads (src/shell/variables.ts, read by the
// parser for a variable set on its own and by the dispatcher for one set for a command): in-process,
// the answer for each name and value, then the dispatcher's answer for the lines that were approved.
import { describe, expect, it } from "vitest";
import { codeVariable } from "../../src/shell/variables.js";
import { dispatch, useWorkspace } from "./dispatch-cases.js";

useWorkspace();

const v = (text: string | null) => ({ text });
const LOADS = (name: string) => `${name} changes the code or configuration it loads`;
const RUNS = (name: string) => `${name} names a program it may run`;

describe("codeVariable: why a variable may change what a command does", () => {
  it("variables that load or run other code, or read another configuration, whatever their value", () => {
    const names = [
      "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4", "SHELL", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR",
      "LESSOPEN", "LESSCLOSE", "LESS", "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "MANOPT", "SSH_ASKPASS", "SUDO_ASKPASS", "KUBECONFIG", "DOCKER_CONFIG",
      "NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
      "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GOFLAGS", "GOENV", "CURL_HOME", "WGETRC", "SYSTEM_WGETRC",
      // Prefixes: the dynamic loader's, npm's configuration (any case), git's.
      "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_", "DYLD_INSERT_LIBRARIES", "npm_config_script_shell", "NPM_CONFIG_PREFIX", "Npm_Config_x",
      "GIT_DIR", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_", "GIT_AUTHOR_NAMES", "GIT_TERMINAL_PROMPTS", "GIT_COMMITTER_DATE_X", "GIT_X_GIT_AUTHOR_NAME", "GIT_X_GIT_OPTIONAL_LOCKS",
    ];
    for (const name of names) for (const text of ["./x", "cat", "", null]) expect(codeVariable(name, v(text)), `${name}=${text}`).toBe(LOADS(name));
  });

  it("a program to show, edit or open with: asked unless it is cat, less, more or empty (also known only by name: asked)", () => {
    for (const name of ["PAGER", "EDITOR", "VISUAL", "BROWSER", "GIT_PAGER", "SYSTEMD_PAGER", "GH_BROWSER", "SVN_EDITOR", "MANPAGER", "HGEDITOR", "CVSEDITOR", "GIT_EDITOR"]) {
      for (const text of ["./x", "vim", "cat -v", "/bin/cat", "less ", null]) expect(codeVariable(name, v(text)), `${name}=${text}`).toBe(RUNS(name));
      for (const text of ["cat", "less", "more", ""]) expect(codeVariable(name, v(text)), `${name}=${text}`).toBeNull();
    }
  });

  it("PATH of the system's own program folders only finds the programs judged; any other folder, an empty entry (the current folder) or an unknown value is asked", () => {
    for (const text of ["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/bin:/bin:/usr/local/sbin"]) expect(codeVariable("PATH", v(text)), text).toBeNull();
    for (const text of [null, "", ".", "/bin:", ":/bin", "/bin:.", "/usr/local", "/usr/lib/bin", "x/bin", "/binx", "/opt/bin", "/local/bin", "/usr/local/local/bin", "/usr/xbin", "/tmp/usr/bin", "/usr/bin/x"]) expect(codeVariable("PATH", v(text)), String(text)).toBe(LOADS("PATH"));
    // Only PATH has the rule: another code variable set to a system folder is still asked.
    expect(codeVariable("LD_LIBRARY_PATH", v("/usr/bin"))).toBe(LOADS("LD_LIBRARY_PATH"));
    expect(codeVariable("PYTHONPATH", v("/bin"))).toBe(LOADS("PYTHONPATH"));
  });

  it("variables that run nothing else", () => {
    const names = [
      "LANG", "LC_ALL", "TZ", "NODE_ENV", "X", "PATHS", "MYPATH", "OLD_VALUE", "SOLD_OUT", "XLD_X", "LDX", "MY_npm_config_x", "npm_configx",
      "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
      "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "MY_GIT_DIR", "PAGERS", "EDITORIAL", "LESSX", "XHOME",
    ];
    for (const name of names) for (const text of ["./x", null]) expect(codeVariable(name, v(text)), `${name}=${text}`).toBeNull();
  });
});

describe("the dispatcher's answer for variables that were approved", () => {
  it.each([
    // man runs $MANPAGER (over $PAGER): approved as a read (the program-variable rule wanted an underscore).
    ["MANPAGER=./x man ls", ["unknown_effect: man: MANPAGER names a program it may run"]],
    ["export MANPAGER=./x; man ls", ["unknown_effect: MANPAGER set for the commands after it: MANPAGER names a program it may run"]],
    // curl reads $CURL_HOME/.curlrc (`output = a.txt` writes a file): approved as a read.
    ["CURL_HOME=. curl https://example.com", ["unknown_effect: curl: CURL_HOME changes the code or configuration it loads"]],
    ["WGETRC=./rc wget -O - https://example.com", ["unknown_effect: wget: WGETRC changes the code or configuration it loads"]],
    ["MANPAGER=cat man ls", []],
  ] as const)("%s", (line, expected) => {
    expect(dispatch(line)).toEqual(expected);
  });
});

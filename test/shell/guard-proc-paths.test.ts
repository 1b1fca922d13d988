// Paths under /proc name the files of whichever process opens them: /proc/self/cwd is bash's directory
// when the agent's line runs, the guard's own when the guard reads it. Was: `echo x > /proc/self/cwd/a.txt`
// was approved as a write of a new file in the guard's directory and its undo "removed" that, while
// bash overwrote the workspace's a.txt (uncommitted work lost, the undo said undone); `cd /proc/self/cwd
// && rm a.txt` and `rm -rf /proc/self/cwd/` likewise, and `write_file` of such a path.
import { realpathSync, rmSync, symlinkSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createShellGuard } from "../../src/shell/guard.js";
import { perProcess } from "../../src/shell/workspace.js";
import { sh, tempDir } from "./helpers.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const root = realpathSync(tempDir("polar-shell-proc-"));
  made.push(root);
  sh(root, "git init -q -b main ws && cd ws && git config user.email t@example.com && git config user.name t && echo a > a.txt && git add . && git commit -qm a && echo uncommitted >> a.txt");
  symlinkSync("/proc/self/cwd", `${root}/ws/pc`);
  symlinkSync("/dev/fd", `${root}/ws/fds`);
  return `${root}/ws`;
}

describe("paths under /proc are not known at check time", () => {
  it.each([
    "echo x > /proc/self/cwd/a.txt",
    "rm /proc/self/cwd/a.txt",
    "cd /proc/self/cwd && rm a.txt",
    "cd /proc/self/cwd/ && echo x > a.txt",
    "rm -rf /proc/self/cwd/",
    "rm -rf /proc/self/cwd/*",
    "echo x > /proc/thread-self/cwd/a.txt",
    "echo x > /proc/self/root/tmp/polar-proc-test.txt",
    "echo x > pc/a.txt",
    "rm pc/a.txt",
    "echo x > fds/0",
    "cp /etc/hostname /proc/1/cwd/x",
  ])("%s", async (command) => {
    const ws = workspace();
    for (const policy of ["snapshot", "veto"] as const) {
      const g = await createShellGuard({ cwd: ws, store: `${ws}-store-${policy}`, policy });
      const d = g.check({ tool: "shell", args: { command } });
      expect([policy, d.approved, d.reason]).toEqual([policy, false, expect.stringMatching(/^(unresolved_argument|unknown_state)$/)]);
      expect(d.message).toMatch(/\/proc/);
    }
  });

  it("write_file of such a path (by its text or through a link) is refused too; the standard streams stay what they were", async () => {
    const ws = workspace();
    const g = await createShellGuard({ cwd: ws, store: `${ws}-store`, policy: "snapshot" });
    for (const path of ["/proc/self/cwd/a.txt", `${ws}/pc/a.txt`]) {
      const d = g.check({ tool: "write_file", args: { path, content: "x" } });
      expect([path, d.approved, d.reason]).toEqual([path, false, "unknown_state"]);
    }
    for (const command of ["echo x | tee /dev/stderr", "echo x > /dev/null", "cat a.txt > /dev/stdout"]) {
      const d = g.check({ tool: "shell", args: { command } });
      expect([command, d.approved, d.reason]).toEqual([command, true, "read_only"]);
    }
  });

  it("perProcess: by the text, through links on the way, relative links, `..`; null elsewhere and for a link loop", () => {
    const ws = workspace();
    symlinkSync("../ws/pc", `${ws}/rel`);
    symlinkSync("loop2", `${ws}/loop1`);
    symlinkSync("loop1", `${ws}/loop2`);
    expect(perProcess("/proc")).toMatch(/is under \/proc/);
    expect(perProcess("/proc/self/cwd/a.txt")).toMatch(/is under \/proc/);
    expect(perProcess(`${ws}/pc/a.txt`)).toBe(`${ws}/pc/a.txt leads under /proc (${ws}/pc -> /proc/self/cwd), which names the files of whichever process opens it`);
    expect(perProcess(`${ws}/rel/x`)).toMatch(/leads under \/proc/);
    expect(perProcess("/dev/fd/3")).toMatch(/leads under \/proc \(\/dev\/fd -> \/proc\/self\/fd\)/);
    expect(perProcess(`${ws}/../ws/pc`)).toMatch(/leads under \/proc/);
    expect(perProcess("/procfs/x")).toBeNull();
    expect(perProcess(`${ws}/a.txt`)).toBeNull();
    expect(perProcess(`${ws}/missing/deeper`)).toBeNull();
    expect(perProcess(`${ws}/loop1/x`)).toBeNull();
    expect(perProcess("/")).toBeNull();
  });
});

// The built plugin (dist/opencode.js, as `polar-guard/opencode` resolves) in a plain Node process with no
// daemon running: it starts the real one (`node <package>/bin/polar.js serve`, detached) for its home,
// refuses the call that found it down, and the next call is judged by that daemon's shell guard.
// A child process (OpenCode runs the plugin in its own): test/hooks/opencode-start.test.ts states the
// same in process for the mutation set.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the built OpenCode plugin with no daemon running", () => {
  test("starts `bin/polar.js serve` for its home: this call is refused, the next one is judged by the started daemon", () => {
    const home = mkdtempSync(join(tmpdir(), "polar-opencode-daemon-"));
    const work = mkdtempSync(join(tmpdir(), "polar-opencode-work-"));
    writeFileSync(join(work, "notes.txt"), "mine\n");
    const probe = join(home, "probe.mjs");
    writeFileSync(
      probe,
      `import { PolarGuard } from ${JSON.stringify(join(ROOT, "dist", "opencode.js"))};
const hooks = await PolarGuard({ directory: ${JSON.stringify(work)} });
const out = [];
for (const command of ["ls", "ls", "frobnicate notes.txt"]) {
  try {
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1" }, { args: { command } });
    out.push("passed");
  } catch (e) {
    out.push(e.message);
  }
}
process.stdout.write(JSON.stringify(out));
`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, POLAR_HOME: home };
    delete env.POLAR_NODE;
    try {
      const r = spawnSync(process.execPath, [probe], { env, encoding: "utf8", timeout: 60_000 });
      expect(r.stderr).toBe("");
      const [first, second, third] = JSON.parse(r.stdout) as string[];
      expect(first).toBe("polar: refused: the polar daemon was not running (it is started now, without this session's history): retry the call");
      expect(second).toBe("passed");
      // A command polar does not know: refused (fail-closed), never run.
      expect(third).toBe("polar: not judged (unknown_command): frobnicate is not in the command catalogue");
      expect(existsSync(join(work, "notes.txt"))).toBe(true);
    } finally {
      spawnSync(process.execPath, [join(ROOT, "bin", "polar.js"), "serve", "--stop"], { env });
    }
    // Stopped: nothing answers on the home's socket any more.
    const status = spawnSync(process.execPath, [join(ROOT, "bin", "polar.js"), "serve", "--status"], { env, encoding: "utf8" });
    expect(status.status).not.toBe(0);
  });
});

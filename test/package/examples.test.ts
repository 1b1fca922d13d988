// The examples type-check as a user's project would: the Worker against the Workers runtime types that
// `wrangler types` generates, both against the built package's declarations (resolved by name).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { REPO, artefactDir, requireDist } from "../runtimes/helpers/paths.js";

const tsc = join(REPO, "node_modules/typescript/bin/tsc");

describe("examples type-check", () => {
  it("the Worker example against `wrangler types` and the package's declarations", async () => {
    requireDist();
    const dir = await artefactDir("worker-example-types");
    const types = join(dir, "worker-configuration.d.ts");
    execFileSync(process.execPath, [join(REPO, "node_modules/wrangler/bin/wrangler.js"), "types", types], {
      cwd: join(REPO, "examples/worker"),
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: "pipe",
    });
    const compilerOptions = {
      target: "es2022", module: "esnext", moduleResolution: "bundler", strict: true, noEmit: true,
      skipLibCheck: true, lib: ["es2022"], types: [],
    };
    const files = [types, ...["worker.ts", "modules.d.ts"].map((f) => join(REPO, "examples/worker/src", f))];
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    try {
      execFileSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8", stdio: "pipe" });
    } catch (err) {
      throw new Error(`examples/worker does not type-check:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
    }
  });
});

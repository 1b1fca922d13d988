// The Worker example validates its ontologies at module scope, once per isolate (examples/worker/src/
// domains.ts). When that startup work fails, the Worker must still start and answer every request that
// needs the domain with a typed error: never an approval, never an untyped 500.
import { copyFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, artefactDir, requireDist } from "./helpers/paths.js";
import { startWorker, type LocalWorker } from "./helpers/workerd.js";

let worker: LocalWorker;

beforeAll(async () => {
  requireDist();
  // A copy of the example inside the repository (so `polar-guard` still resolves to this package)
  // whose airline blob import names a copy of the blob with one flipped byte.
  const dir = await artefactDir("worker-startup-failure");
  cpSync(join(REPO, "examples/worker/src"), join(dir, "src"), { recursive: true });
  const blob = readFileSync(join(REPO, "ontologies/airline/airline.blob"));
  blob[blob.length - 1] ^= 0xff;
  // Inside src/: wrangler's module rules match files below the entry's folder.
  writeFileSync(join(dir, "src", "corrupt.blob"), blob);
  const domains = join(dir, "src", "domains.ts");
  const source = readFileSync(domains, "utf8");
  const patched = source.replace('"polar-guard/ontologies/airline/airline.blob"', '"./corrupt.blob"');
  expect(patched).not.toBe(source);
  writeFileSync(domains, patched);
  copyFileSync(join(REPO, "examples/worker/wrangler.toml"), join(dir, "wrangler.toml"));
  worker = await startWorker(join(dir, "wrangler.toml"), join(dir, "bundle"));
});

afterAll(async () => {
  await worker?.dispose();
});

describe("Worker example whose ontology fails to validate at startup", () => {
  it("still starts and serves its index", async () => {
    const res = await worker.fetch("/");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { domains: string[] }).domains).toEqual(["airline"]);
  });

  it("answers a session on that domain with a typed 503 naming the blob error, never a session", async () => {
    const res = await worker.fetch("/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ domain: "airline", state: { entities: {} } }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("digest-mismatch");
    expect(body.error.message).toMatch(/`airline` domain could not be loaded: blob digest does not match/);
  });
});

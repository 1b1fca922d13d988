// The Worker example validates its ontologies and runs a warm-up session at module scope, once per
// isolate (examples/worker/src/domains.ts). When that startup work fails, the Worker must still start
// and answer every request that needs the domain with a typed error: never an approval, never an
// untyped 500.
import { copyFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, artefactDir, requireDist } from "./helpers/paths.js";
import { startWorker, type LocalWorker } from "./helpers/workerd.js";

/** A copy of the example inside the repository (so `polar-guard` still resolves to this package), its
 * domains.ts patched by `patch`, served under workerd. */
async function patchedWorker(name: string, patch: (domains: string, src: string) => string): Promise<LocalWorker> {
  const dir = await artefactDir(name);
  cpSync(join(REPO, "examples/worker/src"), join(dir, "src"), { recursive: true });
  const domains = join(dir, "src", "domains.ts");
  const source = readFileSync(domains, "utf8");
  const patched = patch(source, join(dir, "src"));
  expect(patched).not.toBe(source);
  writeFileSync(domains, patched);
  copyFileSync(join(REPO, "examples/worker/wrangler.toml"), join(dir, "wrangler.toml"));
  return startWorker(join(dir, "wrangler.toml"), join(dir, "bundle"));
}

async function createSession(worker: LocalWorker): Promise<{ status: number; body: { error: { code: string; message: string } } }> {
  const res = await worker.fetch("/sessions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ domain: "airline", state: { entities: {} } }),
  });
  return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
}

describe("Worker example whose ontology fails to validate at startup", () => {
  let worker: LocalWorker;

  beforeAll(async () => {
    requireDist();
    // The airline blob import names a copy of the blob with one flipped byte (inside src/: wrangler's
    // module rules match files below the entry's folder).
    worker = await patchedWorker("worker-startup-failure", (source, src) => {
      const blob = readFileSync(join(REPO, "ontologies/airline/airline.blob"));
      blob[blob.length - 1] ^= 0xff;
      writeFileSync(join(src, "corrupt.blob"), blob);
      return source.replace('"polar-guard/ontologies/airline/airline.blob"', '"./corrupt.blob"');
    });
  });

  afterAll(async () => {
    await worker?.dispose();
  });

  it("still starts and serves its index", async () => {
    const res = await worker.fetch("/");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { domains: string[] }).domains).toEqual(["airline"]);
  });

  it("answers a session on that domain with a typed 503 naming the blob error, never a session", async () => {
    const { status, body } = await createSession(worker);
    expect(status).toBe(503);
    expect(body.error.code).toBe("digest-mismatch");
    expect(body.error.message).toMatch(/`airline` domain could not be loaded: blob digest does not match/);
  });
});

describe("Worker example whose warm-up session fails at startup", () => {
  let worker: LocalWorker;

  beforeAll(async () => {
    requireDist();
    // A warm-up document the projection rules refuse: the session path cannot run, so neither may a
    // session.
    worker = await patchedWorker("worker-warmup-failure", (source) =>
      source.replace("warmup: AIRLINE_WARMUP", "warmup: { ...AIRLINE_WARMUP, document: { reservations: 5 } }"),
    );
  });

  afterAll(async () => {
    await worker?.dispose();
  });

  it("answers a session on that domain with a typed 503, never a session", async () => {
    const { status, body } = await createSession(worker);
    expect(status).toBe(503);
    expect(body.error.code).toBe("warm-up-failed");
    expect(body.error.message).toMatch(/`airline` domain could not be loaded: the warm-up session failed: /);
  });
});

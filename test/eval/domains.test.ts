// Domain loading (src/tau2/domains.ts), shared by the demo, the evaluation and the tests: typed errors
// with codes, and a replay setup for the built-in sample.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DomainLoadError, hasDomainOntology, loadCoreBackend, loadDomainOntology, openDomainReplay } from "../../src/tau2/domains.js";
import { REPO_ROOT } from "../tau2/data-dir.js";

const SAMPLE = join(REPO_ROOT, "samples/tau2-airline");

function code(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof DomainLoadError ? e.code : `not a DomainLoadError: ${String(e)}`;
  }
}

describe("domain loading", () => {
  it("refuses what it cannot load with a code", () => {
    expect(code(() => loadCoreBackend(REPO_ROOT, "gpu"))).toBe("bad-option");
    expect(code(() => loadDomainOntology(REPO_ROOT, "no-such-domain"))).toBe("no-ontology");
    expect(code(() => openDomainReplay({ root: REPO_ROOT, dataDir: SAMPLE, domain: "retail", limit: 1, backend: "reference" }))).toBe("no-domain");
    expect(code(() => openDomainReplay({ root: REPO_ROOT, dataDir: SAMPLE, domain: "airline", task: "no-such-task", limit: 1, backend: "reference" }))).toBe("no-trajectories");
    expect(hasDomainOntology(REPO_ROOT, "airline")).toBe(true);
    expect(hasDomainOntology(REPO_ROOT, "no-such-domain")).toBe(false);
  });

  it("opens the sample's airline runs for replay, limited as asked", () => {
    const r = openDomainReplay({ root: REPO_ROOT, dataDir: SAMPLE, domain: "airline", limit: 1, backend: "reference" });
    expect(r.trajectories).toHaveLength(1);
    expect(r.backendName).toBe("reference");
    expect(r.ontologyNote).toMatch(/airline/);
    expect(r.base.size()).toBeGreaterThan(0);
  });
});

// The package as published: its export map, what the tarball holds, the names each entry exports
// (pinned: a change to the public API must change this file), which file each runtime condition picks,
// and the package imported by name from Node, TypeScript and the `polar` bin.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedPackage } from "../runtimes/helpers/pack.js";
import { REPO } from "../runtimes/helpers/paths.js";
import { CANCELLABLE_JSON } from "../runtimes/fixtures/airline-cancellable.js";

/** The public API of every runtime entry (`.`, `./node`, `./browser`, `./workerd`): one list for all. */
const RUNTIME_API = [
  "BUILTIN_POLICIES", "BlobError", "CHAIN_GENESIS", "CoreError", "DECISION_FORMAT", "DEFAULT_NOW", "DEFAULT_TAU",
  "ENGINE_VERSION", "GuardError", "LayerB", "NothingChangedError", "ProjectionError", "RuntimeError", "SNAPSHOT_FORMAT", "VERSION", "VerifierError",
  "advisoryPolicy", "applyAction", "applyToolResult", "blobDigestHex", "blobInfo", "canonicalJson", "chainHead",
  "changedNothing", "createChain", "createGuard", "createJsonlSink", "createMemorySink", "createVerifier", "decisionLine", "decodeBlob",
  "defaultConsentDetector", "detectConsent", "digestHex",
  "escalatePolicy", "explainVerdict", "instantiateCore", "instantiateCoreSync", "isGuardError",
  "isGuardRefusal", "loadCore", "loadGuard", "loadVerifier", "parseProjectionRules", "prepareOntology", "prepareOntologyAsync", "projectDocument",
  "recordHash", "safeCreateGuard", "safeDecodeBlob", "safeParseProjectionRules", "vetoPolicy", "wrapTools",
];
const COMPILER_API = [
  "BlobError", "blobDigestHex", "blobInfo", "compile", "decodeBlob", "encodeBlob", "formatDiagnostic", "safeDecodeBlob",
];
/** polar-guard/audit: reading a log back, kept out of the runtime entries (never re-exported there). */
const AUDIT_API = ["formatSummary", "summarizeLog", "verifyAuditLog"];
const ENTRIES = ["index", "node", "browser", "workerd"];

type ExportMap = Record<string, string | Record<string, string>>;
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  exports: ExportMap;
  sideEffects: boolean;
  type: string;
  bin: Record<string, string>;
};

let pkg: PackedPackage;
beforeAll(async () => {
  pkg = await installPacked("package-exports");
});

/** Runs an ES module in plain Node from the folder where the package is installed. */
function node(code: string): string {
  const file = join(pkg.root, `probe-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execFileSync(process.execPath, [file], { cwd: pkg.root, encoding: "utf8" });
}

describe("export map", () => {
  it("`.` lists types first, then workerd, worker, browser, node, default", () => {
    expect(Object.keys(manifest.exports["."] as object)).toEqual(["types", "workerd", "worker", "browser", "node", "default"]);
    expect(manifest.exports["."]).toMatchObject({
      workerd: "./dist/workerd.js",
      worker: "./dist/workerd.js",
      browser: "./dist/browser.js",
      node: "./dist/node.js",
      default: "./dist/index.js",
    });
  });

  it("every subpath with code lists types first; the compiler is its own subpath", () => {
    for (const sub of ["./node", "./browser", "./workerd", "./compiler", "./audit"]) {
      const entry = manifest.exports[sub] as Record<string, string>;
      expect(Object.keys(entry)[0], sub).toBe("types");
    }
    expect(manifest.exports["./compiler"]).toEqual({ types: "./dist/compiler.d.ts", default: "./dist/compiler.js" });
    expect(manifest.exports["./audit"]).toEqual({ types: "./dist/audit.d.ts", default: "./dist/audit.js" });
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.type).toBe("module");
    expect(manifest.bin.polar).toBe("./bin/polar.js");
  });

  it("each runtime condition resolves `polar-guard` to its own entry", async () => {
    const cases: [string[], string][] = [
      [["workerd"], "dist/workerd.js"],
      [["worker"], "dist/workerd.js"],
      [["browser"], "dist/browser.js"],
      [["node"], "dist/node.js"],
      [[], "dist/index.js"],
    ];
    for (const [conditions, file] of cases) {
      const result = await build({
        stdin: { contents: 'export * from "polar-guard";', resolveDir: pkg.root, loader: "js" },
        bundle: true,
        write: false,
        metafile: true,
        format: "esm",
        platform: "neutral",
        conditions,
        external: ["*.wasm", "node:*"],
        logLevel: "silent",
      });
      const inputs = Object.keys(result.metafile.inputs).map((p) => p.replace(/^.*node_modules\/polar-guard\//, ""));
      expect(inputs, conditions.join(",") || "default").toContain(file);
    }
  });
});

describe("tarball", () => {
  it("ships the built entries, declarations, the core and the CLI, and no sources or tests", () => {
    for (const f of [...ENTRIES, "compiler", "audit"]) {
      expect(pkg.files).toContain(`dist/${f}.js`);
      expect(pkg.files).toContain(`dist/${f}.d.ts`);
    }
    expect(pkg.files).toContain("dist/polar-core.wasm");
    expect(pkg.files).toContain("dist/cli/index.js");
    expect(pkg.files).toContain("bin/polar.js");
    expect(pkg.files).toContain("package.json");
    const stray = pkg.files.filter((f) => /^(src|test|assembly|build|bench|examples)\//.test(f));
    expect(stray).toEqual([]);
  });
});

describe("public API", () => {
  it("every runtime entry exports the same pinned names; the compiler and audit subpaths their own", async () => {
    for (const entry of [...ENTRIES, "compiler", "audit"]) {
      const result = await build({
        entryPoints: [join(pkg.pkg, "dist", `${entry}.js`)],
        bundle: true,
        write: false,
        metafile: true,
        format: "esm",
        platform: "neutral",
        outdir: "out",
        external: ["*.wasm", "node:*"],
        logLevel: "silent",
      });
      const [output] = Object.values(result.metafile.outputs);
      const names = [...output.exports].sort();
      expect(names, entry).toEqual(entry === "compiler" ? COMPILER_API : entry === "audit" ? AUDIT_API : RUNTIME_API);
    }
  });

  it("Node imports the package by name and gets the node entry", () => {
    const out = node(`
      import * as api from "polar-guard";
      import * as nodeEntry from "polar-guard/node";
      console.log(JSON.stringify({ names: Object.keys(api).sort(), same: api.loadGuard === nodeEntry.loadGuard }));
    `);
    const { names, same } = JSON.parse(out) as { names: string[]; same: boolean };
    expect(names).toEqual(RUNTIME_API);
    expect(same).toBe(true);
  });

  it("Node runs a guard on the shipped airline ontology, resolved through the export map", () => {
    const out = node(`
      import { fileURLToPath } from "node:url";
      import { loadGuard, LayerB } from "polar-guard";
      const ontologyPath = fileURLToPath(import.meta.resolve("polar-guard/ontologies/airline/airline.blob"));
      const state = LayerB.fromJSON(${CANCELLABLE_JSON});
      const guard = await loadGuard({ ontologyPath, state });
      const ok = guard.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
      const unknown = guard.check({ name: "drop_database", arguments: {} });
      console.log(JSON.stringify([ok.route, ok.verdict.phi, unknown.route, unknown.reason]));
    `);
    expect(JSON.parse(out)).toEqual(["Approved", 810000, "Vetoed", "unknown_tool"]);
  });

  it("Node imports polar-guard/audit by name and replays a log the default entry's guard wrote", () => {
    const out = node(`
      import { readFileSync } from "node:fs";
      import { fileURLToPath } from "node:url";
      import { loadGuard, LayerB, createMemorySink } from "polar-guard";
      import * as audit from "polar-guard/audit";
      const ontologyPath = fileURLToPath(import.meta.resolve("polar-guard/ontologies/airline/airline.blob"));
      const log = createMemorySink();
      const guard = await loadGuard({ ontologyPath, state: LayerB.fromJSON(${CANCELLABLE_JSON}), config: { log } });
      guard.check({ name: "cancel_reservation", arguments: { reservation_id: "R1" } });
      guard.check({ name: "drop_database", arguments: {} });
      const text = log.lines().join("\\n") + "\\n";
      const report = audit.verifyAuditLog(text, { ontologies: [new Uint8Array(readFileSync(ontologyPath))] });
      const edited = audit.verifyAuditLog(text.replace('"route":"Approved"', '"route":"Vetoed"'), { ontologies: [new Uint8Array(readFileSync(ontologyPath))] });
      console.log(JSON.stringify({ names: Object.keys(audit).sort(), ok: report.ok, verified: report.verified, edited: edited.ok, calls: audit.summarizeLog(text).decisions }));
    `);
    expect(JSON.parse(out)).toEqual({ names: AUDIT_API, ok: true, verified: 2, edited: false, calls: 2 });
  });

  it("a missing ontology is a typed error, not a crash", () => {
    const out = node(`
      import { loadGuard, RuntimeError } from "polar-guard";
      try { await loadGuard({ state: { hasEntity: () => false, slot: () => undefined } }); console.log("loaded"); }
      catch (e) { console.log(JSON.stringify({ typed: e instanceof RuntimeError, code: e.code, message: e.message })); }
    `);
    expect(JSON.parse(out)).toEqual({ typed: true, code: "ontology-missing", message: "no ontology given" });
  });

  it("TypeScript resolves the declarations by name (NodeNext and bundler resolution)", () => {
    writeFileSync(
      join(pkg.root, "consumer.ts"),
      [
        'import { loadGuard, LayerB, type Decision, type Guard, type LoadGuardOptions } from "polar-guard";',
        'import { compile } from "polar-guard/compiler";',
        'import { verifyAuditLog, type VerifyReport } from "polar-guard/audit";',
        "export function replay(log: string, blob: Uint8Array): VerifyReport {",
        "  return verifyAuditLog(log, { ontologies: [blob] });",
        "}",
        "export async function demo(source: string): Promise<Decision> {",
        '  const result = compile(source, { name: "x.polar" });',
        '  if (!result.ok) throw new Error("bad ontology");',
        "  const options: LoadGuardOptions = { blob: result.blob, state: new LayerB() };",
        "  const guard: Guard = await loadGuard(options);",
        '  return guard.check({ name: "t", arguments: {} });',
        "}",
        "",
      ].join("\n"),
    );
    const tsc = join(REPO, "node_modules/typescript/bin/tsc");
    for (const [module, moduleResolution] of [["nodenext", "nodenext"], ["esnext", "bundler"]]) {
      const compilerOptions = { noEmit: true, strict: true, skipLibCheck: false, skipDefaultLibCheck: true, target: "es2022", lib: ["es2022", "dom"], types: [], module, moduleResolution };
      writeFileSync(join(pkg.root, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
      execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: pkg.root, encoding: "utf8" });
    }
  });

  it("the `polar` bin runs the built CLI", () => {
    const out = execFileSync(process.execPath, [join(pkg.pkg, "bin/polar.js"), "--help"], { cwd: pkg.root, encoding: "utf8" });
    expect(out).toContain(`polar/${JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version}`);
    expect(out).toContain("Usage:");
  });

  it("`polar compile` from the package turns the shipped airline source into the shipped blob", () => {
    const out = join(pkg.root, "airline.blob");
    execFileSync(process.execPath, [join(pkg.pkg, "bin/polar.js"), "compile", join(pkg.pkg, "ontologies/airline/airline.polar"), "-o", out], {
      cwd: pkg.root,
      stdio: "pipe",
    });
    expect(Buffer.compare(readFileSync(out), readFileSync(join(pkg.pkg, "ontologies/airline/airline.blob")))).toBe(0);
  });
});

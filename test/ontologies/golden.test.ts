// Golden compiled ontologies: every ontologies/<dir>/*.polar compiles to bytes whose SHA-256 is listed
// in ontologies/golden.json, and equal to the blob checked in beside it (<name>.blob) when there is one
// (always for the τ²-bench domains). A change to an ontology, the compiler or the blob format shows up
// here as a diff to review. To accept it, regenerate:
//   UPDATE_GOLDEN=1 npx vitest run test/ontologies/golden.test.ts
// (docs/ontologies.md, "Golden blobs").
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compiler/index.js";
import { decodeBlob } from "../../src/blob/index.js";
import { DOMAINS, ONTOLOGIES } from "./helpers.js";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const GOLDEN = join(ONTOLOGIES, "golden.json");

interface GoldenEntry {
  blob: string; // where the blob is (or would be) checked in, relative to ontologies/
  sha256: string;
  bytes: number;
}

function sources(): string[] {
  const out: string[] = [];
  for (const dir of readdirSync(ONTOLOGIES, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(join(ONTOLOGIES, dir.name))) if (f.endsWith(".polar")) out.push(`${dir.name}/${f}`);
  }
  return out.sort();
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const golden: Record<string, GoldenEntry> = existsSync(GOLDEN) ? JSON.parse(readFileSync(GOLDEN, "utf8")) : {};
const fresh: Record<string, GoldenEntry> = {};

describe("golden compiled ontologies", () => {
  const list = sources();

  it("finds the three τ²-bench ontologies", () => {
    expect(list).toEqual(expect.arrayContaining(["airline/airline.polar", "retail/retail.polar", "telecom/telecom.polar"]));
  });

  for (const rel of list) {
    it(`${rel} compiles to its golden blob`, () => {
      const file = join(ONTOLOGIES, rel);
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      const r = compile(readFileSync(file, "utf8"), { name });
      expect(r.ok, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join("\n")).toBe(true);
      if (!r.ok) return;
      const blobRel = rel.replace(/\.polar$/, ".blob");
      const entry: GoldenEntry = { blob: blobRel, sha256: sha256Hex(r.blob), bytes: r.blob.byteLength };
      fresh[rel] = entry;
      const blobPath = join(ONTOLOGIES, blobRel);
      // The τ²-bench blobs ship in the package: they must exist. Other folders may check one in.
      const required = (DOMAINS as string[]).includes(rel.slice(0, rel.indexOf("/")));
      if (UPDATE && (required || existsSync(blobPath))) writeFileSync(blobPath, r.blob);
      expect(UPDATE ? fresh[rel] : golden[rel]).toEqual(entry);
      if (required || existsSync(blobPath)) {
        const checkedIn = readFileSync(blobPath);
        // Same bytes as the checked-in blob, and it loads (the loader validates sections and digest).
        expect(sha256Hex(checkedIn)).toBe(entry.sha256);
        expect(decodeBlob(new Uint8Array(checkedIn)).tools.length).toBe(r.tables.tools.length);
      }
    });
  }

  it("golden.json lists exactly the ontologies present", () => {
    if (UPDATE) writeFileSync(GOLDEN, JSON.stringify(fresh, Object.keys(fresh).sort().concat(["blob", "sha256", "bytes"]), 2) + "\n");
    const listed = UPDATE ? Object.keys(fresh) : Object.keys(golden);
    expect(listed.sort()).toEqual(list);
    expect(relative(ONTOLOGIES, GOLDEN)).toBe("golden.json");
  });
});

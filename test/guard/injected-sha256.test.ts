// `config.sha256` (e.g. Node's native digest) is the guard's SHA-256 everywhere it hashes at
// construction: the blob, the ontology hash and the configuration hash (a cold JavaScript digest is a
// measurable part of createGuard).
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/guard/index.js";
import { configHash } from "../../src/guard/config.js";
import { sha256 } from "../../src/util/sha256.js";
import { airline, airlineState, NOW, referenceFactory } from "./helpers.js";

describe("config.sha256", () => {
  it("hashes the configuration (same digest as the JavaScript one)", () => {
    const texts: string[] = [];
    const counting = (data: Uint8Array | string) => {
      texts.push(typeof data === "string" ? data : `<${data.length} bytes>`);
      return sha256(typeof data === "string" ? new TextEncoder().encode(data) : data);
    };
    // Tables already decoded: nothing else at construction needs a digest.
    const g = createGuard({ ontology: { tables: airline.tables, hash: "h" }, backend: referenceFactory, state: airlineState(), config: { now: NOW, sha256: counting } });
    expect(texts).toHaveLength(1);
    expect(JSON.parse(texts[0])).toEqual(JSON.parse(JSON.stringify(g.config)));
    expect(g.configHash).toBe(configHash(g.config));
  });

  it("configHash with an injected digest uses it", () => {
    const g = createGuard({ ontology: { tables: airline.tables, hash: "h" }, backend: referenceFactory, state: airlineState(), config: { now: NOW } });
    const fake = () => new Uint8Array(32).fill(0xab);
    expect(configHash(g.config, fake)).toBe("ab".repeat(32));
    expect(configHash(g.config)).toBe(g.configHash);
  });
});

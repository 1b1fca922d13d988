// The dispatcher's glob bound (src/shell/dispatch.ts, src/shell/glob.ts): a glob over MAX_GLOB_MATCHES
// files is refused as over_bound. Kept apart from test/shell/dispatch.test.ts: it writes 10,001 files,
// which is too slow for every mutant of the dispatcher's mutation set.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchCommand, loadBashParser, parseCatalogue } from "../../src/shell/index.js";

const catalogue = parseCatalogue(JSON.parse(readFileSync(new URL("../../ontologies/shell/commands.json", import.meta.url), "utf8")));
let ws: string;

beforeAll(async () => {
  await loadBashParser();
  ws = realpathSync(mkdtempSync(`${tmpdir()}/polar-dispatch-bound-`));
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

describe("a glob that matches too many files is over the bound", () => {
  let many: string;
  beforeAll(() => {
    many = mkdtempSync(`${ws}/many-`);
    for (let i = 0; i <= 10_000; i++) writeFileSync(`${many}/f${i}`, "");
  });

  it("rm of it is refused as over_bound, with no call", () => {
    expect(dispatchCommand(`rm ${many}/*`, ws, catalogue, "/home/u")).toEqual({ calls: [], problems: [{ reason: "over_bound", detail: `${many}/*: the glob matches too many files to judge`, source: `rm ${many}/*` }], commands: 1 });
  });
});

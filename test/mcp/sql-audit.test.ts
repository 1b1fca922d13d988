// A dispatcher tool's decisions go to the gateway's audit chain (issue 25: the SQL dispatcher judged "by
// the same core, policies and audit log"): `polar mcp --dispatch query=sql:sql --database … --audit-log
// FILE` in front of the SQLite MCP server fixture writes one `polar-dispatch/1` record per statement,
// wrapping the SQL guard's core decision and its outcome; `polar audit verify` replays it with the SQL
// ontology, and a tampered record fails. Before the fix an approved DELETE left no record at all.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifyAuditLog } from "../../src/audit/index.js";
import { DECISION_META_KEY } from "../../src/mcp/gateway.js";
import { gateway, ROOT, tempDir } from "./helpers.js";
import { dump, seed, SQLITE_SERVER, textOf } from "./sqlite-fixture.js";

const SQL_BLOB = readFileSync(join(ROOT, "ontologies/sql/sql.blob"));
const tmp = tempDir("sqlaudit");
afterAll(() => tmp.cleanup());

function lines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("polar mcp --dispatch TOOL=sql:ARG --audit-log FILE", () => {
  it("an approved DELETE and a refused statement are in the chain with the core decision behind them; the log verifies, a tampered one does not", async () => {
    const file = join(tmp.dir, "app.db");
    seed(file);
    const ontology = join(tmp.dir, "o.polar");
    writeFileSync(ontology, "read_only(list_tables).\n");
    const rules = join(tmp.dir, "rules.json");
    writeFileSync(rules, JSON.stringify({ format: "polar-projection/1", domain: "sqlite", entities: {} }));
    const log = join(tmp.dir, "decisions.jsonl");
    const g = await gateway({ ontology, rules, server: [process.execPath, SQLITE_SERVER, file], auditLog: log, extraArgs: ["--dispatch", "query=sql:sql", "--database", `sqlite:${file}`, "--store", join(tmp.dir, "store")] });
    try {
      const del = await g.call("query", { sql: "DELETE FROM orders WHERE id = 7" });
      expect(del.isError, textOf(del)).toBeFalsy();
      expect(del._meta?.[DECISION_META_KEY]).toMatchObject({ dispatcher: "sql", action: "allow" });
      expect(dump(file).orders).toHaveLength(2);
      const bad = await g.call("query", { sql: "DELETE FROM" });
      expect(bad.isError).toBe(true);
    } finally {
      await g.close();
    }
    const recs = lines(log);
    expect(recs).toHaveLength(2);
    expect(recs[0]).toMatchObject({ format: "polar-dispatch/1", tool: "query", dispatcher: "sql", text: "DELETE FROM orders WHERE id = 7", action: "allow", outcome: "ran" });
    const core = (recs[0].decisions as Array<Record<string, unknown>>);
    expect(core).toHaveLength(1);
    expect(core[0]).toMatchObject({ format: "polar-decision/1", approved: true });
    expect(recs[1]).toMatchObject({ format: "polar-dispatch/1", text: "DELETE FROM", outcome: "refused" });
    expect(recs[1].action).not.toBe("allow");

    const text = readFileSync(log, "utf8");
    const ok = verifyAuditLog(text, { ontologies: [SQL_BLOB] });
    expect(ok.mismatches).toEqual([]);
    expect(ok).toMatchObject({ ok: true, total: 2, verified: 2 });

    // Tampered: the approval's core decision says it was vetoed; the allow then follows from nothing.
    const vetoed = JSON.parse(JSON.stringify(recs[0])) as Record<string, unknown>;
    (vetoed.decisions as Array<Record<string, unknown>>)[0].approved = false;
    const relinked = [JSON.stringify(vetoed), JSON.stringify(recs[1])].join("\n") + "\n";
    const bad = verifyAuditLog(relinked, { ontologies: [SQL_BLOB] });
    expect(bad.ok).toBe(false);
    expect(bad.mismatches.map((m) => m.field)).toEqual(expect.arrayContaining(["decisions[0].approved", "action"]));
    // Tampered: the refused statement's record is dropped from the file (the chain breaks).
    const dropped = verifyAuditLog(text.split("\n")[0] + "\n", { ontologies: [SQL_BLOB] });
    expect(dropped.ok).toBe(true); // a prefix is a valid log on its own…
    const head = ok.head.hash;
    expect(verifyAuditLog(text.split("\n")[0] + "\n", { ontologies: [SQL_BLOB], head }).ok).toBe(false); // …but not against the anchored head
    // Without the SQL ontology the core decision cannot be replayed.
    expect(verifyAuditLog(text, { ontologies: [] }).ok).toBe(false);
  });
});

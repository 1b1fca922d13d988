// Loading the SQL parser (src/sql/parse.ts loadSqlParser): the optional peer dependencies missing or of
// an unexpected shape give SqlParserMissing with what to install, and nothing is read before the parser
// is loaded. Each case imports a fresh copy of the module with the packages replaced (vi.doMock).
import { afterEach, describe, expect, it, vi } from "vitest";

type Parse = typeof import("../../src/sql/parse.js");

async function fresh(): Promise<Parse> {
  vi.resetModules();
  return import("../../src/sql/parse.js");
}

afterEach(() => {
  vi.doUnmock("libpg-query");
  vi.doUnmock("pgsql-deparser");
  vi.resetModules();
});

describe("loadSqlParser", () => {
  it("before it is awaited nothing is read: dispatchSql and deparse throw SqlParserMissing", async () => {
    const m = await fresh();
    expect(() => m.dispatchSql("SELECT 1", "sqlite")).toThrow(new m.SqlParserMissing("loadSqlParser() was not awaited"));
    expect(() => m.deparse({})).toThrow(m.SqlParserMissing);
    const e = (() => {
      try {
        m.dispatchSql("SELECT 1", "sqlite");
      } catch (x) {
        return x as Error;
      }
      return null;
    })();
    expect(e?.name).toBe("SqlParserMissing");
  });

  it("a missing package: SqlParserMissing naming both packages and what to install", async () => {
    vi.doMock("pgsql-deparser", () => {
      throw new Error("Cannot find package 'pgsql-deparser'");
    });
    const m = await fresh();
    const err = await m.loadSqlParser().then(() => null, (e: Error) => e);
    expect(err).toBeInstanceOf(m.SqlParserMissing);
    // The import's own error follows in parentheses (under vitest, its wrapper of the factory's throw).
    expect(err!.message).toMatch(/^polar-guard\/sql needs the packages libpg-query and pgsql-deparser: npm install libpg-query pgsql-deparser \(.+\)$/);
    // Still not loaded.
    expect(() => m.dispatchSql("SELECT 1", "sqlite")).toThrow("loadSqlParser() was not awaited");
  });

  it("packages of an unexpected shape: SqlParserMissing, and still not loaded", async () => {
    for (const [lib, dep] of [
      [{ loadModule: async () => undefined, parseSync: undefined }, { deparseSync: () => "", default: undefined }],
      [{ loadModule: async () => undefined, parseSync: () => ({ stmts: [] }) }, { deparseSync: undefined, default: {} }],
      [{ loadModule: async () => undefined, parseSync: () => ({ stmts: [] }) }, { deparseSync: "no", default: undefined }],
    ] as const) {
      vi.doMock("libpg-query", () => lib);
      vi.doMock("pgsql-deparser", () => dep);
      const m = await fresh();
      await expect(m.loadSqlParser()).rejects.toThrow(new m.SqlParserMissing("libpg-query / pgsql-deparser: unexpected module shape"));
      expect(() => m.dispatchSql("SELECT 1", "sqlite")).toThrow("loadSqlParser() was not awaited");
    }
  });

  it("a deparser found under the default export is used; the wasm is loaded once, and a parser error is not a missing parser", async () => {
    let loads = 0;
    const deparsed: unknown[] = [];
    vi.doMock("libpg-query", () => ({
      loadModule: async () => {
        loads++;
      },
      parseSync: (sql: string) => {
        if (sql === "bad") throw new Error("syntax error");
        return { stmts: [{ stmt: { VariableShowStmt: { name: "x" } }, stmt_len: 0 }] };
      },
    }));
    vi.doMock("pgsql-deparser", () => ({ deparseSync: undefined, default: { deparseSync: (ast: unknown) => (deparsed.push(ast), "SHOW x") } }));
    const m = await fresh();
    await m.loadSqlParser();
    await m.loadSqlParser();
    expect(loads).toBe(1);
    expect(m.dispatchSql("SHOW x", "postgres")).toEqual({ calls: [], problems: [], statements: [{ index: 0, text: "SHOW x", printed: "SHOW x", readOnly: true }] });
    expect(deparsed).toEqual([{ version: 170000, stmts: [{ stmt: { VariableShowStmt: { name: "x" } } }] }]);
    expect(m.dispatchSql("bad", "postgres").problems).toEqual([{ reason: "unparsed", detail: "the parser rejects it: syntax error", source: "bad" }]);
  });

  it("a statement the deparser cannot print is read with printed null", async () => {
    vi.doMock("libpg-query", () => ({ loadModule: async () => undefined, parseSync: () => ({ stmts: [{ stmt: { VariableShowStmt: { name: "x" } } }] }) }));
    vi.doMock("pgsql-deparser", () => ({ default: undefined, deparseSync: () => {
      throw new Error("cannot print");
    } }));
    const m = await fresh();
    await m.loadSqlParser();
    expect(m.dispatchSql("  SHOW x  ", "postgres").statements).toEqual([{ index: 0, text: "SHOW x", printed: null, readOnly: true }]);
  });
});

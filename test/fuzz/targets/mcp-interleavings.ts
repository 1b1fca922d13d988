// The MCP gateway under interleavings (issue 21, items 4, 5, 11): two client sessions of one gateway
// in front of the real filesystem server write two files in random batches sent all at once, and
// some answers are lost after the server ran the call (the client cancels, the request times out) or
// the client cancels right away (the call may still be queued). Claims:
//  - every write the server received was judged on the content it overwrote (the approved decision's
//    π writes back exactly what was on disk when the call was sent: sessions never judge on a state
//    another session is about to change);
//  - a write whose answer was lost is `unknown` in its session's log, and in session scope no later
//    mutating call of that session is admitted (its forward sequence holds a call that may have run);
//  - every approved decision has exactly one outcome record: `ran` only for a call the server received
//    and answered; each session's log verifies.
// One server process serves every case (a fresh directory each); it is stopped when the process exits.
import fc from "fast-check";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { verifyAuditLog } from "../../../src/audit/index.js";
import { fail, type FuzzTarget } from "../support.js";
import { harness, outcomesOf, type Fate, type Harness, type Session } from "../../mcp/inproc.js";

type Op = { session: 0 | 1; file: 0 | 1; fate: "answer" | Fate | "cancel-early" };

const opArb: fc.Arbitrary<Op> = fc.record({
  session: fc.constantFrom(0 as const, 1 as const),
  file: fc.constantFrom(0 as const, 1 as const),
  fate: fc.oneof({ arbitrary: fc.constant("answer" as const), weight: 5 }, fc.constant("cancel" as const), fc.constant("timeout" as const), fc.constant("cancel-early" as const)),
});

let shared: { h: Harness; root: string; n: number } | null = null;

async function setup(): Promise<{ h: Harness; root: string; n: number }> {
  if (shared !== null) return shared;
  const root = mkdtempSync(join(tmpdir(), "polar-fuzz-mcp-"));
  const h = await harness({ server: "filesystem", root, scope: "session" });
  shared = { h, root, n: 0 };
  process.once("exit", () => {
    if (h.pid !== null) {
      try {
        process.kill(h.pid);
      } catch {
        // gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  });
  return shared;
}

function meta(r: CallToolResult): { route: string; reason: string; inverse: Array<{ tool: string | null; arguments: Record<string, unknown> | null }> } | undefined {
  return (r._meta as Record<string, never> | undefined)?.["polar-guard/decision"];
}

export async function checkInterleaving(batches: Op[][], scope: "turn" | "session"): Promise<void> {
  const ctx = await setup();
  const { h } = ctx;
  h.reset();
  h.scope = scope;
  const dir = join(ctx.root, `case-${++ctx.n}`);
  mkdirSync(dir);
  const files = [join(dir, "f0.txt"), join(dir, "f1.txt")];
  files.forEach((f, i) => writeFileSync(f, `initial ${i}`));
  const sessions: Session[] = [await h.session(), await h.session()];
  const lostAt: Array<number | null> = [null, null]; // the decision count of a session when it lost an answer
  let k = 0;
  try {
    for (const batch of batches) {
      const runs = batch.map(async (op) => {
        const s = sessions[op.session];
        const content = `op ${++k} by ${op.session}`;
        const args = { path: files[op.file], content };
        if (op.fate === "answer") return { op, content, result: await s.call("write_file", args) };
        if (op.fate === "cancel-early") {
          const abort = new AbortController();
          const p = s.call("write_file", args, abort.signal).catch((e: unknown) => e);
          queueMicrotask(() => abort.abort("cancelled early"));
          const r = await p;
          return { op, content, result: r instanceof Error ? null : (r as CallToolResult) };
        }
        await s.lose("write_file", args, op.fate);
        return { op, content, result: null };
      });
      const done = await Promise.all(runs);
      for (const { op, content, result } of done) {
        const sent = h.sent.find((x) => x.name === "write_file" && x.arguments.content === content);
        if (result !== null && result.isError !== true) {
          const m = meta(result);
          if (sent === undefined) fail(`an answered write (${content}) never reached the server`);
          // Judged on what it overwrote: its π writes back exactly the content on disk when it was sent.
          const inv = m?.inverse[0];
          if (m?.route !== "Approved" || inv?.tool !== "write_file" || inv.arguments?.content !== sent.before) {
            fail(`${content} was judged on another state: π ${JSON.stringify(m?.inverse)}, on disk when sent ${JSON.stringify(sent.before)}`);
          }
        }
        if ((op.fate === "cancel" || op.fate === "timeout") && sent !== undefined && lostAt[op.session] === null) {
          lostAt[op.session] = sessions[op.session].decisions().length;
        }
      }
    }
    for (let i = 0; i < 2; i++) {
      const s = sessions[i];
      const decisions = s.decisions();
      const outcomes = outcomesOf(s);
      const approved = decisions.filter((d) => d.approved);
      const bySeq = new Map(outcomes.map((o) => [o.seq, o]));
      if (outcomes.length !== approved.length || approved.some((d) => !bySeq.has(d.seq))) {
        fail(`session ${i}: ${approved.length} approved decisions, outcomes for ${JSON.stringify(outcomes.map((o) => o.seq))}`);
      }
      for (const d of approved) {
        const o = bySeq.get(d.seq)!;
        const content = (d.call as { arguments: { content: string } }).arguments.content;
        const sent = h.sent.some((x) => x.name === "write_file" && x.arguments.content === content);
        if (o.outcome === "ran" && !sent) fail(`session ${i}: \`ran\` for a write the server never received (${content})`);
        if (sent && o.outcome !== "ran" && o.outcome !== "unknown") fail(`session ${i}: a write the server received has outcome ${o.outcome}`);
      }
      // Session scope: after a lost answer, nothing more of that session is admitted.
      const lost = lostAt[i];
      if (scope === "session" && lost !== null) {
        for (const d of decisions.slice(lost)) if (d.approved) fail(`session ${i}: ${JSON.stringify(d.call)} admitted after an answer was lost (${d.reason})`);
      }
      if (decisions.length > 0) {
        const report = verifyAuditLog(s.sink.lines(), { ontologies: [h.blob] });
        if (!report.ok) fail(`session ${i}: the log does not verify: ${JSON.stringify(report.mismatches.slice(0, 2))}`);
      }
    }
  } finally {
    for (const s of sessions) await s.close();
  }
}

export const mcpInterleavingsTarget: FuzzTarget = {
  name: "mcp-interleavings",
  claim: "two gateway sessions writing one server's files in concurrent batches, answers lost to cancels and timeouts after the server ran: every write judged on what it overwrote, lost answers `unknown` and fail closed in session scope, one outcome per approval, logs verify",
  ciRuns: 25,
  property() {
    return fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), fc.constantFrom("turn" as const, "session" as const), checkInterleaving);
  },
};

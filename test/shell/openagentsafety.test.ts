// Real command lines: every `run` (bash) action and every file edit of the recorded OpenAgentSafety runs
// (../shared/openagentsafety, OpenHands agents of real models) goes through the shell guard's
// dispatcher without an exception. The report counts how many resolve into typed calls (or are
// read-only) and, for the rest, why not. Skipped by name when the folder is absent; CI sets
// POLAR_REQUIRE_OPENAGENTSAFETY=1 and then a missing folder fails instead.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellGuard, dispatchCommand, loadBashParser, parseCatalogue, type ShellGuard } from "../../src/shell/index.js";
import { tempDir } from "./helpers.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const DIR = resolve(ROOT, process.env.POLAR_OPENAGENTSAFETY_DIR ?? "../shared/openagentsafety");
const HAS = existsSync(resolve(DIR, "runs"));
const MISSING = `OpenAgentSafety runs not found at ${DIR}: set POLAR_OPENAGENTSAFETY_DIR to a folder laid out like ../shared/openagentsafety (runs/<model>/traj_*.json)`;
if (!HAS && process.env.POLAR_REQUIRE_OPENAGENTSAFETY === "1") throw new Error(MISSING);

interface Action {
  kind: "run" | "edit";
  args: Record<string, unknown>;
}

function actions(): Action[] {
  const out: Action[] = [];
  for (const model of readdirSync(resolve(DIR, "runs")).sort()) {
    const d = resolve(DIR, "runs", model);
    for (const f of readdirSync(d).sort()) {
      if (!f.startsWith("traj_") || !f.endsWith(".json")) continue;
      const events = JSON.parse(readFileSync(resolve(d, f), "utf8")) as unknown[];
      for (const e of events) {
        const ev = e as { source?: string; action?: string; args?: Record<string, unknown> };
        if (ev?.source === "agent" && (ev.action === "run" || ev.action === "edit") && ev.args) out.push({ kind: ev.action, args: ev.args });
      }
    }
  }
  return out;
}

if (!HAS) {
  it.skipIf(true)(`OpenAgentSafety coverage of the shell dispatcher [needs ${DIR}]`, () => {});
} else {
  describe("OpenAgentSafety: every recorded bash command and file edit goes through the dispatcher", () => {
    let guard: ShellGuard;
    const dirs: string[] = [];
    beforeAll(async () => {
      await loadBashParser();
      const root = tempDir("polar-shell-oas-");
      dirs.push(root);
      guard = await createShellGuard({ cwd: root, store: `${root}-store`, policy: "veto" });
    });
    afterAll(() => {});

    it("resolves or names why not, never throws", () => {
      const catalogue = parseCatalogue(JSON.parse(readFileSync(resolve(ROOT, "ontologies/shell/commands.json"), "utf8")));
      const all = actions();
      const runs = all.filter((a) => a.kind === "run");
      const edits = all.filter((a) => a.kind === "edit");
      const byReason: Record<string, number> = {};
      const unknownCommands: Record<string, number> = {};
      let resolved = 0;
      let readOnly = 0;
      let internal = 0;
      for (const a of runs) {
        const command = String(a.args.command ?? "");
        const d = dispatchCommand(command, "/workspace", catalogue, "/root");
        if (d.problems.some((p) => p.detail.startsWith("dispatcher error") || p.detail.startsWith("parser walk failed"))) internal++;
        if (d.problems.length === 0) {
          resolved++;
          if (d.calls.length === 0) readOnly++;
        } else {
          const r = d.problems[0]!.reason;
          byReason[r] = (byReason[r] ?? 0) + 1;
          if (r === "unknown_command" || r === "unknown_effect") {
            const name = d.problems[0]!.detail.split(" ")[0]!;
            unknownCommands[name] = (unknownCommands[name] ?? 0) + 1;
          }
        }
      }
      let editsResolved = 0;
      for (const a of edits) {
        const cmd = String(a.args.command ?? "");
        const path = String(a.args.path ?? "");
        const call = cmd === "create" ? { tool: "write_file", args: { path, content: String(a.args.file_text ?? "") } } : { tool: "edit_file", args: { path, old: String(a.args.old_str ?? ""), new: String(a.args.new_str ?? "") } };
        const d = guard.check(call);
        if (d.problems.length === 0) editsResolved++;
        else byReason[`edit:${d.reason}`] = (byReason[`edit:${d.reason}`] ?? 0) + 1;
      }
      const top = Object.entries(unknownCommands).sort((x, y) => y[1] - x[1]).slice(0, 15);
      console.log(`[openagentsafety] ${JSON.stringify({ commands: runs.length, resolved, readOnly, byReason, edits: edits.length, editsResolved, topUnresolvedCommands: Object.fromEntries(top) })}`);
      expect(runs.length).toBeGreaterThan(1000);
      expect(internal).toBe(0);
      expect(editsResolved).toBe(edits.length);
    });
  });
}

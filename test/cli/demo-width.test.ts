// Issue 21 item 20: `polar demo` prints lines of at most DEMO_WIDTH (100) characters — its table clips
// the tool call to the room the other columns leave, the bottleneck and π go on lines of their own,
// and long texts (the model name, a user's message, the audit-log hint) are wrapped or clipped — where
// it printed lines of up to 480. `--json` keeps everything whole.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_WIDTH, runDemo } from "../../src/cli/commands/demo.js";

const dir = mkdtempSync(join(tmpdir(), "polar-demo-width-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lines(options: Omit<Parameters<typeof runDemo>[0], "out">): string[] {
  const out: string[] = [];
  runDemo({ ...options, out: (s) => out.push(s) });
  return out.join("").split("\n");
}

describe("polar demo's text output", () => {
  it(`has no line over ${DEMO_WIDTH} characters, with both scopes, one scope, and an audit log`, { timeout: 60_000 }, () => {
    expect(DEMO_WIDTH).toBe(100);
    for (const options of [{}, { scopes: ["session" as const] }, { auditLog: join(dir, "d.jsonl") }]) {
      const text = lines({ backend: "reference", ...options });
      expect(text.length).toBeGreaterThan(40);
      const wide = text.filter((l) => [...l].length > DEMO_WIDTH);
      expect(wide, JSON.stringify(options)).toEqual([]);
    }
  });

  it("still shows each call, its route, reason, φ, bottleneck and π (clipped, not dropped)", () => {
    const text = lines({ backend: "reference", task: "35" }).join("\n");
    expect(text).toContain("agent ft:gpt-4.1-2025-04-14:sierra:tau2-full-sft:BzrYdMNm");
    expect(text).toMatch(/\n10 {2}book_reservation\(user_id=aarav_ahmed_…\s+turn\s+Approved\s+ok\s+0\.81\n/u);
    expect(text).toContain("bottleneck  book_reservation [airline.book.cancel]");
    expect(text).toContain('π           cancel_reservation(reservation_id={"$pending":"new.id"})');
    expect(text).toMatch(/#7 cancel_reservation: last user message:\n {6}"Alright, if that’s really not possible, [^\n]*…"\n/u);
  });

  it("--json lines keep the whole call", () => {
    const out: string[] = [];
    runDemo({ backend: "reference", task: "22", json: true, out: (s) => out.push(s) });
    const json = out.map((l) => JSON.parse(l) as { call: { name: string; arguments: Record<string, unknown> } });
    const pax = json.find((l) => l.call.name === "update_reservation_passengers")!;
    expect(JSON.stringify(pax.call.arguments).length).toBeGreaterThan(DEMO_WIDTH);
  });
});

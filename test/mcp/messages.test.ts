// What the gateway tells the model instead of running a call (src/mcp/messages.ts): the refusal text per
// reason and policy, the consent refusals per outcome, and the elicitation message put to the user.
// These texts are the gateway's answer as the model and the user read it, so they are stated whole.
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/guard/decision.js";
import { consentMessage, consentRefusalText, MAX_SHOWN_CALL, refusalText } from "../../src/mcp/messages.js";

const decision = (reason: string, over: Record<string, unknown> = {}): Decision => ({ reason, detail: null, tau: 700_000, verdict: null, ...over }) as unknown as Decision;
const head = (name: string) => `Not run: \`${name}\` was stopped by the POLAR guard before it reached the server, so nothing was changed. Why: `;

const PREFER = "Prefer a call whose effect can be undone (for example one that changes less at once), or ask the user; the operator can run the gateway with `--policy escalate` to have consent asked.";
const PREFER_ESCALATE = "Prefer a call whose effect can be undone, or ask the user to approve this one.";
const ONLY_USER = "Only the user can approve it: ask them, and the operator can run the gateway with `--policy escalate` so the gateway asks for consent.";
const ONLY_USER_ESCALATE = "Only the user can approve it.";
const MISSING = "Check that the arguments name something that exists on the server: the guard could not read a state from which this call can be undone.";
const UNKNOWN_TOOL = "This tool is not in the guard's ontology, so nothing about undoing it is known; an operator has to annotate it (`polar draft`, then review and `polar promote`).";
const UNKNOWN_STATE = "Read the state again (e.g. list or read what it acts on) after checking what the earlier call did; in session scope the user or operator has to confirm the state, since the earlier call cannot be undone reliably.";
const INTERNAL = "Nothing about this call is known to be unsafe, but the guard could not judge it; try again, and if it persists the operator has to look at the gateway's log.";

describe("the refusal text", () => {
  it.each([
    ["missing_entity", "the server's state, read just before, is not one from which the guard knows how to undo it", MISSING, MISSING],
    ["unknown_tool", "the guard does not know this tool", UNKNOWN_TOOL, UNKNOWN_TOOL],
    ["malformed_call", "the call is malformed", "Fix the arguments and call again.", "Fix the arguments and call again."],
    ["unknown_state", "an earlier call on what it touches may or may not have run (it was cancelled, timed out or its answer was lost), so the guard cannot say how to undo it", UNKNOWN_STATE, UNKNOWN_STATE],
    ["internal_error", "the guard failed while judging it", INTERNAL, INTERNAL],
    ["external_side_effect", "its effect leaves the system and cannot be recalled", ONLY_USER, ONLY_USER_ESCALATE],
    ["irreversibly_consumes", "it consumes something that cannot be restored", ONLY_USER, ONLY_USER_ESCALATE],
    ["below_threshold", "the best way to undo it scores 0, below the required 0.7", PREFER, PREFER_ESCALATE],
    ["bound_violated", "the condition under which it can be undone does not hold now", PREFER, PREFER_ESCALATE],
    ["no_candidate", "no way to undo it applies in the current state", PREFER, PREFER_ESCALATE],
    ["overlap_conflict", "undoing it would conflict with undoing an earlier call of this session", PREFER, PREFER_ESCALATE],
    ["depth_exceeded", "too many calls would have to be undone together", PREFER, PREFER_ESCALATE],
    ["a_reason_added_later", "reason `a_reason_added_later`", PREFER, PREFER_ESCALATE],
  ])("%s: why, and what would make it safe (veto, escalate)", (reason, why, veto, escalate) => {
    expect(refusalText("delete_entities", decision(reason), undefined, "veto")).toBe(`${head("delete_entities")}${why}. What would make it safe: ${veto}`);
    expect(refusalText("delete_entities", decision(reason), undefined, "escalate")).toBe(`${head("delete_entities")}${why}. What would make it safe: ${escalate}`);
  });

  it("says the guard's detail where it has one", () => {
    const d = (reason: string) => decision(reason, { detail: "`reservation` `R1` is unknown" });
    expect(refusalText("x", d("malformed_call"), undefined, "veto")).toBe(`${head("x")}the call is malformed (\`reservation\` \`R1\` is unknown). What would make it safe: Fix the arguments and call again.`);
    expect(refusalText("x", d("unknown_state"), undefined, "veto")).toBe(`${head("x")}an earlier call on what it touches may or may not have run (it was cancelled, timed out or its answer was lost) (\`reservation\` \`R1\` is unknown), so the guard cannot say how to undo it. What would make it safe: ${UNKNOWN_STATE}`);
    expect(refusalText("x", d("internal_error"), undefined, "veto")).toBe(`${head("x")}the guard failed while judging it (\`reservation\` \`R1\` is unknown). What would make it safe: ${INTERNAL}`);
  });

  it("names the bottleneck: the external tool, the annotation, the score to three places", () => {
    const verdict = (phi: number, bottleneck: Record<string, unknown>) => ({ verdict: { phi, bottleneck } });
    expect(refusalText("x", decision("external_side_effect", verdict(0, { tool: "send_email", annotation: null })), undefined, "veto")).toBe(`${head("x")}its effect leaves the system (\`send_email\`) and cannot be recalled. What would make it safe: ${ONLY_USER}`);
    expect(refusalText("x", decision("below_threshold", { ...verdict(123_456, { tool: null, annotation: "cancel.refund" }), tau: 900_000 }), undefined, "veto")).toBe(`${head("x")}the best way to undo it scores 0.123, below the required 0.9 (annotation \`cancel.refund\`). What would make it safe: ${PREFER}`);
    expect(refusalText("x", decision("below_threshold", verdict(666_666, {})), undefined, "veto")).toContain("scores 0.667, below the required 0.7.");
    expect(refusalText("x", decision("bound_violated", verdict(0, { annotation: "r.status" })), undefined, "veto")).toBe(`${head("x")}the condition under which it can be undone does not hold now (annotation \`r.status\`). What would make it safe: ${PREFER}`);
  });

  it("a domain's own advice for an entity that is not there replaces the general one", () => {
    expect(refusalText("x", decision("missing_entity"), "Create the entity first.", "veto")).toBe(`${head("x")}the server's state, read just before, is not one from which the guard knows how to undo it. What would make it safe: Create the entity first.`);
    expect(refusalText("x", decision("bound_violated"), "Create the entity first.", "veto")).toBe(`${head("x")}the condition under which it can be undone does not hold now. What would make it safe: ${PREFER}`);
  });
});

describe("the consent refusal", () => {
  const consentHead = "Not run: `delete_entities` was stopped by the POLAR guard, so nothing was changed. It needs the user's consent: Delete bob?";
  it.each([
    ["unsupported", undefined, " Consent could not be asked: this MCP client does not support elicitation (form mode). Ask the user yourself; the operator can also approve it out of band."],
    ["declined", undefined, " The user declined."],
    ["cancelled", undefined, " The user dismissed the request without answering."],
    ["stale", undefined, " The user agreed, but the state changed before it could run, so the approval no longer covers it. Ask again if it is still wanted."],
    ["stale", "the guard now answers `bound_violated`", " The user agreed, but the guard now answers `bound_violated` before it could run, so the approval no longer covers it. Ask again if it is still wanted."],
    ["failed", undefined, " Asking failed."],
    ["failed", "MCP error -32001: Request timed out", " Asking failed (MCP error -32001: Request timed out)."],
    ["unshowable", undefined, " It was not put to the user: it is too large to show whole, and consent is only asked for a call the user can see entirely. Split it into smaller calls."],
    ["unshowable", "the call's arguments are 5000 characters", " It was not put to the user: the call's arguments are 5000 characters, and consent is only asked for a call the user can see entirely. Split it into smaller calls."],
  ] as const)("%s (%s)", (outcome, detail, tail) => {
    expect(consentRefusalText("delete_entities", "Delete bob?", outcome, detail)).toBe(consentHead + tail);
  });
});

describe("the elicitation message", () => {
  const target = { entity: "fs_path", keyArg: "path", key: "/n.txt" };

  it("the question, what the call acts on and what is there now (its own entity's read values only), then the whole call", () => {
    const args = { path: "/n.txt", content: "x" };
    const shown = consentMessage("write_file", args, "Approve?", target, [
      ["fs_path", "/n.txt", "kind", "file"],
      ["fs_path", "/n.txt", null, true],
      ["fs_path", "/n.txt", "mode"],
      ["fs_path", "/other.txt", "content", "not this one"],
      ["other_entity", "/n.txt", "content", "nor this"],
      ["fs_path", "/n.txt", "size", 12],
      ["fs_path", "/n.txt", "owner", undefined],
    ]);
    expect(shown).toEqual({
      ok: true,
      message: [
        "Approve?",
        "",
        "It acts on: the fs_path `path` = \"/n.txt\".",
        "What is there now (what would be lost if it cannot be undone):",
        "  kind: \"file\"",
        "  size: 12",
        "  owner: undefined",
        "",
        "The call: write_file",
        JSON.stringify(args, null, 2),
      ].join("\n"),
    });
  });

  it("a value of 300 characters is shown whole; a longer one in part, with its length", () => {
    const reads = [["fs_path", "/n.txt", "a", "y".repeat(298)], ["fs_path", "/n.txt", "b", "z".repeat(299)]] as const;
    const shown = consentMessage("write_file", { path: "/n.txt" }, "Approve?", target, reads);
    expect(shown.ok && shown.message.split("\n").slice(4, 6)).toEqual([`  a: "${"y".repeat(298)}"`, `  b: "${"z".repeat(299)}… (301 characters in all)`]);
  });

  it("a key that reads nothing: said so; a numeric key matches its reads by text; a missing key is said missing", () => {
    expect(consentMessage("write_file", { path: "/new.txt" }, "Q", { ...target, key: "/new.txt" }, [["fs_path", "/n.txt", "kind", "file"]])).toEqual({
      ok: true,
      message: "Q\n\nIt acts on: the fs_path `path` = \"/new.txt\".\nWhat is there now: nothing the guard could read (it may not exist yet).\n\nThe call: write_file\n{\n  \"path\": \"/new.txt\"\n}",
    });
    const numeric = consentMessage("delete_item", { item_id: 42 }, "Q", { entity: "item", keyArg: "item_id", key: 42 }, [["item", "42", "name", "lamp"]]);
    expect(numeric.ok && numeric.message.split("\n").slice(2, 5)).toEqual(["It acts on: the item `item_id` = 42.", "What is there now (what would be lost if it cannot be undone):", "  name: \"lamp\""]);
    const missing = consentMessage("delete_item", {}, "Q", { entity: "item", keyArg: "item_id", key: undefined });
    expect(missing.ok && missing.message.split("\n")[2]).toBe("It acts on: the item `item_id` = (missing).");
  });

  it("a tool without a key argument: every argument is to be read", () => {
    expect(consentMessage("create_entities", { entities: [] }, "Q", null)).toEqual({
      ok: true,
      message: "Q\n\nIt acts on: not one named thing (`create_entities` has no key argument); read every argument below.\n\nThe call: create_entities\n{\n  \"entities\": []\n}",
    });
  });

  it(`a call of up to ${MAX_SHOWN_CALL} characters (as indented JSON) is shown; a larger one is not, with why`, () => {
    const sized = (n: number) => ({ content: "x".repeat(n - JSON.stringify({ content: "" }, null, 2).length) });
    expect(JSON.stringify(sized(MAX_SHOWN_CALL), null, 2)).toHaveLength(MAX_SHOWN_CALL);
    expect(consentMessage("write_file", sized(MAX_SHOWN_CALL), "Q", null).ok).toBe(true);
    expect(consentMessage("write_file", sized(MAX_SHOWN_CALL + 1), "Q", null)).toEqual({ ok: false, why: `the call's arguments are ${MAX_SHOWN_CALL + 1} characters as JSON, more than the ${MAX_SHOWN_CALL} the user can be shown whole` });
  });
});

// The consent book (docs/guard.md, "Consent"): which user messages a check's policy may read as consent.
// In `question` mode (the default) it keeps the guard's open questions — a call's hash and how many user
// messages there were when the guard asked — and only messages after the question about this exact call
// answer it; an answer approves one execution. In `recent-messages` mode the conversation decides
// (./recent-consent.ts) and the book keeps nothing.
import type { ToolCall } from "../core/types.js";
import { fieldAt } from "../core/values.js";
import type { ConsentContext, ConsentDetector } from "../policies/consent.js";
import { sha256Hex } from "../util/sha256.js";
import { callKey, checkCallShape } from "./call.js";
import type { ConsentMode } from "./config.js";
import type { ContextData } from "./context.js";
import type { Engine } from "./engine.js";
import { consentNames, recentConsentMessages } from "./recent-consent.js";
import { MAX_QUESTIONS } from "./types.js";

/** The user messages a policy reads, and (recent-messages) what the latest one answers. */
export interface ConsentInput {
  messages: string[];
  context: ConsentContext | null;
}

const NO_MESSAGES: string[] = Object.freeze([]) as unknown as string[];
export const NO_CONSENT_INPUT: ConsentInput = Object.freeze({ messages: NO_MESSAGES, context: null });

/** A judged call's shape and consent hash, worked out only when consent asks for them. */
export class LazyCall {
  private shaped: ToolCall | null | undefined = undefined;
  private hashed: string | null = null;
  constructor(private readonly call: unknown) {}

  shape(): ToolCall | null {
    if (this.shaped === undefined) {
      const c = checkCallShape(this.call);
      this.shaped = c.ok ? c.call : null;
    }
    return this.shaped;
  }

  /** SHA-256 of the call's canonical JSON: what a consent question is bound to. */
  hash(): string {
    return (this.hashed ??= sha256Hex(callKey(this.shape()!)));
  }
}

export class ConsentBook {
  /** Open questions (question mode): call hash → how many user messages there were when the guard
   * asked, oldest first. Only messages after that answer it. */
  private readonly questions = new Map<string, number>();

  constructor(
    readonly mode: ConsentMode,
    private readonly detector: ConsentDetector,
    /** For the words that name a call (its key argument) in `recent-messages` mode. */
    private readonly engine: Engine,
  ) {}

  /** The user messages the policy may read as consent for `call`. */
  messages(ctx: ContextData, call: LazyCall): ConsentInput {
    if (this.mode === "question") {
      if (this.questions.size === 0 || call.shape() === null) return NO_CONSENT_INPUT;
      const asked = this.questions.get(call.hash());
      if (asked === undefined) return NO_CONSENT_INPUT;
      const out: string[] = [];
      for (let i = 0; i < ctx.users.length; i++) if (ctx.userIndex[i] >= asked) out.push(ctx.users[i]);
      return { messages: out, context: null };
    }
    // recent-messages: the answer to the latest question decides (./recent-consent.ts).
    const shaped = call.shape();
    if (shaped === null) return NO_CONSENT_INPUT;
    const conversation = ctx.conversation ?? ctx.users.map((content) => ({ role: "user", content }));
    return recentConsentMessages(conversation, this.names(shaped), this.detector);
  }

  /** The guard asked about the call with this hash when there were `asked` user messages: a later
   * question about it replaces the earlier one; past MAX_QUESTIONS the oldest is forgotten. */
  ask(hash: string, asked: number): void {
    this.questions.delete(hash);
    this.questions.set(hash, asked);
    if (this.questions.size > MAX_QUESTIONS) this.questions.delete(this.questions.keys().next().value as string);
  }

  /** The question was answered with a yes: it approves one execution, then it is closed. */
  answered(hash: string): void {
    this.questions.delete(hash);
  }

  /** The open questions, oldest first (a snapshot's `questions`). */
  list(): { hash: string; asked: number }[] {
    const out: { hash: string; asked: number }[] = [];
    for (const [hash, asked] of this.questions) out.push({ hash, asked });
    return out;
  }

  /** A fresh book takes over a snapshot's questions (checked: readSnapshot), in their order. */
  restore(questions: readonly { hash: string; asked: number }[]): void {
    for (const q of questions) this.questions.set(q.hash, q.asked);
  }

  private names(call: ToolCall): string[] {
    const info = this.engine.verifier.tool(call.name);
    return consentNames(call.name, call.arguments, info.keyArg === null ? null : (fieldAt(call.arguments, info.keyArg) as string | number | null));
  }
}

// The paper's optional model-backed components, as interfaces that take the user's own model client:
// a three-way request classifier and an intent parser. Nothing here calls a model by itself. Their
// answers are recorded in each decision so an audit replay never needs the model again.
import type { ToolCall } from "../core/types.js";

export type RequestClass = "JustAnswer" | "ReadOnly" | "Mutating";
export const REQUEST_CLASSES: readonly RequestClass[] = ["JustAnswer", "ReadOnly", "Mutating"];

export interface ModelInput {
  userMessages: readonly string[];
  call: ToolCall;
}

/** Routes the user's latest request. The guard searches every mutating call anyway; a mutating call
 * made while the request is classified JustAnswer/ReadOnly is inadmissible (`unrequested_mutation`). */
export interface RequestClassifier {
  readonly id: string;
  classify(input: ModelInput): RequestClass | Promise<RequestClass>;
}

/** One slot assertion of a candidate target state; `value: undefined` is not allowed (JSON only). */
export interface SlotAssertion {
  entity: string;
  id: string;
  slot: string;
  value: unknown;
}

/** A state the user may want to reach: assertions laid over the current Layer B. */
export interface TargetState {
  label: string;
  assertions: SlotAssertion[];
}

/** Proposes candidate target states; the reverse search runs once per candidate and the gate admits the
 * call when at least one candidate is admissible. No candidate → the plain verdict decides. */
export interface IntentParser {
  readonly id: string;
  parse(input: ModelInput): TargetState[] | Promise<TargetState[]>;
}

/** A model client: prompt in, text out (any provider; the caller owns keys, retries and timeouts). */
export type ModelClient = (prompt: string) => Promise<string>;

/** User text goes between tags; a closing tag inside it is defused so the text cannot end the block. */
function quote(tag: string, text: string): string {
  return `<${tag}>\n${text.replaceAll(`</${tag}>`, `<\\/${tag}>`)}\n</${tag}>`;
}

export function classifierPrompt(input: ModelInput): string {
  const latest = input.userMessages.length > 0 ? input.userMessages[input.userMessages.length - 1] : "";
  return [
    "Classify the user's most recent request into exactly one route:",
    "JustAnswer (a question answered from knowledge), ReadOnly (needs to look data up, changes nothing),",
    "Mutating (asks to change, create, cancel or send something).",
    "Reply with the single word JustAnswer, ReadOnly or Mutating.",
    quote("user_message", latest),
  ].join("\n");
}

export function intentPrompt(input: ModelInput): string {
  return [
    "Translate the user's request into the candidate target states they want to reach.",
    "Reply with JSON only: an array of {\"label\": string, \"assertions\": [{\"entity\": string, \"id\": string,",
    "\"slot\": string, \"value\": any JSON}]}. Use an empty array when unsure.",
    quote("user_messages", input.userMessages.join("\n---\n")),
    quote("tool_call", JSON.stringify({ name: input.call.name, arguments: input.call.arguments })),
  ].join("\n");
}

export class ModelReplyError extends Error {
  readonly code = "model-reply";
  constructor(message: string) {
    super(message);
    this.name = "ModelReplyError";
  }
}

/** Strict: the reply must be one of the three words (surrounding spaces and a final period allowed). */
export function parseRequestClass(reply: string): RequestClass {
  const word = String(reply).trim().replace(/\.$/u, "");
  const found = REQUEST_CLASSES.find((c) => c === word);
  if (found === undefined) throw new ModelReplyError(`the classifier replied \`${word.slice(0, 40)}\`, not JustAnswer, ReadOnly or Mutating`);
  return found;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Strict: a JSON array of target states; anything else is an error (the guard then fails closed). */
export function parseTargetStates(reply: string): TargetState[] {
  let json: unknown;
  try {
    json = JSON.parse(String(reply).trim().replace(/^```(?:json)?\s*|\s*```$/gu, ""));
  } catch {
    throw new ModelReplyError("the intent parser's reply is not JSON");
  }
  if (!Array.isArray(json)) throw new ModelReplyError("the intent parser's reply is not a JSON array");
  return json.map((t, i) => {
    if (!isRecord(t) || !Array.isArray(t.assertions)) throw new ModelReplyError(`target ${i} has no \`assertions\` array`);
    const assertions = t.assertions.map((a, k) => {
      if (!isRecord(a) || typeof a.entity !== "string" || typeof a.id !== "string" || typeof a.slot !== "string" || !("value" in a)) {
        throw new ModelReplyError(`target ${i}, assertion ${k} needs string \`entity\`, \`id\`, \`slot\` and a \`value\``);
      }
      return { entity: a.entity, id: a.id, slot: a.slot, value: a.value };
    });
    return { label: typeof t.label === "string" ? t.label : `target ${i}`, assertions };
  });
}

/** A RequestClassifier over the caller's model client, with the paper's prompt and a strict parser. */
export function createModelClassifier(client: ModelClient, id = "model-classifier"): RequestClassifier {
  return { id, classify: async (input) => parseRequestClass(await client(classifierPrompt(input))) };
}

/** An IntentParser over the caller's model client, with the paper's prompt and a strict parser. */
export function createModelIntentParser(client: ModelClient, id = "model-intent-parser"): IntentParser {
  return { id, parse: async (input) => parseTargetStates(await client(intentPrompt(input))) };
}

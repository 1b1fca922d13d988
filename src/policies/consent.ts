// The default consent detector of the Escalate policy: a precise pattern match over the last three user
// messages, English and Korean. It is tuned for precision, not recall: a false "yes" lets an
// irreversible call run, a false "no" only asks the user once more. So any negation, hedge or
// condition in the deciding message vetoes, affirmatives inside a question do not count, and short
// Korean tokens (네, 예) must stand alone (예 is also the first syllable of 예약, "reservation").
// docs/guard.md, "Consent detector", lists the tokens and the rules.
import { pattern, type Pattern } from "./pattern.js";

/** What a detector says about a conversation; `evidence` names the token or rule that decided. */
export interface ConsentResult {
  consent: boolean;
  /** Index into the messages given (0 = oldest) of the message that decided, -1 when none did. */
  message: number;
  evidence: string | null;
}

/** What the latest message answers, when the guard knows it (`recent-messages` mode): the assistant's
 * question and the words that name the call (src/guard/recent-consent.ts, consentNames). Recorded with
 * the decision (`consentContext`), so an audit re-derives the same answer. */
export interface ConsentContext {
  question: string;
  names: readonly string[];
}

/** A consent detector: pure and deterministic, so an audit log can re-derive its answer. `id` is
 * recorded in every decision and part of the config hash. `context`, when given, is about the latest
 * message; a detector may ignore it (this default one does; the scoped detector of the τ²-bench replay,
 * ./consent-scoped.ts, reads it). */
export interface ConsentDetector {
  readonly id: string;
  detect(messages: readonly string[], context?: ConsentContext | null): ConsentResult;
}

/** How many of the latest user messages the detector reads (the paper's "last three user turns"). */
export const CONSENT_WINDOW = 3;

// English. Word boundaries are letters and apostrophes, so `ok` does not match inside `okra` and
// `no` does not match inside `know` or `no-one's`.
export const EN_LEFT = "(?<![\\p{L}\\p{N}'])";
export const EN_RIGHT = "(?![\\p{L}\\p{N}'])";
export function enWords(words: readonly string[]): Pattern {
  return pattern(`${EN_LEFT}(?:${words.join("|")})${EN_RIGHT}`, "u");
}

// Table 15 of the paper, split by where a token is a reliable answer. Answer words (yes, ok, sure…) count
// only at the start of a sentence: "okay" opening a reply is an answer, "that's okay with me?" or
// "make sure" is not. Action phrases (go ahead, proceed…) count anywhere in a sentence that is not a
// question. `please` and `confirm` are mostly politeness and "verify" ("please confirm my booking"), so
// they count only as a whole reply or in the first person ("I confirm", "confirmed").
const EN_ANSWER = pattern(
  `^(?:(?:oh|well|um+|uh+|ah+),? )?(?:yes|yeah|yep|yup|yea|ya|sure|ok|okay|okey|k|alright|all right|absolutely|` +
    `definitely|certainly|of course|agreed|affirmative|fine)${EN_RIGHT}`,
  "u",
);
const EN_ACTION = enWords([
  "go ahead", "proceed", "do it", "do that", "do so", "sounds good", "agreed", "i agree", "approve", "approved",
  "i approve", "confirmed", "i confirm", "go for it", "that's fine", "that is fine", "fine by me",
  "ok with me", "okay with me", "that works", "let's do it", "you have my permission", "please do",
]);
export const EN_WHOLE = /^(?:please|confirm|y|yes please|please confirm|confirm it|do it)[.!]*$/u;
/** Idioms that carry a negation word but mean yes; removed before the negation scan. */
const EN_AFFIRMATIVE_IDIOMS = enWords(["no problem", "no worries", "not a problem"]);

// Table 15's negation veto, plus bare no/nope/nah, every n't contraction, and stop words.
const EN_NEGATION = pattern(
  `${EN_LEFT}(?:not|no|nope|nah|never|cannot|can't|don't|won't|no way|hold on|hold off|stop|wait|abort|` +
    `refuse|decline|reject|deny|disagree|nevermind|never mind|rather not)${EN_RIGHT}|n't${EN_RIGHT}|` +
    `${EN_LEFT}(?:cant|dont|wont|didnt|doesnt|isnt|shouldnt|wouldnt|couldnt)${EN_RIGHT}`,
  "u",
);
// Hedges make a message a "no" on their own ("hmm, maybe"); conditions only qualify an affirmative
// ("yes, but tell me the fee first"), so they veto a message that also says yes and are otherwise
// ignored ("my first name is Ann").
export const EN_HEDGE = enWords([
  "maybe", "perhaps", "probably", "possibly", "i guess", "i think", "i suppose", "unsure", "let me think",
  "hmm+", "not sure", "dunno", "kind of", "sort of",
]);
export const EN_CONDITION = enWords([
  "if", "unless", "but", "however", "only if", "as long as", "provided", "depends", "before", "first", "after",
]);

// Unclear answers: a message with any of these is not a yes, whatever else it says ("Yes!! (just
// kidding)"), and it decides (an earlier yes in the window does not count past it): ask again. Each
// class is what a "yes" can carry that makes it not consent to *this* call as asked.
export const EN_UNCLEAR: ReadonlyArray<readonly [string, Pattern]> = [
  // Deferral: later, elsewhen, or after someone else is asked.
  ["deferral", enWords([
    "later", "later on", "tomorrow", "tonight", "next (?:week|month|year|time|day|monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
    "some ?other time", "another time", "some ?time", "eventually", "in a (?:bit|sec|second|minute|moment|while|few|day|week)",
    "in (?:an|one|two|a couple of) (?:hours?|days?|weeks?|minutes?)", "one (?:sec|second|moment|minute)", "give me (?:a|one) (?:sec|second|minute|moment)",
    "hold", "holding", "postpone", "delay", "defer", "pause", "not yet", "until", "till", "once i", "when i",
    "let me (?:check|ask|see|talk|think|confirm|get back|call|discuss|look|sleep|run|consult|verify|double.check|speak|text|email)",
    "check with", "ask (?:my|the|her|him|them)", "talk to", "speak (?:to|with)", "run it by", "consult", "discuss",
    "get back to you", "think (?:about it|it over)", "sleep on it", "need to (?:check|ask|think|talk|confirm)",
  ])],
  // Partial consent: yes to part of it.
  ["partial", enWords([
    "except", "excepting", "excluding", "apart from", "aside from", "other than", "all but", "everything but",
    "only", "just the", "just one", "partly", "partially", "part of", "half", "some of",
  ])],
  // Consent to something else: keep things as they are, another item, another action.
  ["something else", enWords([
    "keep", "keeping", "(?<!long )as (?:it )?is", "leave (?:it|them|that|this|everything|things)", "unchanged", "the same", "stay",
    "instead", "rather", "other", "another", "different", "else", "wrong", "switch", "swap",
  ])],
  // Jokes and irony.
  ["joke", pattern(`${EN_LEFT}(?:kidding|kiddin|joking|joke|jk|j/k|lol|lmao|rofl|ha(?:ha)+|he(?:he)+|yeah right|sarcasm|sarcastic|not serious)${EN_RIGHT}|/s(?![\\p{L}\\p{N}])|[😂🤣😜🙃😆]`, "u")],
];
/** A clause that asks: wh-words or an auxiliary first (at the start of a sentence or after a comma or
 * dash, after an optional "yes,"), not "do it" or "will do", which are answers. */
export const EN_QUESTION_START = pattern(
  `(?:^|[,;:\u2013\u2014-])\\s*(?:(?:yes|yeah|yep|ok|okay|sure|alright|well|so|and|but|oh|um+|uh+)[\\s,.!;:\u2013\u2014-]+){0,3}` +
    `(?:what|what's|whats|how|why|when|where|which|who|whom|whose|can(?! do${EN_RIGHT})|could|would|will(?! do${EN_RIGHT})|` +
    `is|are|am|was|were|does|did|do(?! (?:it|that|so|this)${EN_RIGHT})|should|shall|may|might)${EN_RIGHT}`,
  "u",
);

// Korean. Syllables attach particles and endings without spaces, so most rules match stems; the
// one-syllable answers must stand alone: preceded by start, space or punctuation and followed by end,
// space, punctuation or a polite ending.
const KO_LEFT = "(?<![\\p{Script=Hangul}\\p{L}])";
const KO_ANSWER_END = "(?:요|네|예)?(?![\\p{Script=Hangul}\\p{L}])";
export const KO_AFFIRMATIVE = pattern(
  [
    // 네, 예, 넵, 넹, 응, 어, 그래(요), 좋아(요), 알겠어(요)/알겠습니다, 맞아(요)/맞습니다 as answers.
    `${KO_LEFT}(?:네|예|넵|넹|응|그래|좋아|알겠어|맞아)${KO_ANSWER_END}`,
    `${KO_LEFT}(?:좋습니다|알겠습니다|맞습니다|그렇습니다|물론이죠|물론입니다|당연하죠)`,
    // 진행 (proceed), 승인 (approve), 동의 (agree), 허락 (permit) as verbs of the speaker or requests.
    "(?:진행|승인|동의|허락)(?:해|하세요|합니다|할게|하겠습니다|해요|해주세요|해 주세요|해줘|해 줘|부탁|하셔도|해도|시켜)",
    "^(?:네,? ?)?(?:진행|승인|동의|허락|확인)[.!~]*$",
    // 확인 is also "check": only "확인합니다/확인했습니다" (I confirm) or a bare "확인." answer (above).
    "확인(?:합니다|했습니다|했어요|할게요)",
    // 그렇게 해 주세요 ("please do so"); a bare 해 주세요 / 부탁합니다 reply. A request with an object
    // (확인해 주세요, "please check") is not consent to something else.
    "그렇게 ?(?:해|하세요|해요|하죠|합시다)",
    "^(?:그럼 )?(?:해 ?주세요|해 ?줘|부탁(?:해요|합니다|드립니다|드려요|해))[.!~]*$",
  ].join("|"),
  "u",
);
// Negations designed for this detector (the paper's Korean rule had none): 안 as a word (안 돼, 안 해;
// not 안녕 or 안내), 않, 못, 아니/아뇨/아냐/아닙, 싫, 말아/마세요/말고/하지 마, 취소 (cancel that), 잠깐/잠시만
// (wait), 멈춰/멈추/중지/그만 (stop), 보류 (hold), 거절/거부 (refuse), 반대 (oppose), 없던 일로 (never mind).
// 취소 is also the action asked for: as a request (취소해 주세요, 취소해 줘, 취소 부탁, 취소하세요, 취소해도
// 돼요) it is the verb of "yes, please cancel", as "cancel" is in English, not a negation; any other
// 취소 (취소, 취소할게요, 취소하지 마세요) still vetoes.
export const KO_NEGATION = pattern(
  [
    `${KO_LEFT}안(?=\\s|돼|되|해|할|함|하|$)`,
    "않", "못", "아니", "아뇨", "아냐", "아닙", "아닌", "싫", "말아", "말고", "마세요", "마요", "하지 ?마",
    "취소(?!(?:를 |을 | )?(?:해 ?주세요|해 ?주십시오|해 ?주시기|해 ?줘|해 ?주라|부탁|하세요|해도 (?:돼|됩|좋)|진행))", "잠깐", "잠시만", "멈춰", "멈추", "중지", "그만", "보류", "거절", "거부", "반대", "없던 일로",
  ].join("|"),
  "u",
);
export const KO_HEDGE = /아마|글쎄|모르겠|고민|생각해 ?볼|생각 ?좀/u;
export const KO_CONDITION = /만약|혹시|일단|나중에|그런데|근데|하지만|다만|먼저|전에|면요?(?=[\s.,!?]|$)/u;
export const KO_UNCLEAR: ReadonlyArray<readonly [string, Pattern]> = [
  // Later, tomorrow, next time, after asking someone (물어보고, 상의), after checking (확인해 보고).
  ["deferral", /나중|이따|다음에|다음 ?주|내일|모레|좀 ?있다|있다가|기다려|기다리|미뤄|미루|연기|물어보|물어 ?볼|상의|의논|얘기해 ?보|이야기해 ?보|확인해 ?보|알아보|연락 ?드릴|다시 연락|생각 ?중/u],
  // Partial: except (빼고, 제외), only (-만 after a noun), part (일부, 부분, 절반).
  ["partial", pattern("빼고|제외|일부|부분|절반|(?<=\\p{Script=Hangul})만(?=[\\s.,!?~]|$| ?(?:해|진행|취소|변경))", "u")],
  // Something else: as is (그대로), keep (유지), other (다른, 딴), instead (대신), leave it (그냥 두, 놔두).
  ["something else", /그대로|유지|다른|딴 |대신|그냥 ?두|놔두|냅두|내버려|바꾸지|변경하지/u],
  // ㅋㅋ / ㅎㅎ (laughter) in both jamo forms: NFKC turns the compatibility jamo into conjoining ones.
  ["joke", /농담|장난|뻥|[\u314b\u110f]{2,}|[\u314e\u1112]{2,}/u],
  // Question words: what, how much, how, why, when, where, which, how many.
  ["question", /뭐|무엇|무슨|얼마|어떻게|어떤|왜|언제|어디|어느|몇/u],
];

/** Korean interrogative endings at the end of a sentence: 까(요), 나요, 습니까, 는지, 가요. */
const KO_QUESTION_END = /(?:까요?|나요|습니까|ㅂ니까|는지요?|가요|죠)\s*$/u;

const SENTENCE_SPLIT = /(?<=[.!?。！？\n])/u;

/** Control and format characters. Built on first use: a regular expression literal with a Unicode
 * property class is validated (its class built) when the module is compiled, ~0.4 ms of every cold
 * import, even for a guard that never reads consent. */
let CONTROL: RegExp | null = null;

/** Apostrophe look-alikes straightened, then NFKC, lower case, control characters dropped, spaces
 * collapsed. Straightening comes first: NFKC turns some look-alikes (´ U+00B4) into a space and a
 * combining accent, which would split "don´t" and hide the negation. */
export function normalizeUtterance(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201b\u2032\u02b9\u02bc`´]/gu, "'")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b\u2032\u02b9\u02bc`´]/gu, "'")
    .replace((CONTROL ??= new RegExp("[\\p{Cc}\\p{Cf}]", "gu")), (c) => (c === "\n" ? "\n" : " "))
    .replace(/[^\S\n]+/gu, " ")
    .trim();
}

/** Per message: `yes` (consent), `no` (negation, hedge or condition), or `none` (says nothing either
 * way, e.g. "my id is ABC123"); the token that decided. */
export type MessageConsent = { kind: "yes" | "no" | "none"; evidence: string | null };

export function firstMatch(re: Pattern, text: string): string | null {
  const m = re.exec(text);
  return m ? m[0].trim() : null;
}

export function isQuestion(sentence: string): boolean {
  const s = sentence.trim();
  return s.endsWith("?") || s.endsWith("？") || KO_QUESTION_END.test(s.replace(/[.!~]+$/u, ""));
}

function affirmative(sentence: string): string | null {
  if (EN_WHOLE.test(sentence)) return sentence.replace(/[.!]+$/u, "");
  return firstMatch(EN_ANSWER, sentence) ?? firstMatch(EN_ACTION, sentence) ?? firstMatch(KO_AFFIRMATIVE, sentence) ??
    firstMatch(EN_AFFIRMATIVE_IDIOMS, sentence) ?? (sentence.startsWith("👍") ? "👍" : null);
}

/** Classifies one user message. */
export function classifyMessage(raw: string): MessageConsent {
  const text = normalizeUtterance(raw);
  if (text === "") return { kind: "none", evidence: null };
  const scan = text.replace(new RegExp(EN_AFFIRMATIVE_IDIOMS.source, "gu"), " ");
  const negation = firstMatch(EN_NEGATION, scan) ?? firstMatch(KO_NEGATION, scan);
  if (negation !== null) return { kind: "no", evidence: negation };
  const hedge = firstMatch(EN_HEDGE, text) ?? firstMatch(KO_HEDGE, text);
  if (hedge !== null) return { kind: "no", evidence: hedge };
  for (const [kind, re] of [...EN_UNCLEAR, ...KO_UNCLEAR]) {
    const token = firstMatch(re, text);
    if (token !== null) return { kind: "no", evidence: `${kind}: ${token}` };
  }
  const sentences = text.split(SENTENCE_SPLIT).map((p) => p.trim()).filter((p) => p !== "");
  // Any question makes the message unclear: the user is still asking, not answering.
  const asked = sentences.find((p) => isQuestion(p) || EN_QUESTION_START.test(p));
  if (asked !== undefined) return { kind: "no", evidence: affirmative(asked) === null ? "question" : "?" };
  for (const sentence of sentences) {
    const token = affirmative(sentence);
    if (token === null) continue;
    const condition = firstMatch(EN_CONDITION, text) ?? firstMatch(KO_CONDITION, text);
    if (condition !== null) return { kind: "no", evidence: condition };
    return { kind: "yes", evidence: token };
  }
  return { kind: "none", evidence: null };
}

/**
 * The default detector: reads at most the last CONSENT_WINDOW messages, most recent first; the first
 * message that says anything (yes or no) decides. Nothing said → no consent.
 */
export function detectConsent(messages: readonly string[]): ConsentResult {
  const start = Math.max(0, messages.length - CONSENT_WINDOW);
  for (let i = messages.length - 1; i >= start; i--) {
    const m = messages[i];
    if (typeof m !== "string") continue;
    const c = classifyMessage(m);
    if (c.kind === "yes") return { consent: true, message: i, evidence: c.evidence };
    if (c.kind === "no") return { consent: false, message: i, evidence: c.evidence };
  }
  return { consent: false, message: -1, evidence: null };
}

/** @2: deferrals, partial consent, consent to something else, jokes and questions read as unclear;
 * 취소 as the requested action is not a negation. */
export const DEFAULT_CONSENT_DETECTOR_ID = "polar-regex-en-ko@3";

export const defaultConsentDetector: ConsentDetector = Object.freeze({
  id: DEFAULT_CONSENT_DETECTOR_ID,
  detect: detectConsent,
});

// The default consent detector of the Escalate policy: a precise pattern match over the last three user
// messages, English and Korean. It is tuned for precision, not recall: a false "yes" lets an
// irreversible call run, a false "no" only asks the user once more. So any negation, hedge or
// condition in the deciding message vetoes, affirmatives inside a question do not count, and short
// Korean tokens (네, 예) must stand alone (예 is also the first syllable of 예약, "reservation").
// docs/guard.md, "Consent detector", lists the tokens and the rules.

/** What a detector says about a conversation; `evidence` names the token or rule that decided. */
export interface ConsentResult {
  consent: boolean;
  /** Index into the messages given (0 = oldest) of the message that decided, -1 when none did. */
  message: number;
  evidence: string | null;
}

/** A consent detector: pure and deterministic, so an audit log can re-derive its answer. `id` is
 * recorded in every decision and part of the config hash. */
export interface ConsentDetector {
  readonly id: string;
  detect(messages: readonly string[]): ConsentResult;
}

/** How many of the latest user messages the detector reads (the paper's "last three user turns"). */
export const CONSENT_WINDOW = 3;

// English. Word boundaries are letters and apostrophes, so `ok` does not match inside `okra` and
// `no` does not match inside `know` or `no-one's`.
const EN_LEFT = "(?<![\\p{L}\\p{N}'])";
const EN_RIGHT = "(?![\\p{L}\\p{N}'])";
function enWords(words: readonly string[]): RegExp {
  return new RegExp(`${EN_LEFT}(?:${words.join("|")})${EN_RIGHT}`, "u");
}

// Table 15 of the paper, split by where a token is a reliable answer. Answer words (yes, ok, sure…) count
// only at the start of a sentence: "okay" opening a reply is an answer, "that's okay with me?" or
// "make sure" is not. Action phrases (go ahead, proceed…) count anywhere in a sentence that is not a
// question. `please` and `confirm` are mostly politeness and "verify" ("please confirm my booking"), so
// they count only as a whole reply or in the first person ("I confirm", "confirmed").
const EN_ANSWER = new RegExp(
  `^(?:(?:oh|well|um+|uh+|ah+),? )?(?:yes|yeah|yep|yup|yea|ya|sure|ok|okay|okey|k|alright|all right|absolutely|` +
    `definitely|certainly|of course|agreed|affirmative|fine)${EN_RIGHT}`,
  "u",
);
const EN_ACTION = enWords([
  "go ahead", "proceed", "do it", "do that", "do so", "sounds good", "agreed", "i agree", "approve", "approved",
  "i approve", "confirmed", "i confirm", "go for it", "that's fine", "that is fine", "fine by me",
  "ok with me", "okay with me", "that works", "let's do it", "you have my permission", "please do",
]);
const EN_WHOLE = /^(?:please|confirm|y|yes please|please confirm|confirm it|do it)[.!]*$/u;
/** Idioms that carry a negation word but mean yes; removed before the negation scan. */
const EN_AFFIRMATIVE_IDIOMS = enWords(["no problem", "no worries", "not a problem"]);

// Table 15's negation veto, plus bare no/nope/nah, every n't contraction, and stop words.
const EN_NEGATION = new RegExp(
  `${EN_LEFT}(?:not|no|nope|nah|never|cannot|can't|don't|won't|no way|hold on|hold off|stop|wait|abort|` +
    `refuse|decline|reject|deny|disagree|nevermind|never mind|rather not)${EN_RIGHT}|n't${EN_RIGHT}|` +
    `${EN_LEFT}(?:cant|dont|wont|didnt|doesnt|isnt|shouldnt|wouldnt|couldnt)${EN_RIGHT}`,
  "u",
);
// Hedges make a message a "no" on their own ("hmm, maybe"); conditions only qualify an affirmative
// ("yes, but tell me the fee first"), so they veto a message that also says yes and are otherwise
// ignored ("my first name is Ann").
const EN_HEDGE = enWords([
  "maybe", "perhaps", "probably", "possibly", "i guess", "i think", "i suppose", "unsure", "let me think",
  "hmm+", "not sure", "dunno", "kind of", "sort of",
]);
const EN_CONDITION = enWords([
  "if", "unless", "but", "however", "only if", "as long as", "provided", "depends", "before", "first", "after",
]);

// Korean. Syllables attach particles and endings without spaces, so most rules match stems; the
// one-syllable answers must stand alone: preceded by start, space or punctuation and followed by end,
// space, punctuation or a polite ending.
const KO_LEFT = "(?<![\\p{Script=Hangul}\\p{L}])";
const KO_ANSWER_END = "(?:요|네|예)?(?![\\p{Script=Hangul}\\p{L}])";
const KO_AFFIRMATIVE = new RegExp(
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
// 취소 also means "cancel" as a request (예약 취소해 주세요); treating it as a veto costs recall in
// cancellation flows but never precision, which is the trade this detector makes.
const KO_NEGATION = new RegExp(
  [
    `${KO_LEFT}안(?=\\s|돼|되|해|할|함|하|$)`,
    "않", "못", "아니", "아뇨", "아냐", "아닙", "아닌", "싫", "말아", "말고", "마세요", "마요", "하지 ?마",
    "취소", "잠깐", "잠시만", "멈춰", "멈추", "중지", "그만", "보류", "거절", "거부", "반대", "없던 일로",
  ].join("|"),
  "u",
);
const KO_HEDGE = /아마|글쎄|모르겠|고민|생각해 ?볼|생각 ?좀/u;
const KO_CONDITION = /만약|혹시|일단|나중에|그런데|근데|하지만|다만|먼저|전에|면요?(?=[\s.,!?]|$)/u;
/** Korean interrogative endings at the end of a sentence: 까(요), 나요, 습니까, 는지, 가요. */
const KO_QUESTION_END = /(?:까요?|나요|습니까|ㅂ니까|는지요?|가요|죠)\s*$/u;

const SENTENCE_SPLIT = /(?<=[.!?。！？\n])/u;

/** NFKC, lower case, curly apostrophes straightened, control characters dropped, spaces collapsed. */
export function normalizeUtterance(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`´]/gu, "'")
    .replace(/[\p{Cc}\p{Cf}]/gu, (c) => (c === "\n" ? "\n" : " "))
    .replace(/[^\S\n]+/gu, " ")
    .trim();
}

/** Per message: `yes` (consent), `no` (negation, hedge or condition), or `none` (says nothing either
 * way, e.g. "my id is ABC123"); the token that decided. */
export type MessageConsent = { kind: "yes" | "no" | "none"; evidence: string | null };

function firstMatch(re: RegExp, text: string): string | null {
  const m = re.exec(text);
  return m ? m[0].trim() : null;
}

function isQuestion(sentence: string): boolean {
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
  let questionOnly = false;
  for (const part of text.split(SENTENCE_SPLIT)) {
    const sentence = part.trim();
    const token = affirmative(sentence);
    if (token === null) continue;
    if (isQuestion(sentence)) {
      questionOnly = true;
      continue;
    }
    const condition = firstMatch(EN_CONDITION, text) ?? firstMatch(KO_CONDITION, text);
    if (condition !== null) return { kind: "no", evidence: condition };
    return { kind: "yes", evidence: token };
  }
  // An affirmative asked back as a question ("is that ok?") decides the message as not-consent.
  return questionOnly ? { kind: "no", evidence: "?" } : { kind: "none", evidence: null };
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

export const DEFAULT_CONSENT_DETECTOR_ID = "polar-regex-en-ko@1";

export const defaultConsentDetector: ConsentDetector = Object.freeze({
  id: DEFAULT_CONSENT_DETECTOR_ID,
  detect: detectConsent,
});

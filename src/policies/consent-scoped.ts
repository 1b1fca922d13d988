// The scoped consent detector (`polar-regex-en-ko-fr@5`), the one the τ²-bench replay and `polar eval
// tau2` read consent with (`recent-messages` mode; docs/guard.md, "The scoped consent detector"). It keeps
// the default detector's rules (./consent.ts) for the sentence that answers and what precedes it, and adds
// scope, requests as answers, French, and the context of the question answered. It lives apart from the
// default detector so the runtime bundles do not carry it; the default guard's own-question
// mode reads short answers to its own question, where the default detector suffices.
//
// The default consent detector of the Escalate policy: a precise pattern match over the last three user
// messages, English, Korean and French. It is tuned for precision, not recall: a false "yes" lets an
// irreversible call run, a false "no" only asks the user once more. So any negation, hedge or
// condition in the sentence that answers, or before it, vetoes; affirmatives inside a question do not
// count, and short Korean tokens (네, 예) must stand alone (예 is also the first syllable of 예약).
// After the answering sentence, only what takes the answer back vetoes (a bare or action-verb negation,
// a joke, a question that is not a follow-up, a deferral, a condition opening the sentence): "Yes, please
// go ahead. I'm not happy about it, but thanks." is a yes; "Yes, go ahead. Actually, don't." is not.
// docs/guard.md, "Consent detector", lists the tokens and the rules.
import { pattern, type Pattern } from "./pattern.js";
import {
  CONSENT_WINDOW, EN_CONDITION, EN_HEDGE, EN_LEFT, EN_QUESTION_START, EN_RIGHT, EN_UNCLEAR as DEFAULT_EN_UNCLEAR, EN_WHOLE,
  enWords, firstMatch, isQuestion, KO_AFFIRMATIVE, KO_CONDITION, KO_HEDGE, KO_NEGATION, KO_UNCLEAR,
  normalizeUtterance, type ConsentContext, type ConsentDetector, type ConsentResult, type MessageConsent,
} from "./consent.js";

// Table 15 of the paper, split by where a token is a reliable answer. Answer words (yes, ok, sure…) count
// only at the start of a sentence: "okay" opening a reply is an answer, "that's okay with me?" or
// "make sure" is not. Action phrases (go ahead, proceed…) count anywhere in a sentence that is not a
// question. `please` and `confirm` are mostly politeness and "verify" ("please confirm my booking"), so
// they count only as a whole reply or in the first person ("I confirm", "confirmed").
const EN_ANSWER = pattern(
  `^(?:(?:oh|well|um+|uh+|ah+|and|but|so),? )?(?:yes|yeah|yep|yup|yea|ya|sure|ok|okay|okey|k|alright|all right|absolutely|` +
    `definitely|certainly|of course|agreed|affirmative|fine|perfect|great|that's perfect|that's fine)${EN_RIGHT}`,
  "u",
);
const EN_ACTION = enWords([
  "go ahead", "proceed", "do it", "do that", "do so", "sounds good", "agreed", "i agree", "approve", "approved",
  "i approve", "confirmed", "i confirm", "go for it", "that's fine", "that is fine", "fine by me",
  "ok with me", "okay with me", "that works", "let's do it", "you have my permission", "please do",
  "i authorize", "authorized", "you have my (?:authorization|approval|consent)", "let's go ahead", "let's proceed", "let's go with",
]);
/** A request to do it, as the answer: "please cancel it", "just upgrade it", "yes, please add 2 GB" (a
 * sentence opening with please/just and an action verb; `please confirm` is "verify" and not here). */
const EN_IMPERATIVE = pattern(
  `^(?:(?:yes|yeah|yep|ok|okay|alright|all right|so|then|and|great|perfect|sure)[\\s,.!]+)?(?:please,? (?:just )?|just (?:please )?)(?:go ahead and )?` +
    `(?:cancel|change|update|book|add|remove|modify|process|switch|swap|exchange|return|refund|charge|apply|issue|send|upgrade|` +
    `downgrade|make|use|submit|place|complete|finalize|credit|refuel|resume|enable|disable|suspend|reactivate|restore|try|start|` +
    `initiate|move|reschedule|rebook|transfer|pay|replace|proceed|continue|do)${EN_RIGHT}`,
  "u",
);
/** Idioms that carry a negation word but mean yes; removed before the negation scan. */
const EN_AFFIRMATIVE_IDIOMS = enWords(["no problem", "no worries", "not a problem", "pas de probl[eè]me", "pas de soucis?", "sans probl[eè]me"]);
/** Negations that state a detail, not a refusal: "no other changes", "nothing else", "no insurance", a reason
 * "no longer needed", "I'm not happy about it", "I don't have any other choice"; removed before the scans. */
const NEUTRAL_NEGATIONS = enWords([
  "no (?:other|extra|additional|further|more) (?:[\\p{L}-]+ )?(?:changes?|charges?|fees?|items?|questions?|bags?|baggages?|passengers?|modifications?|costs?|issues?)(?: (?:needed|required|necessary))?",
  "nothing else", "no longer needed", "no (?:travel )?insurance", "no (?:checked )?(?:bags?|baggages?|luggage)", "not happy", "not thrilled",
  "no other (?:choice|option)", "if (?:at all )?possible", "(?:don't|do not|dont) have (?:any|much of an?) (?:other )?(?:choice|option)s?", "(?:c'est |ce n'est )?pas grave",
]);
/** Quoted text of two words or more is a mention, not a statement ("reason: “no longer needed”"). */
const QUOTED = /“[^”\n]{1,160}”|"[^"\n]{1,160}"|«[^»\n]{1,160}»/gu;

// Table 15's negation veto, plus bare no/nope/nah, every n't contraction, and stop words.
const EN_NEGATION = pattern(
  `${EN_LEFT}(?:not|no|nope|nah|never|cannot|can't|don't|won't|no way|hold on|hold off|stop|wait|abort|` +
    `refuse|decline|reject|deny|disagree|nevermind|never mind|rather not|forget (?:it|that|about it)|skip (?:it|that)|scratch that|drop it)${EN_RIGHT}|n't${EN_RIGHT}|` +
    `${EN_LEFT}(?:cant|dont|wont|didnt|doesnt|isnt|shouldnt|wouldnt|couldnt)${EN_RIGHT}`,
  "u",
);

// Unclear answers (./consent.ts, EN_UNCLEAR): the default detector's classes, with its own "something
// else" ("keeping me updated" and "anything else?" are no other choice; "the same" is not another thing).
const SOMETHING_ELSE = enWords([
  "keep", "keeping(?! me (?:updated|posted|informed))", "(?<!long )as (?:it )?is", "leave (?:it|them|that|this|everything|things)", "unchanged", "stay",
  "instead", "rather", "other", "another", "different", "(?:something|someone|somebody|somewhere) else", "elsewhere", "wrong", "switch", "swap",
]);
const EN_UNCLEAR: ReadonlyArray<readonly [string, Pattern]> = DEFAULT_EN_UNCLEAR.map(([kind, re]) => (kind === "something else" ? [kind, SOMETHING_ELSE] : [kind, re]));

// French (seen in the runs: "Oui, please cancel…", "c'est pas grave"). Answers open a sentence; action
// phrases count anywhere; negations (non, pas, ne/n', jamais, attendez, arrêtez) veto.
const FR_ANSWER = pattern(
  `^(?:oui|ouais|d'accord|bien s[uû]r|parfait|entendu|volontiers|c'est bon|[cç]a marche|allez-y|allez y|vas-y|vas y|je confirme|confirm[ée])${EN_RIGHT}`,
  "u",
);
const FR_ACTION = enWords(["allez-y", "vas-y", "je confirme", "je vous autorise", "vous pouvez (?:y aller|proc[ée]der|continuer)", "proc[ée]dez", "continuez"]);
const FR_NEGATION = pattern(`${EN_LEFT}(?:non|pas|ne|jamais|attendez|attends|arr[êe]tez|arr[êe]te|annulez pas)${EN_RIGHT}|${EN_LEFT}n'(?=\\p{L})`, "u");

const SENTENCE_SPLIT = /(?<=[.!?。！？\n\u2014])/u;

function affirmative(sentence: string): string | null {
  if (EN_WHOLE.test(sentence)) return sentence.replace(/[.!]+$/u, "");
  return firstMatch(EN_ANSWER, sentence) ?? firstMatch(EN_ACTION, sentence) ?? firstMatch(EN_IMPERATIVE, sentence) ??
    firstMatch(FR_ANSWER, sentence) ?? firstMatch(FR_ACTION, sentence) ?? firstMatch(KO_AFFIRMATIVE, sentence) ??
    firstMatch(EN_AFFIRMATIVE_IDIOMS, sentence) ?? (sentence.startsWith("👍") ? "👍" : null);
}

let IDIOMS: RegExp | null = null;
function negationIn(raw: string): string | null {
  const text = raw.replace((IDIOMS ??= new RegExp(EN_AFFIRMATIVE_IDIOMS.source, "gu")), " ");
  return firstMatch(EN_NEGATION, text) ?? firstMatch(FR_NEGATION, text) ?? firstMatch(KO_NEGATION, text);
}

function unclearIn(text: string, scope: Scope | null = null): string | null {
  for (const [kind, re] of [...EN_UNCLEAR, ...KO_UNCLEAR]) {
    const all = new RegExp(re.source, "gu");
    let m: RegExpExecArray | null;
    while ((m = all.exec(text)) !== null) {
      const token = `${kind}: ${m[0].trim()}`;
      if (!echoes(token, scope, text.slice(m.index + m[0].length))) return token;
      if (m[0].length === 0) all.lastIndex++;
    }
  }
  return null;
}

/** The whole message with mentions and detail negations taken out (so they neither veto nor answer). */
function neutralized(text: string): string {
  return text
    .replace(QUOTED, (m) => (!/\s/u.test(m) ? m : /[.!?][”"»]$/u.test(m) ? " q. " : " q "))
    .replace(new RegExp(NEUTRAL_NEGATIONS.source, "gu"), " ")
    .replace(/[^\S\n]+/gu, " ");
}

// Concessions: a clause the user accepts either way is no condition and its negations are no veto.
// "Even if there is no refund, …" anywhere; an "if …," clause in a sentence that says it goes ahead
// "anyway" ("if that's really not possible, please cancel it anyway"). The clause ends at a comma or
// dash; what follows it is read as usual ("even if it's free, don't" is still a no).
const EVEN_IF = pattern(`${EN_LEFT}even if [^,;:.!?\u2013\u2014]*[,;:\u2013\u2014]?`, "u");
const EITHER_WAY = enWords(["anyway", "anyhow", "regardless", "either way", "all the same", "nonetheless", "nevertheless"]);
const IF_CLAUSE = pattern(`${EN_LEFT}if [^,;:.!?\u2013\u2014]*[,;:\u2013\u2014]`, "u");
let CONCESSIONS: [RegExp, RegExp] | null = null;
function conceded(sentence: string): string {
  const [evenIf, ifClause] = (CONCESSIONS ??= [new RegExp(EVEN_IF.source, "gu"), new RegExp(IF_CLAUSE.source, "gu")]);
  let s = sentence.replace(evenIf, " ");
  // "If …, … anyway" concedes only when what is left goes ahead ("…, please go ahead and cancel it anyway").
  if (EITHER_WAY.test(s)) {
    const left = s.replace(ifClause, " ");
    if (affirmative(left.replace(/^[^\p{L}\p{N}]+/u, "")) !== null) s = left;
  }
  return s.replace(/[^\S\n]+/gu, " ").trim();
}

const NEG_WORD_ACK = "(?:not|never|won't|wont|will not|can't|cannot|cant|don't|dont|do not|shouldn't|wouldn't|rather not|no longer)";
/** An acknowledgement of a consequence after the answer ("I understand if I won't receive a refund"):
 * its negations are about the consequence. Not when it also steers (a contrast, a request, a stop word). */
const ACKNOWLEDGES = pattern(`^(?:and |so )?(?:i (?:understand|realize|realise|accept|know|am aware|'m aware|get it)|understood)${EN_RIGHT}`, "u");
const STEERS = enWords([
  "but", "however", "though", "although", "yet", "so", "then", "let's", "let us", "please", "rather", "instead", "prefer",
  "wait", "stop", "hold", "hold on", "hold off", "cancel that", "don't (?:do|go|proceed|cancel|change|book|continue|want)", "do not",
  "not want", "abort", "refuse", "decline", "reject", "deny", "disagree", "no way", "rather not", "never ?mind", "forget", "skip", "scratch",
  "drop it", "call it off",
  `${NEG_WORD_ACK}\\s+(?:[\\p{L}']+\\s+){0,2}?(?:proceed|go|continue|do|want|need|like|agree|approve|confirm|accept|cancel|change|update|book|modify|exchange|return|switch|pay)`,
]);
/** An aside's "If not, …" may act on the aside, not undo the answer. */
const UNDOES = enWords([
  "cancel", "cancell?ing", "undo", "revert", "reverse", "roll ?back", "call off", "abort", "halt", "stop",
  "the (?:update|change|modification|cancellation|booking|reservation|exchange|return|refund|transfer|payment|order|address)",
]);

/** The negations an acknowledged consequence states (an auxiliary's: "I won't receive", "it can't be undone",
 * "there is no refund"); any other ("…, no thanks", "…, not now", "never") is still read. */
const STATED_NEGATION = enWords([
  "(?:won't|wont|can't|cant|cannot|isn't|aren't|wasn't|weren't|doesn't|didn't|wouldn't|couldn't|hasn't|haven't|hadn't)",
  "(?:will|is|are|was|were|does|did|would|could|may|might|has|have|had|can) not", "there (?:is|are|will be|would be)(?: no)? (?:no|not)", "no longer",
]);
let STATED_NEGATIONS: RegExp | null = null;

/** After a question on another topic, "If not, …" / "If so, …" answers that question. */
const ANSWERS_ASIDE = pattern(`^(?:if (?:not|so|yes|it (?:has|hasn't|is|isn't)(?: not)?)[,.]?)\s*`, "u");

// After the answering sentence. A sentence that opens a new topic ("Also, …", "Now, about…", "After
// that, …") is about something else; until one does, a sentence vetoes when it takes the answer back.
const TOPIC_SHIFT = pattern(
  `^(?:[\\p{L}']+[ ,]+){0,2}?(?:also|additionally|separately|btw|by the way|another thing|one more thing|now|after that|afterwards|` +
    `after (?:it's|it is|that's|that is|this is) (?:done|finished|complete)|once (?:it's|it is|that's|that is|this is|everything is) (?:done|finished|complete|processed|updated))${EN_RIGHT}`,
  "u",
);
/** A question about what comes after the answer, not about whether to do it. */
const FOLLOW_UP = enWords(["next", "too", "as well", "new total", "once (?:it|that|this|everything)(?:'s| is)? (?:done|updated|processed|finalized|complete)", "after (?:it|that|this)(?:'s| is)? (?:done|updated|processed)"]);
/** What takes an answer back: a sentence opening with a negation or stop word, or a negation of doing. */
const TAKE_BACK_OPEN = pattern(
  `^(?:(?:oh|well|and|but|so|um+|uh+)[\\s,]+)?(?:no|nope|nah|not|never|don't|do not|dont|wait|stop|hold on|hold off|actually|on second thought|` +
    `never ?mind|scratch that|forget (?:it|that)|cancel that|just kidding|non|attendez|attends)${EN_RIGHT}`,
  "u",
);
const NEG_WORD = "(?:not|no|never|cannot|can't|don't|won't|do not|dont|wont|shouldn't|wouldn't|rather not|prefer not to|n'|pas|ne)";
const TAKE_BACK_VERB = pattern(
  `${EN_LEFT}${NEG_WORD}\\s+(?:(?:[\\p{L}']+)\\s+){0,2}?(?:do|go|proceed|continue|cancel|change|update|book|add|remove|modify|process|switch|swap|exchange|` +
    `return|refund|charge|apply|issue|send|upgrade|downgrade|make|use|submit|confirm|approve|agree|want|need|like|move|transfer|pay|replace|it|that|this|them|yet)${EN_RIGHT}` +
    `|${EN_LEFT}${NEG_WORD}[.!]*$`,
  "u",
);
/** Withdrawals wherever they stand in a sentence after the answer ("I understand if you can't, never mind then"). */
const TAKE_BACK_ANYWHERE = enWords(["never ?mind", "forget (?:it|that|about it)", "skip (?:it|that)", "scratch that", "drop it", "call it off", "cancel that",
  // "Not now" is a deferral, not the topic shift "Now, …" it would otherwise read as.
  "not (?:right )?now", "not today", "not at the moment"]);
const CONDITION_OPEN = pattern(`^(?:if|unless|as long as|provided|only if|but|before|first|assuming|once i|except|only|just (?:the|one|a|for|half|part)|instead|rather)${EN_RIGHT}`, "u");
/** "before" anywhere after the answer asks for something first ("… before finalizing anything"). */
const BEFORE = enWords(["before", "beforehand"]);
/** Questions about money still hold the answer back after a change of topic. */
const MONEY_QUESTION = enWords(["cost", "costs", "price", "fee", "fees", "how much", "charge", "charged", "total", "refund amount"]);
/** Sentences that ask to be told something; never an answer, whatever action words they carry. */
const ASKS_TO_BE_TOLD = pattern(`^(?:please )?(?:let me know|tell me|keep me (?:updated|posted|informed))${EN_RIGHT}`, "u");
const INFO_REQUEST = pattern(`^(?:please )?(?:let me know|tell me|keep me|feel free|thank|thanks)${EN_RIGHT}`, "u");

/** A letter or digit; built on first use (./consent.ts, CONTROL). */
let WORDISH: RegExp | null = null;
function words(sentence: string): number {
  return sentence.split(/\s+/u).filter((w) => (WORDISH ??= new RegExp("[\\p{L}\\p{N}]", "u")).test(w)).length;
}

/** Why a sentence after the answer takes it back, or null. After a change of topic (`shifted`) only a
 * joke, a negation of doing, a condition opening the sentence, "before" or a question about money do. */
function takesBack(sentence: string, shifted: boolean, scope: Scope | null): string | null {
  const short = words(sentence) <= 6;
  const joke = EN_UNCLEAR.find(([k]) => k === "joke")![1];
  const kidding = firstMatch(joke, sentence) ?? firstMatch(KO_UNCLEAR.find(([k]) => k === "joke")![1], sentence);
  if (kidding !== null) return `joke: ${kidding}`;
  const opens = firstMatch(TAKE_BACK_OPEN, sentence) ?? firstMatch(TAKE_BACK_ANYWHERE, sentence);
  if (opens !== null) return opens;
  const verb = firstMatch(TAKE_BACK_VERB, sentence) ?? firstMatch(KO_NEGATION, sentence);
  if (verb !== null) return verb;
  const cond = firstMatch(CONDITION_OPEN, sentence) ?? firstMatch(BEFORE, sentence);
  // After a change of topic "but" opens the new topic ("But I also have another issue"); a condition still vetoes.
  if (cond !== null && !(shifted && cond === "but")) return cond;
  // "Let me know once it's updated and when I can expect the refund": asks to be told; it does not defer or
  // restrict the answer (unless it carries an answer of its own: "let me know, but do it tomorrow").
  if (ASKS_TO_BE_TOLD.exec(sentence) !== null && !isQuestion(sentence) && affirmative(sentence) === null) return null;
  if (isQuestion(sentence) || EN_QUESTION_START.test(sentence)) {
    if (firstMatch(FOLLOW_UP, sentence) !== null) return null;
    if (!shifted) return "question";
    return firstMatch(MONEY_QUESTION, sentence) === null ? null : "question";
  }
  // Partial consent restricts the answer wherever it stands ("Also, only the outbound leg"); consent to
  // something else or a deferral does unless the sentence is about another topic.
  const unclear = unclearIn(sentence, scope);
  if (unclear !== null && (unclear.startsWith("partial") || !shifted)) return unclear;
  if (shifted) return null;
  const hedge = firstMatch(EN_HEDGE, sentence) ?? firstMatch(KO_HEDGE, sentence);
  if (hedge !== null && (short || sentence.startsWith(hedge))) return hedge;
  if (short) {
    const c = firstMatch(EN_CONDITION, sentence) ?? firstMatch(KO_CONDITION, sentence) ?? negationIn(sentence);
    if (c !== null) return c;
  }
  return null;
}

/** The question asks about others or all ("any other passengers?", "all the items you want to modify"):
 * "no" and "only" then answer it ("No, only the name"), they do not restrict or refuse the call. */
const ASKS_OTHERS = enWords([
  "(?:any|no) (?:other|more|additional|further)", "anything else", "all (?:the )?items", "only (?:item|items|change|one)", "single[- ]item",
]);
/** "Keep it as it is" and "keep … as is" say the same: each echoes the others in the question. */
const KEEP_FORMS = ["keep", "as is", "as it is", "unchanged", "remain"];
/** Synonyms an answer uses for the question's own word. */
const ECHO: Readonly<Record<string, readonly string[]>> = {
  "just the": ["only", "just"], "just one": ["only", "single", "one"], only: ["only", "single", "just"], swap: ["swap", "switch", "replace", "exchange"],
  switch: ["switch", "swap", "change", "replace"], instead: ["instead", "replace", "replacing", "switch", "change"], keep: KEEP_FORMS,
  other: ["other"], another: ["another"], rather: ["rather"], different: ["different"],
  "as is": KEEP_FORMS, "as it is": KEEP_FORMS,
};

/** The call's own words: is `word` one of them (an inflection of a name's word counts)? */
function isNamed(word: string, names: readonly string[]): boolean {
  return names.some((n) => n === word || (n.length >= 4 && word.startsWith(n)) || (word.length >= 4 && n.startsWith(word)));
}

interface Scope {
  /** The question the message answers, normalized. */
  question: string;
  names: readonly string[];
  asksOthers: boolean;
}

function scopeOf(context: ConsentContext | null | undefined): Scope | null {
  if (context === null || context === undefined || typeof context.question !== "string" || !Array.isArray(context.names)) return null;
  const question = normalizeUtterance(context.question);
  return { question, names: context.names.filter((n) => typeof n === "string").map((n) => n.toLowerCase()), asksOthers: firstMatch(ASKS_OTHERS, question) !== null };
}

/** What the question itself leaves out ("return everything except for the pet bed"): the up to three words
 * after except / excluding / other than / apart from / keep, built once per question (linear time). */
const EXCLUDED = pattern(`${EN_LEFT}(?:except|excluding|other than|apart from|keep|keeping)(?: for)?(?: the| your| my)? ([\\p{L}\\p{N}-]+(?: [\\p{L}\\p{N}-]+){0,2})`, "u");
const excludedOf = new WeakMap<Scope, string[]>();
/** "Keep the pet bed" after a question that left the pet bed out: the kept thing, the whole of it up to
 * the end of the clause (at most three words), is what the question excluded. */
function keepsExcluded(after: string, scope: Scope): boolean {
  const object = (after.split(/[,;:.!?\u2013\u2014]/u)[0] ?? "").trim().replace(/^(?:the|your|my) /u, "");
  // A pronoun names nothing the question left out ("keep it" after "cancel it, or keep it as is?").
  if (object === "" || object.split(" ").length > 3 || /^(?:it|them|that|this|these|those|everything|all|both|one|some|any)(?: |$)/u.test(object)) return false;
  let phrases = excludedOf.get(scope);
  if (phrases === undefined) {
    phrases = [];
    const all = new RegExp(EXCLUDED.source, "gu");
    let m: RegExpExecArray | null;
    while ((m = all.exec(scope.question)) !== null) {
      // Not the other branch of a choice ("…, or keep the pet bed?").
      const before = scope.question.slice(Math.max(0, m.index - 200), m.index).split(/[.!?\n]/u).at(-1)!;
      if (!OFFERS_CHOICE.test(before)) phrases.push(m[1]);
    }
    excludedOf.set(scope, phrases);
  }
  return phrases.some((p) => p === object || p.startsWith(`${object} `));
}

/** An unclear token the question itself used (the user restates the proposal: "make the swap"), or a
 * switch to what the call itself does ("switch to flight HAT266" when the call books HAT266: the next
 * words name one of the call's argument ids, a name with a digit). */
function echoes(token: string, scope: Scope | null, after = ""): boolean {
  if (scope === null) return false;
  const [kind, word] = token.split(": ");
  if (kind !== "partial" && kind !== "something else") return false;
  if (kind === "partial" && scope.asksOthers) return true;
  if (word === "keep" && keepsExcluded(after, scope)) return true;
  if (word === "switch" || word === "swap") {
    const next = after.slice(0, 80).trim().split(/\s+/u).slice(0, 4).map((w) => w.replace(/[.,;:!?]+$/u, ""));
    if (next[0] === "to" && next.slice(1).some((w) => /\d/u.test(w) && scope.names.includes(w))) return true;
  }
  const forms = ECHO[word] ?? [word];
  return forms.some((f) => usedPlainly(f, scope.question));
}

const OFFERS_CHOICE = /(?<![\p{L}\p{N}'])(?:or|either|whether)(?![\p{L}\p{N}'])/u;
/** The question uses `form` as its proposal, not as the other branch of a choice ("Shall I cancel it, or keep
 * it as is?": a "keep it as is" answers the other branch). The sentence up to the word has no "or". */
function usedPlainly(form: string, question: string): boolean {
  const all = new RegExp(`${EN_LEFT}${form}`, "gu");
  let m: RegExpExecArray | null;
  while ((m = all.exec(question)) !== null) {
    const before = question.slice(Math.max(0, m.index - 200), m.index).split(/[.!?\n]/u).at(-1)!;
    if (!OFFERS_CHOICE.test(before)) return true;
    if (m[0].length === 0) all.lastIndex++;
  }
  return false;
}

const ACTION_VERB = pattern(
  `${EN_LEFT}(?:change|switch|swap|modify|update|upgrade|downgrade|cancel|book|add|remove|return|exchange|refund|send|use|pay|buy|keep|replace|move)${EN_RIGHT}`,
  "u",
);
/** A negation that declines another thing than the call: "I don't want to change my plan" when the call is
 * refuel_data (its verb is not the call's own word, and no pronoun or consent verb follows it). */
function declinesAlternative(sentence: string, scope: Scope | null): boolean {
  if (scope === null) return false;
  const neg = new RegExp(`${EN_LEFT}(?:not|don't|do not|dont|never|prefer not to|rather not)${EN_RIGHT}`, "gu");
  let m: RegExpExecArray | null;
  let found = false;
  while ((m = neg.exec(sentence)) !== null) {
    const after = sentence.slice(m.index + m[0].length).trim().split(/\s+/u).slice(0, 4).join(" ");
    const verb = firstMatch(ACTION_VERB, after);
    if (verb === null || isNamed(verb, scope.names)) return false;
    if (/^(?:want to |need to |wish to |like to )?\S+ (?:it|that|this|them|anything)(?:[\s.,!]|$)/u.test(after)) return false;
    found = true;
  }
  return found;
}

/** Words a met condition may carry besides the question's own ("as long as I'm getting the full refund"). */
const GENERIC = new Set(["that", "this", "it's", "that's", "i'm", "will", "would", "getting", "get", "gets", "receive", "receiving", "have", "having", "being", "still", "really", "indeed", "also", "with", "from", "back", "your", "mine"]);
/** A question sentence that offers something only conditionally or tentatively does not meet a condition. */
const HEDGED_OFFER = enWords(["if", "unless", "provided", "as long as", "only", "may", "might", "could", "possibly", "maybe", "perhaps", "probably", "try", "attempt", "whether"]);
/** Words by which a question sentence withholds or charges what it names ("without a full refund", "a partial
 * refund instead of a full one" is unclear already). */
const NOT_OFFERED = enWords([
  "without", "lack", "lacks", "lose", "loses", "losing", "lost", "forfeit", "forfeits", "forfeited", "partial", "partially", "non-?refundable",
  "ineligible", "unable", "impossible", "denied", "excluded", "exclude", "excludes", "fee", "fees", "penalty", "deduct", "deducted", "minus", "less", "unless", "except",
]);
/** Verbs of asking to be told or shown: a "first" after them asks for something before the call. */
const INFORM = enWords(["tell", "show", "let me", "check", "confirm", "verify", "know", "explain", "give me", "send me", "email", "ask", "wait", "see"]);

/** The first condition in `text` (the answer and what precedes it) that the question has not already met,
 * or null. Met: an "as long as / provided / if" clause without a negation whose words (but for a few
 * generic ones) a sentence of the question states without a negation ("as long as I'm getting the full
 * refund" after "we can indeed provide a full refund"); a "first" when the question proposes this order
 * itself ("…updating your reservation first?") and the clause before it names the call's action and asks
 * for nothing else ("Yes, please update my reservation first"). */
function unmetCondition(text: string, scope: Scope | null): string | null {
  const all = new RegExp(EN_CONDITION.source, "gu");
  let m: RegExpExecArray | null;
  let met = 0;
  let asksFirst: boolean | null = null;
  // The question's sentences without a negation, as word sets; built once (linear time).
  let clean: Set<string>[] | null = null;
  const stated = (content: string[]) =>
    (clean ??= scope!.question
      .split(SENTENCE_SPLIT)
      // Stated, not asked or offered as a choice.
      .filter((q) => !isQuestion(q) && !OFFERS_CHOICE.test(q) && negationIn(q) === null && firstMatch(HEDGED_OFFER, q) === null && firstMatch(NOT_OFFERED, q) === null && unclearIn(q) === null)
      .map((q) => new Set(q.split(/\s+/u).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}']+$/gu, ""))))).some((q) => content.every((w) => q.has(w)));
  while ((m = all.exec(text)) !== null) {
    const word = m[0];
    // A message of many conditions is not read as met ones (and the cost stays linear).
    if (scope === null || met >= 4) return word;
    met++;
    if (word === "as long as" || word === "provided" || word === "if") {
      const clause = text.slice(m.index + word.length, m.index + word.length + 200).split(/[,;:.!?\u2013\u2014]/u)[0];
      const content = clause.split(/\s+/u).map((w) => w.replace(/[^\p{L}\p{N}']/gu, "")).filter((w) => w.length >= 4 && !GENERIC.has(w));
      if (content.length > 0 && negationIn(clause) === null && unclearIn(clause) === null && stated(content)) continue;
      return word;
    }
    if (word === "first" && (asksFirst ??= namesTokenIn(scope.question, "first"))) {
      const before = text.slice(Math.max(0, m.index - 200), m.index).split(/[,;:.!?\u2013\u2014]/u).at(-1)!;
      const acts = before.split(/\s+/u).some((w) => w.length >= 3 && isNamed(w, scope.names));
      if (acts && firstMatch(INFORM, before) === null && firstMatch(EN_CONDITION, before) === null) continue;
    }
    return word;
  }
  return null;
}

/** `text` has `word` as a whole word. */
function namesTokenIn(text: string, word: string): boolean {
  let at = text.indexOf(word);
  const letter = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}']/u.test(c);
  while (at >= 0) {
    if (!letter(text[at - 1]) && !letter(text[at + word.length])) return true;
    at = text.indexOf(word, at + 1);
  }
  return false;
}

/** Classifies one user message; `context` (what it answers) lets a restated proposal, a declined
 * alternative and a "no" to "anything else?" count as what they are. */
export function classifyMessage(raw: string, context?: ConsentContext | null): MessageConsent {
  const scope = scopeOf(context);
  let text = normalizeUtterance(raw);
  if (text === "") return { kind: "none", evidence: null };
  // "No, only the name": a no to "any other passengers?" answers that question.
  if (scope?.asksOthers === true) text = text.replace(/^(?:no|nope|nah)(?:[,.!]+\s*|\s+)(?=\S)/u, "");
  const scan = neutralized(text);
  const sentences = scan.split(SENTENCE_SPLIT).map((p) => conceded(p.trim())).filter((p) => p !== "");
  const asks = (p: string) => isQuestion(p) || EN_QUESTION_START.test(p);
  const answerAt = sentences.findIndex((p) => !asks(p) && affirmative(p) !== null);
  if (answerAt < 0) {
    // No answer: any negation, hedge, unclear token or question is a no; otherwise it says nothing.
    const negation = negationIn(scan);
    if (negation !== null) return { kind: "no", evidence: negation };
    const hedge = firstMatch(EN_HEDGE, scan) ?? firstMatch(KO_HEDGE, scan);
    if (hedge !== null) return { kind: "no", evidence: hedge };
    const unclear = unclearIn(scan);
    if (unclear !== null) return { kind: "no", evidence: unclear };
    const asked = sentences.find(asks);
    if (asked !== undefined) return { kind: "no", evidence: affirmative(asked) === null ? "question" : "?" };
    return { kind: "none", evidence: null };
  }
  // The answer and what comes before it: any negation, hedge, unclear token, question or condition vetoes.
  // Before the answer, a negation vetoes when it takes something back (a bare or opening negation, a
  // negation of doing); a detail ("the blue ones are not water resistant", "I don't have another card") does not.
  const upTo = sentences.slice(0, answerAt + 1).join(" ");
  for (const p of sentences.slice(0, answerAt)) {
    const n = negationIn(p);
    if (n === null || declinesAlternative(p, scope)) continue;
    const back = firstMatch(TAKE_BACK_OPEN, p) ?? firstMatch(TAKE_BACK_VERB, p) ?? firstMatch(KO_NEGATION, p) ?? firstMatch(FR_NEGATION, p);
    if (back !== null || words(p) <= 6) return { kind: "no", evidence: back ?? n };
  }
  const negation = negationIn(sentences[answerAt]);
  if (negation !== null && !declinesAlternative(sentences[answerAt], scope)) return { kind: "no", evidence: negation };
  const hedge = firstMatch(EN_HEDGE, upTo) ?? firstMatch(KO_HEDGE, upTo);
  if (hedge !== null) return { kind: "no", evidence: hedge };
  const unclear = unclearIn(upTo, scope);
  if (unclear !== null) return { kind: "no", evidence: unclear };
  const asked = sentences.slice(0, answerAt).find(asks);
  if (asked !== undefined) return { kind: "no", evidence: affirmative(asked) === null ? "question" : "?" };
  // A declined alternative's "but" is its contrast ("I don't want to change my plan, but I'm willing to
  // refuel"), not a condition on the answer.
  const conditional = sentences
    .slice(0, answerAt + 1)
    .map((p) => (declinesAlternative(p, scope) ? p.replace(new RegExp(`${EN_LEFT}but${EN_RIGHT}`, "gu"), " ") : p))
    .join(" ");
  const condition = unmetCondition(conditional, scope) ?? firstMatch(KO_CONDITION, conditional);
  if (condition !== null) return { kind: "no", evidence: condition };
  // After it: another answering sentence is held to the same rules; any other sentence vetoes only when it
  // takes the answer back, until a sentence opens another topic.
  let shifted = false;
  let aside = false;
  for (const s of sentences.slice(answerAt + 1)) {
    let p = s;
    shifted ||= firstMatch(TOPIC_SHIFT, p) !== null;
    // "Also, can you check if it shipped? If not, I'd like to change it": the condition is on the aside.
    const onAside = shifted && aside ? firstMatch(ANSWERS_ASIDE, p) : null;
    aside = asks(p);
    if (onAside !== null) {
      p = p.slice(onAside.length).trim();
      if (negationIn(p) !== null || unclearIn(p, scope) !== null || firstMatch(EN_HEDGE, p) !== null || firstMatch(UNDOES, p) !== null) return { kind: "no", evidence: onAside };
    }
    if (ACKNOWLEDGES.exec(p) !== null && STEERS.exec(p) === null && unclearIn(p, scope) === null && firstMatch(EN_HEDGE, p) === null &&
      negationIn(p.replace((STATED_NEGATIONS ??= new RegExp(STATED_NEGATION.source, "gu")), " ")) === null) continue;
    if (!shifted && !asks(p) && INFO_REQUEST.exec(p) === null && affirmative(p) !== null) {
      // "But yes, I want to do the exchange": the conjunction joins it to what came before, it is no condition.
      const q = p.replace(/^(?:and|but|so)[\s,]+/u, "");
      const v = (declinesAlternative(q, scope) ? null : negationIn(q)) ?? firstMatch(EN_HEDGE, q) ?? unclearIn(q, scope) ?? firstMatch(EN_CONDITION, q) ?? firstMatch(KO_CONDITION, q);
      if (v !== null) return { kind: "no", evidence: v };
      continue;
    }
    const back = declinesAlternative(p, scope) ? null : takesBack(p, shifted, scope);
    if (back !== null) return { kind: "no", evidence: back };
  }
  return { kind: "yes", evidence: affirmative(sentences[answerAt]) };
}

/**
 * The default detector: reads at most the last CONSENT_WINDOW messages, most recent first; the first
 * message that says anything (yes or no) decides. Nothing said → no consent.
 */
export function detectConsent(messages: readonly string[], context?: ConsentContext | null): ConsentResult {
  const start = Math.max(0, messages.length - CONSENT_WINDOW);
  for (let i = messages.length - 1; i >= start; i--) {
    const m = messages[i];
    if (typeof m !== "string") continue;
    const c = classifyMessage(m, i === messages.length - 1 ? context : null);
    if (c.kind === "yes") return { consent: true, message: i, evidence: c.evidence };
    if (c.kind === "no") return { consent: false, message: i, evidence: c.evidence };
  }
  return { consent: false, message: -1, evidence: null };
}

/** @2: deferrals, partial consent, consent to something else, jokes and questions read as unclear;
 * 취소 as the requested action is not a negation. @4: scope (only the answer, what precedes it, and what
 * takes it back decide), requests ("please cancel it") as answers, quoted text and detail negations
 * ("no other changes") neutral, French. @5: concessions ("even if …", "if …, … anyway") and acknowledged
 * consequences after the answer ("I understand if I won't receive a refund") are no veto; a condition the
 * question already met, a "first" the question itself proposes, a switch to the call's own argument, "as it
 * is" for the question's "as is", and "If not, …" after a question on another topic do not veto either. */
export const SCOPED_CONSENT_DETECTOR_ID = "polar-regex-en-ko-fr@5";

export const scopedConsentDetector: ConsentDetector = Object.freeze({
  id: SCOPED_CONSENT_DETECTOR_ID,
  detect: detectConsent,
});

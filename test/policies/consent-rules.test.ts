// Each rule of the default consent detector, stated by a message it decides and the token that decides
// it: affirmatives (answer words opening a sentence, action phrases, whole-reply words), negations,
// hedges, conditions, questions, word boundaries and normalisation, in English and Korean; then the
// window over the conversation. A false "yes" lets an irreversible call run, so most rows are "no"s.
import { describe, expect, it } from "vitest";
import { classifyMessage, CONSENT_WINDOW, defaultConsentDetector, detectConsent, normalizeUtterance } from "../../src/policies/consent.js";

const yes = (evidence: string) => ({ kind: "yes", evidence });
const no = (evidence: string) => ({ kind: "no", evidence });
const none = { kind: "none", evidence: null };

describe("classifyMessage: English", () => {
  it.each([
    // Answer words open a sentence, optionally after an interjection.
    ["yes", yes("yes")],
    ["Okay.", yes("okay")],
    ["well, sure", yes("well, sure")],
    ["Of course!", yes("of course")],
    // Action phrases count anywhere in a sentence that is not a question.
    ["Please go ahead.", yes("go ahead")],
    ["You can proceed with it", yes("proceed")],
    // Whole-reply words.
    ["please", yes("please")],
    ["Confirm.", yes("confirm")],
    ["y", yes("y")],
    // Idioms with a negation word that mean yes.
    ["no problem", yes("no problem")],
    ["No worries, go ahead", yes("go ahead")],
    ["👍", yes("👍")],
  ])("%j is consent", (text, expected) => {
    expect(classifyMessage(text)).toEqual(expected);
  });

  it.each([
    // Negations veto anywhere.
    ["no", no("no")],
    ["Yes. No, wait.", no("no")],
    ["I don't want that", no("don't")],
    ["I haven\u2019t agreed to that.", no("n't")],
    ["ok\nstop", no("stop")],
    ["I dont think so", no("dont")],
    // Hedges veto on their own.
    ["Maybe, go ahead", no("maybe")],
    ["hmmm ok", no("hmmm")],
    ["I think you can proceed", no("i think")],
    // Conditions veto an affirmative.
    ["yes, but tell me the fee first", no("but")],
    ["go ahead if it is refundable", no("if")],
    // Any question makes the message unclear (ask again), even with an answer after it.
    ["What is the fee? OK, go ahead.", no("question")],
    ["Is that the last step? Yes.", no("question")],
    // An affirmative asked back is not consent.
    ["ok?", no("?")],
    ["go ahead?", no("?")],
    ["Is that okay with me?", no("?")],
    // A question anywhere in the message: the user is still asking.
    ["What is the fee? OK, go ahead.", no("question")],
    ["Is that the last step? Yes.", no("question")],
    // Asking to keep things as they are is not consent to change them.
    ["keep my booking", no("something else: keep")],
  ])("%j is a no", (text, expected) => {
    expect(classifyMessage(text)).toEqual(expected);
  });

  it.each([
    // Word boundaries: an affirmative or negation inside another word is not one.
    "Yesterday I booked it",
    "booked a kayak",
    "I disagreed",
    "okra, please",
    "I know the number",
    // `^`: a whole-reply word must be the whole reply.
    "my name is Amy",
    "please confirm my booking",
    // A condition word without an affirmative says nothing.
    "my first name is Ann",
    // Normalisation does not make words out of pieces.
    "ye\u0000s",
    "y\u200bes",
    "",
    "   ",
  ])("%j says nothing either way", (text) => {
    expect(classifyMessage(text)).toEqual(none);
  });
});

describe("classifyMessage: Korean", () => {
  it.each([
    ["네", yes("네")],
    ["네요", yes("네요")],
    ["좋아요!", yes("좋아요")],
    ["알겠습니다", yes("알겠습니다")],
    ["진행해 주세요", yes("진행해")],
    ["승인합니다.", yes("승인합니다")],
    ["확인했습니다", yes("확인했습니다")],
    ["확인.", yes("확인.")],
    ["그렇게 해 주세요", yes("그렇게 해")],
    ["그럼 해 주세요", yes("그럼 해 주세요")],
    // A question ending inside a word is not a question.
    ["까다롭네요. 진행해 주세요", yes("진행해")],
  ])("%j is consent", (text, expected) => {
    expect(classifyMessage(text)).toEqual(expected);
  });

  it.each([
    ["아니요", no("아니")],
    ["안 돼요", no("안")],
    ["하지 마세요", no("하지 마")],
    ["취소할게요", no("취소")],
    ["잠깐만요", no("잠깐")],
    ["아마 진행해 주세요", no("아마")],
    ["먼저 요금을 알려 주시고 진행해 주세요", no("먼저")],
    ["만약 무료라면 진행해 주세요", no("만약")],
    // A question ending without "?".
    ["진행해도 될까요", no("?")],
    ["진행해 주실 수 있나요.", no("?")],
    ["진행해도 될까", no("?")],
    ["진행해도 되는지", no("?")],
    ["진행해도 될까요~~", no("?")],
    ["진행해도~ 될까요~", no("?")],
    // Hedges with or without the space.
    ["생각해볼게요, 진행해 주세요", no("생각해볼")],
    ["생각좀 하고 진행해 주세요", no("생각좀")],
    // `면` ("if") ending a clause, before a space, a comma or the end.
    ["무료면 진행해 주세요", no("면")],
    ["무료면요, 진행해 주세요", no("면요")],
    ["진행해 주세요 무료면", no("면")],
  ])("%j is a no", (text, expected) => {
    expect(classifyMessage(text)).toEqual(expected);
  });

  it.each([
    // 예 opening 예약 ("reservation") is not 예 ("yes"); 안 opening 안녕 is not 안 ("not").
    "예약 번호는 ABC123입니다",
    "안녕하세요",
    // 네 ending a word ("it's raining, huh") is not 네 ("yes").
    "비가 오네",
    // 확인 as "check" with an object is a request, not consent.
    "확인해 주세요",
  ])("%j says nothing either way", (text) => {
    expect(classifyMessage(text)).toEqual(none);
  });
});

describe("normalizeUtterance", () => {
  it("folds width and case, straightens apostrophes, blanks control and format characters, keeps newlines", () => {
    expect(normalizeUtterance("  ＹＥＳ\u2019  I\u00a0do\u0007it\u200b \n ok ")).toBe("yes' i do it \n ok");
    expect(normalizeUtterance("it`s itʼs")).toBe("it's it's");
  });
});

describe("the detector's identity", () => {
  it("is recorded in every decision and hashed with the config: it names this exact rule set", () => {
    expect(defaultConsentDetector.id).toBe("polar-regex-en-ko@3");
    expect(defaultConsentDetector.detect(["ok"])).toEqual({ consent: true, message: 0, evidence: "ok" });
  });
});

describe("detectConsent over a conversation", () => {
  it("the most recent message that says anything decides, within the last three", () => {
    expect(detectConsent(["no", "yes", "my id is R1"])).toEqual({ consent: true, message: 1, evidence: "yes" });
    expect(detectConsent(["yes", "no, don't", "my id is R1"])).toEqual({ consent: false, message: 1, evidence: "no" });
    expect(CONSENT_WINDOW).toBe(3);
    expect(detectConsent(["yes", "a", "b", "c"])).toEqual({ consent: false, message: -1, evidence: null });
    expect(detectConsent(["yes", "a", "b"])).toEqual({ consent: true, message: 0, evidence: "yes" });
  });

  it("nothing said is no consent; a message that is not text is passed over", () => {
    expect(detectConsent([])).toEqual({ consent: false, message: -1, evidence: null });
    expect(detectConsent(["go ahead", 42 as unknown as string])).toEqual({ consent: true, message: 0, evidence: "go ahead" });
  });
});

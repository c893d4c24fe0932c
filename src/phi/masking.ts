// Patient data as a key without `phi:read` sees it (decisions section 11): the phone number masked,
// phone numbers and e-mail addresses in transcripts and summaries replaced by `[phone]` and
// `[email]`, no recording. The one place these rules live: GraphQL's Interaction fields (which REST
// answers from too) and the exports, which write rows without GraphQL, both call these functions.
//
// The redactor errs towards redacting: a string of digits that could be someone's number is
// replaced unless its shape says it is something else (a date, a time, a year or a range of years,
// a decimal, an amount next to a currency). What it knows and does not is listed in docs/patient-data.md
// ("Patient data (PHI)") and pinned by test/phi/masking.test.ts.

export const PHONE_PLACEHOLDER = '[phone]';
export const EMAIL_PLACEHOLDER = '[email]';

// ---------------------------------------------------------------------------------------------
// The interaction's phone number

/**
 * Country calling codes of one and two digits (ITU-T E.164 assignments); every other code has
 * three. The codes are prefix-free, so the digits after `+` say how long theirs is.
 */
const ONE_DIGIT_CODES = new Set(['1', '7']);
const TWO_DIGIT_CODES = new Set(
  '20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98'.split(' '),
);

/** How many of `digits` (those after the `+` or `00`) are the country calling code. */
export function countryCodeLength(digits: string): number {
  if (ONE_DIGIT_CODES.has(digits.slice(0, 1))) return 1;
  if (TWO_DIGIT_CODES.has(digits.slice(0, 2))) return 2;
  return 3;
}

/** A national number shorter than this keeps none of its digits but the last two. */
const MIN_NATIONAL_FOR_LEADING_DIGIT = 5;

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

// ---------------------------------------------------------------------------------------------
// One spelling for every spelling of a digit, a space and a dash

/** Characters that show nothing (zero-width spaces and joiners, the word joiner, a BOM, a soft hyphen: \p{Cf}), behind which a number or an address hides. */
const INVISIBLE = /\p{Cf}/gu;
const ANY_DIGIT = /\p{Nd}/gu;
const ANY_SPACE = /\p{Zs}/gu;
/** Dashes (\p{Pd}: en and em dashes, the non-breaking hyphen...) and the minus sign. */
const ANY_DASH = /[\p{Pd}\u2212]/gu;

/**
 * Anything but ASCII, letters and marks: an accented or non-Latin letter cannot spell a digit, a
 * separator or an `@` (NFKC folds no letter into one), so a text of such words is read as it is,
 * without the cost of the canonical form (7 times the redaction's own on a Spanish summary).
 */
const MAY_SPELL_OTHERWISE = /[^\p{ASCII}\p{L}\p{M}]/u;

/** A decimal digit's value: digits of a script come as ten consecutive code points, 0 first. */
function digitValue(digit: string): string {
  const code = digit.codePointAt(0)!;
  if (code <= 0x39) return digit;
  let value = 0;
  while (value < 9 && /\p{Nd}/u.test(String.fromCodePoint(code - value - 1))) value++;
  return String(value);
}

/**
 * The text the masking rules read: compatibility forms folded (NFKC: fullwidth `＋３４`, `＠`,
 * mathematical and circled digits), invisible characters dropped, every decimal digit of any script
 * written 0-9 (Arabic-Indic `٦١٢`, Devanagari, Bengali...), every space separator a space and every
 * dash a `-`. Without it a number written `+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧` or `6\u2009612` passed unmasked. A key
 * without `phi:read` sees this form of a text that held anything but ASCII; ASCII is left alone.
 */
export function canonicalForMasking(text: string): string {
  if (!MAY_SPELL_OTHERWISE.test(text)) return text;
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(ANY_DIGIT, digitValue).replace(ANY_SPACE, ' ').replace(ANY_DASH, '-');
}

/**
 * `+34 612 345 689` -> `+34 6** *** *89`: the `+` (or an international `00`), the country calling
 * code and the first digit of the national number are kept (that digit tells a mobile from a
 * landline in most numbering plans, and is what the decisions' example keeps), then every digit
 * but the last two becomes `*`; separators stay. A number without an international prefix
 * (`06 12 34 56 78`, `612345678`) has no country code to keep, and a leading digit there may be a
 * trunk prefix or the number itself: every digit but the last two becomes `*`. Anything that is not
 * a digit is kept, except that an e-mail address (a WhatsApp id, say) becomes `[email]`.
 */
export function maskPhoneNumber(phone: string): string {
  const canonical = canonicalForMasking(phone);
  const value = canonical.includes('@') ? redactEmails(canonical) : canonical;
  let digits = '';
  for (let i = 0; i < value.length; i++) if (isDigit(value.charCodeAt(i))) digits += value[i];
  if (digits.length === 0) return value;
  let kept = 0;
  const lead = /^[\s(]*(\+|00(?=[1-9]))/.exec(value);
  if (lead) {
    const prefix = lead[1] === '00' ? 2 : 0;
    kept = prefix + countryCodeLength(digits.slice(prefix));
    if (digits.length - kept >= MIN_NATIONAL_FOR_LEADING_DIGIT) kept += 1;
  }
  const shownFrom = digits.length - 2;
  let out = '';
  let seen = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (!isDigit(value.charCodeAt(i))) {
      out += c;
      continue;
    }
    out += seen < kept || seen >= shownFrom ? c : '*';
    seen++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Free text: transcripts and summaries

/**
 * An e-mail address: a local part (plus-addressing included) and a domain of dot-separated labels
 * ending in a top-level domain of letters (subdomains included). Letters of any script are
 * accepted. It starts only where a word starts, so that each word is tried once.
 */
const EMAIL =
  /(?<![\p{L}\p{N}._%+'-])[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*\.\p{L}{2,}(?![\p{L}\p{N}-])/gu;

function redactEmails(text: string): string {
  // Only the words holding an `@` are matched, rather than every position of the text.
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    if (at < copied) continue;
    let start = at;
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    const word = text.slice(start, end);
    const replaced = word.replace(EMAIL, EMAIL_PLACEHOLDER);
    if (replaced !== word) {
      out += text.slice(copied, start) + replaced;
      copied = end;
    }
    at = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A transcript turn's or a summary's text with every phone number replaced by `[phone]` and every
 * e-mail address by `[email]`. A text with no digit and no `@` is returned as it is, unscanned.
 */
export function redactText(text: string): string {
  let out = canonicalForMasking(text);
  if (out.includes('@')) out = redactEmails(out);
  for (let i = 0; i < out.length; i++) if (isDigit(out.charCodeAt(i))) return redactPhones(out, i);
  return out;
}

/**
 * What the masked API shows of a transcript: each turn's content redacted; other keys as stored.
 * A turn with nothing to redact is the stored object itself (nothing is copied for it).
 */
export function redactTranscript<E extends { content?: unknown }>(entries: readonly E[]): E[] {
  return entries.map((entry) => {
    if (typeof entry.content !== 'string') return entry;
    const content = redactText(entry.content);
    return content === entry.content ? entry : { ...entry, content };
  });
}

// Phone numbers in text. The text is cut into words (runs of non-space); a word holding a digit is
// a number word when, once the punctuation around it is set aside, it is digits in groups joined by
// `.`, `-` or `/`, possibly with a `+` in front and groups in parentheses (`+44 (0)20`, `(555)`).
// Number words one space apart form a segment; within it, the longest run of words from each
// position that reads as a phone number is replaced.

interface NumberWord {
  /** Where the number itself starts and ends in the text (punctuation around it left out). */
  start: number;
  end: number;
  core: string;
  digits: number;
  /** Starts with `+` (or `(+`): an international number. */
  plus: boolean;
  /** Punctuation was set aside before / after it: it cannot join the word before / after. */
  cutBefore: boolean;
  cutAfter: boolean;
}

const SPACE_JOIN = new Set([0x20, 0xa0, 0x202f]);

const isSpace = (code: number) =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000;

/** Digits in groups joined by one `.`, `,`, `-` or `/`; a group may be in parentheses; `+` or `(+code)` in front. */
const NUMBER_WORD = /^(?:\+|\(\+\d{1,3}\))?(?:\d|\(\d{1,5}\))(?:[.,/-]?(?:\d|\(\d{1,5}\)))*$/;
/** Punctuation before a number that is not part of it: opening brackets and quotes, and a label such as `Tel:`. */
const LEADING = /^(?:[[{"'«¿¡“‘„]+|\p{L}[\p{L}.]{0,15}:)+/u;
const TRAILING = /[.,;:!?\]}"'»”’…]+$/;

/** Shapes of number words that are not phone numbers. */
const NOT_PHONE = [
  /^\d{1,2}([./-])\d{1,2}\1\d{2,4}\.?$/, // 04/02/2026, 4.2.26, 02-04-2026
  /^\d{4}([./-])\d{1,2}\1\d{1,2}$/, // 2026-02-04
  /^(?:1[89]|20)\d\d[/-](?:(?:1[89]|20)\d\d|\d\d)$/, // 2025-2026, 2025/26
  /^\d+\.\d+$/, // 3.75, 10.30
  /^\d{1,2}[.]\d\d-\d{1,2}[.]\d\d$/, // 10.30-11.30
];

/** Eight digits that are a date: 20260204. */
const COMPACT_DATE = /^(?:1[89]|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;

/** Three words that spell a date with spaces: 04 02 2026. */
const isSpacedDate = (words: readonly NumberWord[]) =>
  words.length === 3 &&
  /^(?:0?[1-9]|[12]\d|3[01])$/.test(words[0]!.core) &&
  /^(?:0?[1-9]|[12]\d|3[01])$/.test(words[1]!.core) &&
  /^(?:1[89]|20)\d\d$/.test(words[2]!.core);

const CURRENCY = String.raw`[$€£¥₹₩₽¢]|(?<!\p{L})(?:EUR|USD|GBP|MXN|CHF|euros?|dollars?|pesos?|pounds?|libras?)`;
const CURRENCY_BEFORE = new RegExp(String.raw`(?:${CURRENCY})\s?$`, 'iu');
const CURRENCY_AFTER = new RegExp(String.raw`^\s?(?:${CURRENCY}|%)(?![\p{L}])`, 'iu');

/** The most words a phone number is written in: 15 digits read out one by one, after a `+`. */
const MAX_WORDS = 16;

function numberWord(text: string, wordStart: number, wordEnd: number): NumberWord | undefined {
  let core = text.slice(wordStart, wordEnd);
  let start = wordStart;
  let cutBefore = false;
  let cutAfter = false;
  // The regular expressions below only for words that begin or end with something else than a
  // digit (most number words do not).
  const first = core.charCodeAt(0);
  if (!isDigit(first) && first !== 0x2b) {
    const leading = LEADING.exec(core);
    if (leading) {
      core = core.slice(leading[0].length);
      start += leading[0].length;
      cutBefore = true;
    }
  }
  while (core.length > 0 && !isDigit(core.charCodeAt(core.length - 1))) {
    const trailing = TRAILING.exec(core);
    if (trailing) {
      core = core.slice(0, trailing.index);
      cutAfter = true;
      continue;
    }
    // A bracket that opens or closes around the number rather than inside it.
    if (core.endsWith(')') && count(core, ')') > count(core, '(')) {
      core = core.slice(0, -1);
      cutAfter = true;
      continue;
    }
    break;
  }
  if (core.startsWith('(') && count(core, '(') > count(core, ')')) {
    core = core.slice(1);
    start += 1;
    cutBefore = true;
  }
  let digits = 0;
  let separated = false;
  for (let i = 0; i < core.length; i++) {
    const code = core.charCodeAt(i);
    if (isDigit(code)) digits++;
    else separated = true;
  }
  if (separated ? !NUMBER_WORD.test(core) || NOT_PHONE.some((shape) => shape.test(core)) : digits === 8 && COMPACT_DATE.test(core)) return undefined;
  return { start, end: start + core.length, core, digits, plus: core.startsWith('+') || core.startsWith('(+'), cutBefore, cutAfter };
}

function count(text: string, char: string): number {
  let n = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Whether words[from..to] (inclusive) are one phone number. */
function isPhone(text: string, words: readonly NumberWord[], from: number, to: number): boolean {
  const first = words[from]!;
  let digits = first.digits;
  // A number read out digit by digit (`6 1 2 3 4 5 6 8 9`): every word one digit.
  let dictated = first.digits === 1;
  for (let k = from + 1; k <= to && dictated; k++) dictated = words[k]!.digits === 1;
  for (let k = from + 1; k <= to; k++) {
    const word = words[k]!;
    // Only the first word has the `+`; after it, groups of one digit among longer ones are a list, not a number.
    if (word.plus || (!first.plus && !dictated && word.digits < 2)) return false;
    digits += word.digits;
  }
  if (digits > 15) return false;
  // Counting (`items 1 2 3 4 5 6 7 8`) is not a number read out.
  if (dictated && !first.plus && isCounting(words, from, to)) return false;
  if (first.plus) return digits >= 7;
  if (digits < 7) return false;
  // Seven digits only as a local number written 555-0123.
  if (digits === 7 && !(from === to && /^\d{3}[-.]\d{4}$/.test(first.core))) return false;
  if (to - from === 2 && isSpacedDate(words.slice(from, to + 1))) return false;
  const last = words[to]!;
  return !CURRENCY_BEFORE.test(text.slice(Math.max(0, first.start - 8), first.start)) && !CURRENCY_AFTER.test(text.slice(last.end, last.end + 9));
}

/** Whether one-digit words[from..to] count up by one (1 2 3 ...). */
function isCounting(words: readonly NumberWord[], from: number, to: number): boolean {
  for (let k = from + 1; k <= to; k++) if (Number(words[k]!.core) !== Number(words[k - 1]!.core) + 1) return false;
  return true;
}

/** The replacements of one segment of number words: [start, end) spans of the text. */
function phoneSpans(text: string, words: readonly NumberWord[], spans: Array<[number, number]>): void {
  for (let i = 0; i < words.length; ) {
    let matched = -1;
    for (let j = Math.min(words.length - 1, i + MAX_WORDS - 1); j >= i; j--) {
      if (isPhone(text, words, i, j)) {
        matched = j;
        break;
      }
    }
    if (matched >= 0) {
      spans.push([words[i]!.start, words[matched]!.end]);
      i = matched + 1;
      continue;
    }
    // Numbers joined by slashes, each a phone number: 612345678/612345679.
    const word = words[i]!;
    if (word.core.includes('/')) {
      let at = word.start;
      for (const part of word.core.split('/')) {
        const single = numberWord(part, 0, part.length);
        if (single && isPhone(text, [{ ...single, start: at, end: at + part.length }], 0, 0)) spans.push([at, at + part.length]);
        at += part.length + 1;
      }
    }
    i++;
  }
}

/** The fewest digits a phone number has (a local `555-0123`): a run of words with fewer holds none. */
const MIN_PHONE_DIGITS = 7;

/**
 * `text` with its phone numbers replaced; `firstDigit`: where its first digit is. Words holding a
 * digit are gathered in runs (one joining space apart) and counted cheaply first: only a run with
 * enough digits for a phone number is looked at closely, so the times, dates and amounts of
 * ordinary text cost a scan and no regular expression.
 */
function redactPhones(text: string, firstDigit: number): string {
  const spans: Array<[number, number]> = [];
  // The current run: its words' [start, end) bounds and its digits. (No closures here: this runs
  // for every text of every masked answer.)
  const bounds: number[] = [];
  let runDigits = 0;
  let i = firstDigit;
  for (;;) {
    while (i < text.length && !isDigit(text.charCodeAt(i))) i++;
    const last = i >= text.length;
    let wordStart = i;
    let wordEnd = i;
    let digits = 0;
    if (!last) {
      while (wordStart > 0 && !isSpace(text.charCodeAt(wordStart - 1))) wordStart--;
      for (; wordEnd < text.length; wordEnd++) {
        const code = text.charCodeAt(wordEnd);
        if (isSpace(code)) break;
        if (isDigit(code)) digits++;
      }
    }
    const previousEnd = bounds.length ? bounds[bounds.length - 1]! : -2;
    if (last || !(wordStart === previousEnd + 1 && SPACE_JOIN.has(text.charCodeAt(previousEnd)))) {
      if (runDigits >= MIN_PHONE_DIGITS) analyseRun(text, bounds, spans);
      bounds.length = 0;
      runDigits = 0;
    }
    if (last) break;
    bounds.push(wordStart, wordEnd);
    runDigits += digits;
    i = wordEnd;
  }
  if (!spans.length) return text;
  let out = '';
  let copied = 0;
  for (const [start, end] of spans) {
    out += text.slice(copied, start) + PHONE_PLACEHOLDER;
    copied = end;
  }
  return out + text.slice(copied);
}

/** The phone numbers of one run of words (`bounds`: start, end of each), added to `spans`. */
function analyseRun(text: string, bounds: readonly number[], spans: Array<[number, number]>): void {
  let segment: NumberWord[] = [];
  for (let k = 0; k < bounds.length; k += 2) {
    const word = numberWord(text, bounds[k]!, bounds[k + 1]!);
    const previous = segment.at(-1);
    if (previous && (!word || previous.cutAfter || word.cutBefore)) {
      phoneSpans(text, segment, spans);
      segment = [];
    }
    if (word) segment.push(word);
  }
  if (segment.length) phoneSpans(text, segment, spans);
}

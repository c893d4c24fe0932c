// Which stored phone numbers are one patient's number (purge --phone).
//
// Numbers are stored as they were imported: international with or without separators
// (`+34 612 345 689`, `+34612345689`), national with the trunk prefix (`0612 ...`, `07700 900123`),
// national digits only (`612 34 56 89`). The rule: two numbers are the same patient's when their
// E.164 forms are equal. A stored number in international form (`+` or `00`) has its own calling
// code; a national one is read with the calling code of its clinic's own phone number (a clinic in
// Spain stores Spanish numbers nationally). So `612 34 56 89` of a clinic in Spain and
// `+34 612 345 689` are one number, and `06 12 34 56 89` of a clinic in France is another (+33...),
// however many digits they share. A national number of a clinic whose phone has no calling code
// cannot be read, and is never erased by --phone (the dry run lists it as unresolved).
//
// Candidates are found first through the trigram index of interaction_phones (one row per clinic and
// stored number): the last digits of the number in order, with any run of the usual separators
// between them. Each candidate is then parsed and compared exactly.
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';

/** Characters written between the digits of a stored number: spaces (with the no-break ones), brackets, dots, slashes, hyphens and dashes. */
const SEPARATORS = ' \u00a0\u202f()./\u2010\u2011\u2013-';
const SEPARATOR_RUN = `[${SEPARATORS}]*`;

/** How many of the last digits select candidates: enough to be selective, never more than the national number has. */
const SUFFIX_DIGITS = 7;

export class PhoneNumberError extends Error {}

export interface PatientNumber {
  /** E.164, e.g. `+34612345689`. */
  e164: string;
  callingCode: string;
  nationalNumber: string;
}

/**
 * The number to erase: international (`+34 ...`, `0034 ...`) or national with `country` (ISO
 * 3166-1 alpha-2). It must be a possible number of its country (a complete number, not a prefix),
 * so that a typo cannot erase a range of patients.
 */
export function parsePatientNumber(text: string, country?: string): PatientNumber {
  const trimmed = text.trim();
  let defaultCountry: CountryCode | undefined;
  if (country !== undefined) {
    const upper = country.toUpperCase();
    if (!isSupportedCountry(upper))
      throw new PhoneNumberError(`--country: '${country}' is not an ISO 3166-1 alpha-2 country code with a numbering plan (e.g. ES, GB, US)`);
    defaultCountry = upper;
  }
  const international = /^\+|^00/.test(trimmed);
  if (!international && !defaultCountry) {
    throw new PhoneNumberError(
      `'${text}' is not in international form: write it with its country calling code (+34 612 345 689), or give --country for a national number`,
    );
  }
  const parsed = parsePhoneNumberFromString(toPlus(trimmed), defaultCountry ? { defaultCountry } : undefined);
  if (!parsed?.isPossible()) {
    throw new PhoneNumberError(`'${text}' cannot be read as a complete phone number${defaultCountry ? ` of ${defaultCountry}` : ''}`);
  }
  return { e164: parsed.number, callingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber };
}

/** `00` is the international prefix of most of the world: `0034 ...` is `+34 ...`. */
function toPlus(text: string): string {
  return text.startsWith('00') ? `+${text.slice(2)}` : text;
}

/** The calling code of a clinic from its own phone number (`+34 914 35 22 10` -> `34`), or null when it has none. */
export function clinicCallingCode(clinicPhone: string): string | null {
  const trimmed = clinicPhone.trim();
  if (!/^\+|^00/.test(trimmed)) return null;
  return parsePhoneNumberFromString(toPlus(trimmed))?.countryCallingCode ?? null;
}

export type StoredReading = { e164: string } | { unresolved: 'no calling code for the clinic' | 'not a phone number' };

/** The E.164 form of a stored number, read with its clinic's calling code when it is national. */
export function readStoredNumber(stored: string, clinicCallingCodeValue: string | null): StoredReading {
  const trimmed = stored.trim();
  if (/^\+|^00/.test(trimmed)) {
    const parsed = parsePhoneNumberFromString(toPlus(trimmed));
    return parsed ? { e164: parsed.number } : { unresolved: 'not a phone number' };
  }
  if (clinicCallingCodeValue === null) return { unresolved: 'no calling code for the clinic' };
  const parsed = parsePhoneNumberFromString(trimmed, { defaultCallingCode: clinicCallingCodeValue });
  return parsed ? { e164: parsed.number } : { unresolved: 'not a phone number' };
}

/**
 * A PostgreSQL regular expression matching every stored form that ends with the number's last
 * digits (separators allowed between and after them). pg_trgm turns it into index lookups of the
 * trigrams it implies; a wider class such as `\D` would make it scan the whole index.
 */
export function candidatePattern(number: PatientNumber): string {
  const digits = number.nationalNumber.slice(-SUFFIX_DIGITS);
  return `${[...digits].join(SEPARATOR_RUN)}${SEPARATOR_RUN}$`;
}

// The full-text filter (`q` / GraphQL `text`): what a search text may be (checkText) and the
// condition a row meets when its search document matches it (textCondition); how a list that
// searches is read is interactions/text-search.ts.
//
// Every word must appear in the interaction's summary or transcript, case- and accent-insensitively,
// stemmed in its clinic's language (the documents and their text search configurations: migration
// `*_patient_data`). A clinic's words are stemmed by its own configuration, so the query is too:
// one tsquery per language among the clinics (plainto_tsquery: the text is words, never tsquery
// syntax). The documents are matched by any of them through the GIN index, and, when the clinics
// speak more than one language, each match is confirmed with its own clinic's query (a Spanish
// stem must not match an English document that happens to hold the same letters).
import { columnOf } from '../db/client.js';
import { hasControlCharacter } from '../domain/parameters.js';
import { Prisma } from '../generated/prisma/client.js';

/** Longest accepted search text (characters). */
export const MAX_TEXT_LENGTH = 200;
/** Most words in a search text: each is a condition on every candidate document. */
export const MAX_TEXT_WORDS = 16;

/** A word as the search counts them: a run of letters or digits. */
const WORD = /[\p{L}\p{N}]+/gu;

/** Checks a search text: the text, or `problem` called with what is wrong with it. */
export function checkText(raw: string, problem: (message: string) => void): string | undefined {
  const text = raw.trim();
  if (text.length === 0) problem('must not be empty');
  else if ([...text].length > MAX_TEXT_LENGTH) problem(`must be at most ${MAX_TEXT_LENGTH} characters`);
  else if (hasControlCharacter(text)) problem('must not contain control characters');
  else {
    const words = text.match(WORD)?.length ?? 0;
    if (words === 0) problem('must contain at least one word (letters or digits)');
    else if (words > MAX_TEXT_WORDS) problem(`must have at most ${MAX_TEXT_WORDS} words`);
    else return text;
  }
  return undefined;
}

/** The search's tsqueries, one per language the clinics speak (an InitPlan: computed once per statement). */
function queriesOf(text: string): Prisma.Sql {
  return Prisma.sql`ARRAY(SELECT plainto_tsquery(interaction_search_config(l.language), ${text}::text) FROM (SELECT DISTINCT language FROM clinics) AS l)`;
}

/**
 * Whether `document` (of an interaction of clinic `clinic`) matches: through the GIN index by any
 * language's query, then, only when the clinics speak several languages, by its own clinic's.
 */
export function documentMatches(document: Prisma.Sql, clinic: Prisma.Sql, text: string): Prisma.Sql {
  return Prisma.sql`${document} @@ ANY(${queriesOf(text)})
    AND ((SELECT count(DISTINCT interaction_search_config(language)) FROM clinics) <= 1
      OR ${document} @@ plainto_tsquery(interaction_search_config((SELECT c.language FROM clinics c WHERE c.id = ${clinic})), ${text}::text))`;
}

/**
 * The search as a condition on the columns of `interactions` (unqualified, like interactions/rows.ts):
 * each row's document is looked up by its id, so a walk in list order checks rows one by one and
 * stops after the page. (A scalar subquery rather than EXISTS: PostgreSQL would turn EXISTS into a
 * join and, not knowing how common the words are, often search the whole index first.)
 */
export function textCondition(text: string, alias?: string): Prisma.Sql {
  const column = columnOf(alias);
  const document = Prisma.sql`(SELECT d.document FROM interaction_search_documents d WHERE d.interaction_id = ${column('id')})`;
  return documentMatches(document, column('clinic_id'), text);
}

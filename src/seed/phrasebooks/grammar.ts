// Articles and agreements the phrasebooks and the campaign copy need, by the gender of a noun
// (a service) or of the patient.
import type { Noun } from '../locales.js';

export const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Spanish: "una revisión dental", "un empaste". */
export const esUn = (n: Noun): string => `${n.gender === 'f' ? 'una' : 'un'} ${n.text}`;
/** Spanish: "la limpieza dental", "el empaste". */
export const esEl = (n: Noun): string => `${n.gender === 'f' ? 'la' : 'el'} ${n.text}`;
/** Spanish: the ending of an adjective or participle that agrees with a noun or the patient ("reservada", "interesado"). */
export const esO = (female: boolean): string => (female ? 'a' : 'o');

/** French: words that elide the article before them ("l'examen", "d'un"); no service name starts with an h aspiré. */
const frVowel = (word: string): boolean => /^[aeiouyàâéèêîôûh]/i.test(word);
/** French: "un détartrage", "une séance de laser". */
export const frUn = (n: Noun): string => `${n.gender === 'f' ? 'une' : 'un'} ${n.text}`;
/** French: "le détartrage", "la prise de sang", "l'examen de la vue". */
export const frLe = (n: Noun): string => (frVowel(n.text) ? `l'${n.text}` : `${n.gender === 'f' ? 'la' : 'le'} ${n.text}`);
/** French: "son détartrage", "sa prise de sang", "son adaptation de lentilles". */
export const frSon = (n: Noun): string => `${n.gender === 'f' && !frVowel(n.text) ? 'sa' : 'son'} ${n.text}`;
/** French: "de" before a word, elided ("d'un", "d'en parler"). */
export const frDe = (words: string): string => (frVowel(words) ? `d'${words}` : `de ${words}`);
/** French: the ending of a participle or adjective that agrees with a noun or the patient ("réservée", "intéressé"). */
export const frE = (female: boolean): string => (female ? 'e' : '');

type DeCase = 'nom' | 'acc' | 'dat';
const DE_INDEFINITE: Record<DeCase, Record<Noun['gender'], string>> = {
  nom: { m: 'ein', f: 'eine', n: 'ein' },
  acc: { m: 'einen', f: 'eine', n: 'ein' },
  dat: { m: 'einem', f: 'einer', n: 'einem' },
};
const DE_DEFINITE: Record<DeCase, Record<Noun['gender'], string>> = {
  nom: { m: 'der', f: 'die', n: 'das' },
  acc: { m: 'den', f: 'die', n: 'das' },
  dat: { m: 'dem', f: 'der', n: 'dem' },
};
/** German: "eine Zahnreinigung" (nom, acc), "einen Gesundheits-Check-up" (acc), "einer Zahnreinigung" (dat). */
export const deEin = (n: Noun, c: DeCase): string => `${DE_INDEFINITE[c][n.gender]} ${n.text}`;
/** German: "die Zahnreinigung", "den Gesundheits-Check-up", "dem Hautkrebs-Screening". */
export const deDer = (n: Noun, c: DeCase): string => `${DE_DEFINITE[c][n.gender]} ${n.text}`;
/** German: "zur Zahnreinigung", "zum Gesundheits-Check-up" (zu + dative, contracted), with an optional adjective ("zur fälligen ..."). */
export const deZu = (n: Noun, adjective = ''): string => `${n.gender === 'f' ? 'zur' : 'zum'} ${adjective ? `${adjective}en ` : ''}${n.text}`;
/** German: "Ihre regelmäßige Zahnreinigung", "Ihr regelmäßiger Gesundheits-Check-up" (nominative, with an adjective). */
export const deIhrAdjective = (n: Noun, adjective: string): string =>
  n.gender === 'f' ? `Ihre ${adjective}e ${n.text}` : `Ihr ${adjective}${n.gender === 'm' ? 'er' : 'es'} ${n.text}`;
/** German: "Der Patient" / "Die Patientin", and the pronoun ("er" / "sie"). */
export const dePatient = (female: boolean): string => (female ? 'Die Patientin' : 'Der Patient');
export const deEr = (female: boolean): string => (female ? 'sie' : 'er');

// The demo data speaks each clinic's language (Spanish in Spain and Mexico, German, French,
// English in the United Kingdom and the United States): transcripts, summaries and campaign copy,
// with the same shapes and random draws in every language, and the clinic's language stored so
// that search stems its documents in that language.
import { afterEach, describe, expect, it } from 'vitest';
import {
  CAMPAIGN_TYPES,
  type CampaignTypeValue,
  CHANNELS,
  type ChannelValue,
  type InteractionTypeValue,
  OUTCOMES,
  type OutcomeValue,
  TYPES_BY_CHANNEL,
} from '../../src/domain/values.js';
import { type Conversation, converse, type Phrasebook } from '../../src/seed/conversations.js';
import { generateDemoData, type SeedInteraction, type SeedOptions } from '../../src/seed/generate.js';
import { COUNTRIES, type Country, type CountryCode, FEMALE_FIRST_NAMES, type Language, SERVICES, SPECIALTIES } from '../../src/seed/locales.js';
import { PHRASEBOOKS } from '../../src/seed/phrasebooks/index.js';
import { Rng, seedKey } from '../../src/seed/random.js';
import { seedDemoData } from '../../src/seed/seed-database.js';
import { formatSlot } from '../../src/seed/time.js';
import { databaseUrl, sql } from '../helpers/db.js';

const LANGUAGES: readonly Language[] = ['en', 'es', 'de', 'fr'];
const END = new Date('2026-03-15T18:30:00.000Z');

/** Words of each language that every text in it has some of, and that no text in another language has. */
const OWN_WORDS: Record<Language, RegExp> = {
  en: /\b(hi|the|you|your|reply|appointment|please|thank|would)\b/i,
  es: /\b(cita|usted|su|del|hola|gracias|llamada|paciente)\b/i,
  de: /\b(Hallo|Sie|Ihr|Ihre|Ihren|Termin|und|nicht|der|die|das|Der|Die|Das)\b/,
  fr: /\b(bonjour|vous|votre|rendez-vous|appel|merci|du)\b/i,
};

const textOf = (x: { summary: string; transcript: readonly { content: string }[] }): string => [x.summary, ...x.transcript.map((e) => e.content)].join('\n');

function expectInLanguage(text: string, language: Language): void {
  expect(text, text).toMatch(OWN_WORDS[language]);
  for (const other of LANGUAGES) if (other !== language) expect(text, `${other} words in ${language} text:\n${text}`).not.toMatch(OWN_WORDS[other]);
  // Nothing left of a template: no missing value, no doubled or stray spaces.
  expect(text).not.toMatch(/\b(undefined|null|NaN)\b|\$\{|\{\{| {2}| [.,]/);
}

const COUNTRY_OF: Record<Language, CountryCode> = { en: 'GB', es: 'ES', de: 'DE', fr: 'FR' };

describe('phrasebooks', () => {
  it('offer, in every language, as many choices as in English, so that every language makes the same draws', () => {
    const sample = conversation('de', 'whatsapp', 'INBOUND', 'APPOINTMENT_BOOKED', null, 0, true);
    for (const language of LANGUAGES) {
      const p = PHRASEBOOKS[language];
      for (const key of Object.keys(PHRASEBOOKS.en) as (keyof Phrasebook)[]) {
        const english = PHRASEBOOKS.en[key];
        const own = p[key];
        if (Array.isArray(english)) expect((own as readonly unknown[]).length, `${language}.${key}`).toBe(english.length);
        else if (typeof english === 'function') {
          const made = (own as (c: Conversation, x: string) => unknown)(sample, 'x');
          const expected = (english as (c: Conversation, x: string) => unknown)(sample, 'x');
          if (Array.isArray(expected)) expect((made as unknown[]).length, `${language}.${key}`).toBe(expected.length);
        }
      }
    }
  });

  /** Every channel/type pair with each campaign type it can have, as the generator pairs them. */
  type Shape = [ChannelValue, InteractionTypeValue, CampaignTypeValue | null];
  const SHAPES: Shape[] = CHANNELS.flatMap((channel) =>
    TYPES_BY_CHANNEL[channel].flatMap((type): Shape[] => {
      if (type === 'APPOINTMENT_REMINDER') return [[channel, type, 'appointment_reminder']];
      if (type === 'CAMPAIGN_OUTBOUND' || type === 'CAMPAIGN_CALLBACK')
        return CAMPAIGN_TYPES.filter((t) => t !== 'appointment_reminder').map((t) => [channel, type, t]);
      return [[channel, type, null]];
    }),
  );

  it('write every conversation in its language, with the turns, roles and draws of the English one', () => {
    let checked = 0;
    for (const [channel, type, campaignType] of SHAPES)
      for (const outcome of OUTCOMES)
        for (let k = 0; k < SERVICE_LIST.length; k++) {
          const female = k % 2 === 0;
          const english = new Rng(seedKey('languages'), 7, checked);
          const reference = converse(conversation('en', channel, type, outcome, campaignType, k, female), english);
          const after = english.next();
          for (const language of LANGUAGES) {
            const rng = new Rng(seedKey('languages'), 7, checked);
            const made = converse(conversation(language, channel, type, outcome, campaignType, k, female), rng);
            expect(made.transcript.map((e) => e.role)).toEqual(reference.transcript.map((e) => e.role));
            expect(rng.next(), 'the same draws as in English').toBe(after);
            expect(made.summary).toMatch(/^\p{Lu}[^\n]*\.$/u);
            expectInLanguage(textOf(made), language);
          }
          checked++;
        }
    expect(checked).toBe(SHAPES.length * OUTCOMES.length * SERVICE_LIST.length);
  });
});

describe('the generated data (8 clinics: two in Spain, two in the US, one in each other country)', () => {
  const options: SeedOptions = { clinics: 8, interactions: 6_000, days: 30, seed: 'languages-generated', endDate: END };
  const data = generateDemoData(options);
  const interactions = [...data.interactions()];
  const clinics = new Map(data.clinics.map((c) => [c.id, c]));
  const languageOf = (i: SeedInteraction): Language => clinics.get(i.clinicId)!.language;

  afterEach(() => {
    for (const code of Object.keys(SAVED) as CountryCode[]) Object.assign(COUNTRIES[code], SAVED[code]);
  });

  it("gives every clinic its country's language", () => {
    const byPrefix: Record<string, Language> = { '+34': 'es', '+52': 'es', '+44': 'en', '+1': 'en', '+49': 'de', '+33': 'fr' };
    expect(data.clinics.map((c) => [byPrefix[c.phone.split(' ')[0]!], c.language])).toEqual(data.clinics.map((c) => [c.language, c.language]));
    expect(data.clinics.map((c) => c.language)).toEqual(['es', 'en', 'en', 'de', 'fr', 'es', 'es', 'en']);
  });

  it("writes every interaction's summary and transcript, WhatsApp and calls, in its clinic's language", () => {
    for (const language of LANGUAGES) {
      const own = interactions.filter((i) => languageOf(i) === language);
      expect(new Set(own.map((i) => i.channel))).toEqual(new Set(['voice', 'whatsapp']));
      expect(new Set(own.map((i) => i.outcome))).toEqual(new Set(OUTCOMES));
      for (const i of own) expectInLanguage(textOf(i), language);
    }
    const spanish = interactions
      .filter((i) => languageOf(i) === 'es' && i.channel === 'whatsapp')
      .map(textOf)
      .join('\n');
    expect(spanish).toContain('cancelación');
    expect(spanish).toMatch(/Responda SÍ para confirmar/);
    const german = interactions
      .filter((i) => languageOf(i) === 'de')
      .map(textOf)
      .join('\n');
    expect(german).toContain('Termin verschieben');
    const french = interactions
      .filter((i) => languageOf(i) === 'fr')
      .map((i) => i.summary)
      .join('\n');
    expect(french).toMatch(/a annulé son rendez-vous/);
  });

  it("agrees with the patient: both women's and men's forms occur", () => {
    const summaries = (language: Language) => interactions.filter((i) => languageOf(i) === language).map((i) => i.summary);
    expect(summaries('es').some((s) => s.startsWith('La paciente '))).toBe(true);
    expect(summaries('es').some((s) => s.startsWith('El paciente '))).toBe(true);
    expect(summaries('de').some((s) => s.startsWith('Die Patientin '))).toBe(true);
    expect(summaries('de').some((s) => s.startsWith('Der Patient '))).toBe(true);
    expect(summaries('fr').some((s) => s.startsWith('La patiente '))).toBe(true);
    expect(summaries('fr').some((s) => s.startsWith('Le patient '))).toBe(true);
    // Every country's first names are half women's, as the list of women's names says.
    for (const country of Object.values(COUNTRIES))
      expect(
        country.firstNames.filter((n) => FEMALE_FIRST_NAMES.has(n)),
        country.code,
      ).toHaveLength(9);
  });

  it("writes campaign names, descriptions and WhatsApp templates in the clinic's language", () => {
    for (const campaign of data.campaigns) {
      const language = clinics.get(campaign.clinicId)!.language;
      const template = campaign.settings.message_template;
      if (template) expectInLanguage(template.replace(/\{\{(\w+)\}\}/g, 'X'), language);
      if (language !== 'en') expect(`${campaign.name} ${campaign.description}`).not.toMatch(OWN_WORDS.en);
    }
    expect(data.campaigns.find((c) => c.type === 'appointment_reminder' && clinics.get(c.clinicId)!.language === 'de')?.name).toMatch(
      /^(Terminerinnerungen|Terminbestätigung|Erinnerung am Vortag)$/,
    );
  });

  it('is deterministic in every language: the same seed gives deep-equal data', () => {
    const again = generateDemoData(options);
    expect(again.clinics).toEqual(data.clinics);
    expect(again.campaigns).toEqual(data.campaigns);
    expect([...again.interactions()]).toEqual(interactions);
  });

  it("changes only texts: with every clinic speaking English, every number, date, channel, outcome and turn's role is the same", () => {
    for (const code of Object.keys(COUNTRIES) as CountryCode[])
      Object.assign(COUNTRIES[code], { language: 'en', dateStyle: 'en-GB' } satisfies Partial<Country>);
    const english = generateDemoData(options);
    const shape = (i: SeedInteraction) => {
      const { summary, transcript, ...rest } = i;
      return { ...rest, roles: transcript.map((e) => e.role), summary: summary.length > 0 };
    };
    expect([...english.interactions()].map(shape)).toEqual(interactions.map(shape));
    const campaignShape = (c: (typeof data.campaigns)[number]) => ({
      ...c,
      name: undefined,
      description: undefined,
      settings: { ...c.settings, message_template: undefined },
    });
    expect(english.campaigns.map(campaignShape)).toEqual(data.campaigns.map(campaignShape));
    expect(english.clinics.map((c) => ({ ...c, language: undefined }))).toEqual(data.clinics.map((c) => ({ ...c, language: undefined })));
  });
});

describe('seeded clinics (database)', () => {
  it('store their language, and search stems their documents in it, accents and inflections aside', async () => {
    const options: SeedOptions = { clinics: 6, interactions: 3_000, days: 20, seed: 'languages-database', endDate: END };
    const data = generateDemoData(options);
    await seedDemoData(databaseUrl, options);
    const stored = await sql<{ id: string; language: string }>('SELECT id::text, language FROM clinics WHERE id = ANY($1::uuid[]) ORDER BY id', [
      data.clinics.map((c) => c.id),
    ]);
    expect(stored).toEqual([...data.clinics].sort((a, b) => a.id.localeCompare(b.id)).map((c) => ({ id: c.id, language: c.language })));

    const interactions = [...data.interactions()];
    const languageOf = new Map(data.clinics.map((c) => [c.id, c.language]));
    /**
     * Documents of the clinics speaking `language` that match `query` (stemmed in that language),
     * and interactions of theirs whose text has a word the query stands for (`words`).
     */
    const counts = async (language: Language, query: string, words: RegExp) => {
      const ids = data.clinics.filter((c) => c.language === language).map((c) => c.id);
      const [row] = await sql<{ n: string }>(
        'SELECT count(*) AS n FROM interaction_search_documents WHERE clinic_id = ANY($1::uuid[]) AND document @@ plainto_tsquery(interaction_search_config($2), $3)',
        [ids, language, query],
      );
      const texts = interactions.filter((i) => languageOf.get(i.clinicId) === language).map(textOf);
      expect(
        texts.some((t) => new RegExp(`(?<!\\p{L})${query}(?!\\p{L})`, 'iu').test(t)),
        `"${query}" itself is in no ${language} text`,
      ).toBe(false);
      return { documents: Number(row!.n), texts: texts.filter((t) => words.test(t)).length };
    };
    const cases: Array<[Language, string, RegExp]> = [
      // Accents: the query without them finds the word with them.
      ['es', 'cancelacion', /(?<!\p{L})cancelación(?!\p{L})/iu],
      ['de', 'Ruckruf', /(?<!\p{L})Rückruf(?!\p{L})/iu],
      ['fr', 'deplacement', /(?<!\p{L})déplac(?:er|é)(?!\p{L})/iu],
      // Inflections: a form that never occurs finds the ones that do.
      ['es', 'cancelada', /(?<!\p{L})cancel(?:ar|arla|ó)(?!\p{L})/iu],
      ['de', 'Absage', /(?<!\p{L})absagen(?!\p{L})/iu],
      ['fr', 'annulations', /(?<!\p{L})annul(?:er|é|ation)(?!\p{L})/iu],
      ['en', 'cancelling', /\bcancel(?:led)?\b/i],
      ['en', 'rescheduling', /\breschedul(?:e|ed)\b/i],
    ];
    for (const [language, query, words] of cases) {
      const { documents, texts } = await counts(language, query, words);
      expect(texts, `${language} "${query}"`).toBeGreaterThan(10);
      expect(documents, `${language} "${query}"`).toBe(texts);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// A conversation as the generator builds it, in a country of each language.

const SERVICE_LIST = SPECIALTIES.flatMap((s) => SERVICES[s]);
const SAVED = Object.fromEntries(
  (Object.keys(COUNTRIES) as CountryCode[]).map((code) => [code, { language: COUNTRIES[code].language, dateStyle: COUNTRIES[code].dateStyle }]),
) as Record<CountryCode, Pick<Country, 'language' | 'dateStyle'>>;

function conversation(
  language: Language,
  channel: ChannelValue,
  type: InteractionTypeValue,
  outcome: OutcomeValue,
  campaignType: CampaignTypeValue | null,
  serviceIndex: number,
  female: boolean,
): Conversation {
  const country = COUNTRIES[COUNTRY_OF[language]];
  const service = SERVICE_LIST[serviceIndex % SERVICE_LIST.length]!;
  const day = 20_530 + serviceIndex; // days since 1970: March 2026
  return {
    language,
    channel,
    type,
    outcome,
    campaignType,
    clinic: country.clinicNames.dental[0]!.replace('{city}', country.cities[0]!.name).replace('{district}', country.cities[0]!.districts[0]!),
    clinicPhone: '+00 000 000 000',
    agent: country.agentNames[0]!,
    first: female ? country.firstNames.find((n) => FEMALE_FIRST_NAMES.has(n))! : country.firstNames.find((n) => !FEMALE_FIRST_NAMES.has(n))!,
    female,
    service: service.names[language],
    price: country.currency(service.price),
    slot: formatSlot(day + 3, 9 * 60 + 15 * (serviceIndex % 4), country.dateStyle),
    altSlot: formatSlot(day + 4, 13 * 60, country.dateStyle),
    oldSlot: formatSlot(day + 1, 10 * 60 + 30, country.dateStyle),
    missedSlot: formatSlot(day - 2, 17 * 60, country.dateStyle),
    seconds: 30,
  };
}

// The demo-data generator on its own (no database): determinism, and the mixes a demo needs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TYPES,
  CHANNELS,
  directionOfType,
  OUTCOMES,
  type OutcomeValue,
  TYPES_BY_CHANNEL,
} from '../../src/domain/values.js';
import {
  CAMPAIGNS_PER_CLINIC,
  generateDemoData,
  OLDER_DENSITY,
  RECENT_DAYS,
  resolveSeedOptions,
  type SeedCampaign,
  type SeedInteraction,
  SeedOptionError,
  type SeedOptions,
} from '../../src/seed/generate.js';
import type { Language } from '../../src/seed/locales.js';

const END = new Date('2026-03-15T18:30:00.000Z');
const DAY = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function all(options: SeedOptions) {
  const data = generateDemoData(options);
  return { clinics: data.clinics, campaigns: data.campaigns, interactions: [...data.interactions()] };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('determinism', () => {
  const options = { clinics: 3, interactions: 400, days: 30, seed: 'generate-determinism', endDate: END };

  it('gives deep-equal output for the same seed, counts, days and end date, without Math.random or the clock', () => {
    const first = all(options);
    vi.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    vi.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('Date.now used');
    });
    const second = all(options);
    expect(second).toEqual(first);
    expect(first.clinics).toHaveLength(3);
    expect(first.campaigns).toHaveLength(3 * CAMPAIGNS_PER_CLINIC);
    expect(first.interactions).toHaveLength(400);
    // Two passes over the same data give the same sequence.
    const data = generateDemoData(options);
    expect([...data.interactions()]).toEqual([...data.interactions()]);
  });

  it('treats a numeric seed and its decimal string alike, and a different seed gives different data', () => {
    const numeric = all({ ...options, seed: 4242 });
    expect(all({ ...options, seed: '4242' })).toEqual(numeric);
    const other = all({ ...options, seed: 4243 });
    expect(other.clinics.map((c) => c.id)).not.toEqual(numeric.clinics.map((c) => c.id));
    const ids = new Set(numeric.interactions.map((i) => i.id));
    expect(other.interactions.filter((i) => ids.has(i.id))).toHaveLength(0);
    expect(other.interactions.map((i) => i.startedAt.getTime())).not.toEqual(numeric.interactions.map((i) => i.startedAt.getTime()));
  });

  it('keeps ids unique and independent of the end date and of the number of interactions', () => {
    const base = all(options);
    const ids = base.interactions.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [...ids, ...base.clinics.map((c) => c.id), ...base.campaigns.map((c) => c.id)]) expect(id).toMatch(UUID);

    const later = all({ ...options, endDate: new Date(END.getTime() + 3 * DAY) });
    expect(later.clinics.map((c) => c.id)).toEqual(base.clinics.map((c) => c.id));
    expect(later.campaigns.map((c) => c.id)).toEqual(base.campaigns.map((c) => c.id));
    expect(new Set(later.interactions.map((i) => i.id))).toEqual(new Set(ids));

    const more = all({ ...options, interactions: 800 });
    const moreIds = new Set(more.interactions.map((i) => i.id));
    expect(ids.every((id) => moreIds.has(id))).toBe(true);
  });

  it('hands interactions out in chronological order (by the hour)', () => {
    const { interactions } = all(options);
    const hours = interactions.map((i) => Math.floor(i.startedAt.getTime() / 3_600_000));
    // Only the few conversations moved back so as not to end after the end date may be out of order.
    const outOfOrder = hours.filter((h, k) => k > 0 && h < hours[k - 1]!).length;
    expect(outOfOrder).toBeLessThan(interactions.length * 0.02);
  });
});

describe('options', () => {
  it('defaults to 8 clinics, 100,000 interactions over the 550 days ending now, seed 42', () => {
    const now = new Date('2026-01-02T03:04:05.006Z');
    expect(resolveSeedOptions({}, () => now)).toEqual({ clinics: 8, interactions: 100_000, days: 550, seed: 42, endDate: now });
  });

  it.each([
    ['clinics', { clinics: 0 }],
    ['clinics', { clinics: 10_001 }],
    ['interactions', { interactions: -1 }],
    ['interactions', { interactions: 1.5 }],
    ['interactions', { interactions: 20_000_001 }],
    ['days', { days: 0 }],
    ['days', { days: 3651 }],
    ['days', { days: Number.NaN }],
    ['seed', { seed: '' }],
    ['endDate', { endDate: new Date('nope') }],
  ] as const)('rejects a bad %s (%o) naming the option', (option, options) => {
    let error: unknown;
    try {
      resolveSeedOptions(options as SeedOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SeedOptionError);
    expect((error as SeedOptionError).option).toBe(option);
    expect((error as SeedOptionError).message).toContain(option);
  });
});

describe('the mixes (8 clinics, 8,000 interactions over 60 days)', () => {
  const days = 60;
  const data = all({ clinics: 8, interactions: 8_000, days, seed: 'generate-mixes', endDate: END });
  const campaigns = new Map(data.campaigns.map((c) => [c.id, c]));
  const clinics = new Map(data.clinics.map((c) => [c.id, c]));

  const count = <T>(items: T[], key: (item: T) => string): Map<string, number> => {
    const out = new Map<string, number>();
    for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
    return out;
  };

  it('has clinics with names, addresses, phones, emails and IANA time zones in six countries', () => {
    expect(new Set(data.clinics.map((c) => c.name)).size).toBe(8);
    for (const clinic of data.clinics) {
      expect(clinic.address.length).toBeGreaterThan(10);
      expect(clinic.email).toMatch(/^[a-z]+@[a-z0-9]+\.[a-z.]+$/);
      expect(() => new Intl.DateTimeFormat('en', { timeZone: clinic.timezone })).not.toThrow();
      expect(clinic.timezone).toMatch(/^(Europe|America|Atlantic)\//);
      expect(clinic.createdAt.getTime()).toBeLessThan(END.getTime() - days * DAY);
    }
    const prefixes = new Set(data.clinics.map((c) => c.phone.split(' ')[0]));
    expect(prefixes).toEqual(new Set(['+34', '+44', '+1', '+49', '+33', '+52']));
  });

  it('has five campaigns per clinic, of every type, channel and status, with settings that fit the type', () => {
    expect(data.campaigns).toHaveLength(8 * CAMPAIGNS_PER_CLINIC);
    for (const clinic of data.clinics) expect(data.campaigns.filter((c) => c.clinicId === clinic.id)).toHaveLength(CAMPAIGNS_PER_CLINIC);
    expect(new Set(data.campaigns.map((c) => c.type))).toEqual(new Set(CAMPAIGN_TYPES));
    expect(new Set(data.campaigns.map((c) => c.channel))).toEqual(new Set(CAMPAIGN_CHANNELS));
    expect(new Set(data.campaigns.map((c) => c.status))).toEqual(new Set(CAMPAIGN_STATUSES));
    const statuses = count(data.campaigns, (c) => c.status);
    expect(statuses.get('active')).toBeGreaterThan(data.campaigns.length / 2);

    const known = new Set([
      'max_attempts',
      'retry_interval_hours',
      'call_window_start',
      'call_window_end',
      'inactivity_threshold_days',
      'message_template',
      'reminder_hours_before',
      'allow_reschedule',
      'allow_cancel',
    ]);
    for (const campaign of data.campaigns) {
      const s = campaign.settings;
      expect(Object.keys(s).every((k) => known.has(k))).toBe(true);
      expect(campaign.name.length).toBeGreaterThan(3);
      expect(campaign.description.length).toBeGreaterThan(20);
      expect(campaign.updatedAt.getTime()).toBeGreaterThanOrEqual(campaign.createdAt.getTime());
      expect(Number.isInteger(s.max_attempts) && s.max_attempts! >= 1).toBe(true);
      expect(Number.isInteger(s.retry_interval_hours) && s.retry_interval_hours! >= 1).toBe(true);
      if (campaign.channel === 'whatsapp') expect(s.call_window_start).toBeUndefined();
      else {
        expect(s.call_window_start).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
        expect(s.call_window_end).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
        expect(s.call_window_start! < s.call_window_end!).toBe(true);
      }
      if (campaign.channel === 'voice') expect(s.message_template).toBeUndefined();
      else expect(s.message_template).toContain('{{first_name}}');
      if (campaign.type === 'appointment_reminder') {
        expect([24, 48, 72]).toContain(s.reminder_hours_before);
        expect(s.allow_reschedule).toBe(true);
        expect(typeof s.allow_cancel).toBe('boolean');
      } else expect(s.reminder_hours_before).toBeUndefined();
      if (campaign.type === 'reactivation' || campaign.type === 'recall') expect(s.inactivity_threshold_days).toBeGreaterThanOrEqual(90);
      else expect(s.inactivity_threshold_days).toBeUndefined();
    }
  });

  it('covers exactly the seven channel/type pairs, with direction = directionOfType(type)', () => {
    const pairs = count(data.interactions, (i) => `${i.channel}:${i.type}`);
    const valid = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => `${channel}:${type}`));
    expect(new Set(pairs.keys())).toEqual(new Set(valid));
    for (const n of pairs.values()) expect(n).toBeGreaterThan(data.interactions.length * 0.03);
    for (const i of data.interactions) expect(i.direction).toBe(directionOfType(i.type));
  });

  it('covers all nine outcomes; only calls the clinic places go unanswered or to voicemail', () => {
    const outcomes = count(data.interactions, (i) => i.outcome);
    expect(new Set(outcomes.keys())).toEqual(new Set(OUTCOMES));
    expect(outcomes.get('APPOINTMENT_BOOKED')).toBeGreaterThan(data.interactions.length * 0.2);
    for (const i of data.interactions) {
      if (i.outcome === 'NO_ANSWER' || i.outcome === 'VOICEMAIL_REACHED') {
        expect(i.channel).toBe('voice');
        expect(i.direction).toBe('outbound');
      }
    }
    const byChannel = (channel: string) => new Set(data.interactions.filter((i) => i.channel === channel).map((i) => i.outcome));
    expect(byChannel('voice')).toEqual(new Set(OUTCOMES));
    expect(byChannel('whatsapp').has('NO_ANSWER')).toBe(false);
  });

  it('gives calls a duration and a recording, conversations neither, and ends after the start within the period', () => {
    const start = END.getTime() - days * DAY;
    for (const i of data.interactions) {
      expect(i.startedAt.getTime()).toBeGreaterThanOrEqual(start);
      expect(i.endedAt.getTime()).toBeLessThanOrEqual(END.getTime());
      expect(i.endedAt.getTime()).toBeGreaterThan(i.startedAt.getTime());
      if (i.channel === 'voice') {
        expect(Number.isInteger(i.durationSeconds) && i.durationSeconds! > 0).toBe(true);
        expect(i.endedAt.getTime() - i.startedAt.getTime()).toBe(i.durationSeconds! * 1000);
        expect(i.recordingUrl).toMatch(/^https:\/\/\S+\.mp3$/);
      } else {
        expect(i.durationSeconds).toBeNull();
        expect(i.recordingUrl).toBeNull();
        expect(i.endedAt.getTime() - i.startedAt.getTime()).toBeGreaterThanOrEqual(60_000);
      }
    }
    // Spread over the period: every week has interactions.
    const weeks = new Set(data.interactions.map((i) => Math.floor((i.startedAt.getTime() - start) / (7 * DAY))));
    expect(weeks.size).toBe(Math.ceil(days / 7));
  });

  it('starts most interactions in working hours, local to the clinic, and few on Sundays', () => {
    const local = (i: SeedInteraction) => {
      const parts = new Intl.DateTimeFormat('en-US', {
        timeZone: clinics.get(i.clinicId)!.timezone,
        hourCycle: 'h23',
        hour: 'numeric',
        weekday: 'short',
      }).formatToParts(i.startedAt);
      return { hour: Number(parts.find((p) => p.type === 'hour')!.value), weekday: parts.find((p) => p.type === 'weekday')!.value };
    };
    const times = data.interactions.map(local);
    const working = times.filter((t) => t.hour >= 8 && t.hour < 20).length;
    expect(working / times.length).toBeGreaterThan(0.85);
    expect(times.filter((t) => t.weekday === 'Sun').length / times.length).toBeLessThan(0.06);
    // Calls placed by a campaign stay within its calling hours.
    for (const i of data.interactions.filter((x) => x.channel === 'voice' && x.direction === 'outbound' && x.campaignId)) {
      const s = campaigns.get(i.campaignId!)!.settings;
      const parts = new Intl.DateTimeFormat('en-US', {
        timeZone: clinics.get(i.clinicId)!.timezone,
        hourCycle: 'h23',
        hour: '2-digit',
        minute: '2-digit',
      }).format(i.startedAt);
      if (i.endedAt.getTime() < END.getTime()) {
        expect(parts >= s.call_window_start!).toBe(true);
        expect(parts <= s.call_window_end!).toBe(true);
      }
    }
  });

  it('links campaign-driven interactions, and most that patients start, to a running campaign of the same clinic on a compatible channel', () => {
    const driven = new Set(['CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'APPOINTMENT_REMINDER']);
    const used = new Set<string>();
    const started = data.interactions.filter((i) => !driven.has(i.type));
    const withoutCampaign = started.filter((i) => i.campaignId === null).length;
    // A few patients come on their own; a breakdown by campaign leads with named campaigns.
    expect(withoutCampaign).toBeGreaterThan(0);
    expect(withoutCampaign).toBeLessThan(started.length * 0.1);
    for (const i of data.interactions) {
      if (!driven.has(i.type) && i.campaignId === null) continue;
      const campaign: SeedCampaign | undefined = campaigns.get(i.campaignId ?? '');
      expect(campaign).toBeDefined();
      used.add(campaign!.id);
      expect(campaign!.clinicId).toBe(i.clinicId);
      expect([i.channel, 'multi']).toContain(campaign!.channel);
      if (driven.has(i.type)) expect(campaign!.type === 'appointment_reminder').toBe(i.type === 'APPOINTMENT_REMINDER');
      expect(campaign!.createdAt.getTime()).toBeLessThan(i.startedAt.getTime());
      if (campaign!.status !== 'active') expect(i.startedAt.getTime()).toBeLessThanOrEqual(campaign!.updatedAt.getTime());
    }
    expect(used.size).toBeGreaterThan(data.campaigns.length * 0.75);
  });

  it("has a transcript consistent with the outcome and a one-sentence summary for every interaction, in the clinic's language", () => {
    const keywords: Record<Language, Record<OutcomeValue, RegExp>> = {
      en: {
        APPOINTMENT_BOOKED: /booked|scheduled|confirmed/,
        APPOINTMENT_MODIFIED: /rescheduled|moved/,
        APPOINTMENT_CANCELLED: /cancelled/,
        NO_ANSWER: /unanswered/,
        VOICEMAIL_REACHED: /voicemail/,
        CALLBACK_REQUESTED: /call(ed)? back|asked for a call/,
        DECISION_PENDING: /decid|not yet confirmed/,
        OPT_OUT: /not to be contacted/,
        UNREACHABLE: /could not be reached|did not reply|stopped replying/,
      },
      es: {
        APPOINTMENT_BOOKED: /reservó|se le dio cita|Se programó|confirmó/,
        APPOINTMENT_MODIFIED: /cambió su cita|se trasladó/,
        APPOINTMENT_CANCELLED: /canceló/,
        NO_ANSWER: /no fue atendida/,
        VOICEMAIL_REACHED: /buzón de voz/,
        CALLBACK_REQUESTED: /devolviera la llamada|devolvieran la llamada|le llamaran/,
        DECISION_PENDING: /decid|aún no ha confirmado/,
        OPT_OUT: /no se le volviera a contactar/,
        UNREACHABLE: /no se pudo contactar|No se pudo contactar|no respondió|dejó de responder/,
      },
      de: {
        APPOINTMENT_BOOKED: /buchte|erhielt einen Termin|eingeplant|bestätigt/,
        APPOINTMENT_MODIFIED: /verschoben|verlegt/,
        APPOINTMENT_CANCELLED: /abgesagt/,
        NO_ANSWER: /nicht angenommen/,
        VOICEMAIL_REACHED: /Mailbox/,
        CALLBACK_REQUESTED: /Rückruf|bat um einen Anruf/,
        DECISION_PENDING: /entscheidet|noch nicht bestätigt/,
        OPT_OUT: /nicht mehr kontaktiert/,
        UNREACHABLE: /nicht erreichbar|erreichte .+ nicht|nicht geantwortet|antwortete aber nicht mehr/,
      },
      fr: {
        APPOINTMENT_BOOKED: /a réservé|a obtenu un rendez-vous|programmée?|a confirmé/,
        APPOINTMENT_MODIFIED: /déplacé/,
        APPOINTMENT_CANCELLED: /a annulé/,
        NO_ANSWER: /sans réponse/,
        VOICEMAIL_REACHED: /messagerie/,
        CALLBACK_REQUESTED: /rappelée?|rappelle/,
        DECISION_PENDING: /décid|pas encore confirmé/,
        OPT_OUT: /ne plus être contactée?/,
        UNREACHABLE: /pas pu être jointe?|n'a pas répondu|n'a plus répondu/,
      },
    };
    expect(new Set(data.clinics.map((c) => c.language))).toEqual(new Set(['es', 'en', 'de', 'fr']));
    for (const i of data.interactions) {
      expect(i.transcript.length).toBeGreaterThan(0);
      for (const entry of i.transcript) {
        expect(Object.keys(entry).sort()).toEqual(['content', 'role']);
        expect(['assistant', 'user']).toContain(entry.role);
        expect(entry.content.trim().length).toBeGreaterThan(0);
      }
      const roles = new Set(i.transcript.map((e) => e.role));
      const nobodyAnswered = i.outcome === 'NO_ANSWER' || (i.outcome === 'UNREACHABLE' && i.channel === 'whatsapp' && i.type !== 'INBOUND');
      if (nobodyAnswered) expect(roles).toEqual(new Set(['assistant']));
      else expect(roles).toEqual(new Set(['assistant', 'user']));
      if (['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED', 'CALLBACK_REQUESTED', 'DECISION_PENDING'].includes(i.outcome))
        expect(i.transcript.length).toBeGreaterThanOrEqual(3);
      expect(i.summary).toMatch(keywords[clinics.get(i.clinicId)!.language][i.outcome]);
      expect(i.summary).toMatch(/^\p{Lu}.*\.$/u);
      // The full stop of a German date ("14. März") ends no sentence.
      expect(i.summary.split(/(?<!\d)\.\s/)).toHaveLength(1);
    }
  });

  it('uses patient numbers in the formats of several countries, and patients who come back', () => {
    const formats: Record<string, RegExp> = {
      ES: /^\+34 [67]\d{2} \d{3} \d{3}$/,
      GB: /^\+44 7\d{3} \d{6}$/,
      US: /^\+1 \(\d{3}\) 555-\d{4}$/,
      DE: /^\+49 1[5-7]\d{2} \d{7}$/,
      FR: /^\+33 [67]( \d{2}){4}$/,
      MX: /^\+52 (\d{2} \d{4} \d{4}|\d{3} \d{3} \d{4})$/,
    };
    const seen = new Set<string>();
    for (const i of data.interactions) {
      const country = Object.keys(formats).find((c) => formats[c]!.test(i.phoneNumber));
      expect(country, i.phoneNumber).toBeDefined();
      seen.add(country!);
    }
    expect(seen).toEqual(new Set(Object.keys(formats)));
    const numbers = count(data.interactions, (i) => i.phoneNumber);
    expect(numbers.size).toBeLessThan(data.interactions.length * 0.7);
    expect(numbers.size).toBeGreaterThan(data.interactions.length * 0.2);
  });
});

describe('a period longer than RECENT_DAYS (540 days, 20,000 interactions)', () => {
  const days = 540;
  const { interactions } = all({ clinics: 4, interactions: 20_000, days, seed: 'generate-long', endDate: END });
  const perDay = (fromDaysBack: number, toDaysBack: number) =>
    interactions.filter((i) => {
      const back = (END.getTime() - i.startedAt.getTime()) / DAY;
      return back >= toDaysBack && back < fromDaysBack;
    }).length /
    (fromDaysBack - toDaysBack);

  it(`has the last ${RECENT_DAYS} days at full density and the days before at ${OLDER_DENSITY} of it, every month with interactions`, () => {
    const ratio = perDay(days, RECENT_DAYS) / perDay(RECENT_DAYS, 0);
    expect(ratio).toBeGreaterThan(OLDER_DENSITY * 0.8);
    expect(ratio).toBeLessThan(OLDER_DENSITY * 1.2);
    // Every 30 days of the period, the oldest included, have interactions (year-over-year comparisons find data).
    for (let back = 0; back + 30 <= days; back += 30) expect(perDay(back + 30, back), `${back} days back`).toBeGreaterThan(0);
  });
});

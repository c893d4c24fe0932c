// Deterministic demo data: clinics, their campaigns, and a stream of interactions, as plain objects.
// Pure: the output is a function of (seed, counts, days, endDate) only. Every record has its own
// random stream positioned by (seed, kind, index), so ids never depend on how many records follow
// and interactions are produced one at a time (bounded memory, however many are asked for).
import {
  CAMPAIGN_TYPES,
  type CampaignChannelValue,
  type CampaignStatusValue,
  type CampaignTypeValue,
  CHANNELS,
  type ChannelValue,
  type DirectionValue,
  directionOfType,
  type InteractionTypeValue,
  OUTCOMES,
  type OutcomeValue,
  TYPES_BY_CHANNEL,
} from '../domain/values.js';
import { type CampaignSettings, campaignCopy, campaignSettings, minutesOf } from './campaigns.js';
import { type Conversation, converse, type TranscriptEntry } from './conversations.js';
import {
  type City,
  CLINIC_COUNTRY_ORDER,
  COUNTRIES,
  COUNTRY_CODES,
  type Country,
  FEMALE_FIRST_NAMES,
  type Language,
  SERVICES,
  SPECIALTIES,
  type Specialty,
} from './locales.js';
import { cumulative, Rng, recordUuid, type SeedKey, Stream, seedKey } from './random.js';
import { DAY_MS, formatSlot, fromLocal, HOUR_MS, MINUTE_MS, toLocal, weekdayOf } from './time.js';

export type { CampaignSettings } from './campaigns.js';
export type { TranscriptEntry } from './conversations.js';

// 550 days: a year-over-year comparison of any of the last six months, or of the last whole quarter,
// finds the same dates a year earlier in the data (so do both DST changes of the last year).
export const SEED_DEFAULTS = { clinics: 8, interactions: 100_000, days: 550, seed: 42 } as const;
export const SEED_LIMITS = {
  clinics: { min: 1, max: 10_000 },
  interactions: { min: 1, max: 20_000_000 },
  days: { min: 1, max: 3650 },
} as const;
export const CAMPAIGNS_PER_CLINIC = 5;

/**
 * How the interactions spread over the period: the last RECENT_DAYS at full density, the days
 * before at OLDER_DENSITY of it. A long period then costs little more to seed than its last months
 * (the demo's 100,000 interactions: about 50,000 in the last 90 days, as many in the 460 before).
 */
export const RECENT_DAYS = 90;
export const OLDER_DENSITY = 0.2;

/**
 * Share of the interactions a patient starts (INBOUND, and FORM_OUTBOUND, which answers a form the
 * patient sent) that answer one of the clinic's campaigns on their channel, and count for it. With
 * the campaign-driven ones, nearly every interaction has a campaign, so a breakdown by campaign
 * leads with named campaigns rather than with the group without one.
 */
export const ANSWERED_CAMPAIGN_SHARE = 0.95;

export interface SeedOptions {
  clinics?: number;
  interactions?: number;
  days?: number;
  seed?: string | number;
  /** End of the period (default: now). */
  endDate?: Date;
}

export interface ResolvedSeedOptions {
  clinics: number;
  interactions: number;
  days: number;
  seed: string | number;
  endDate: Date;
}

/** An invalid seeding option; `option` is its name (clinics, interactions, days, seed, endDate). */
export class SeedOptionError extends RangeError {
  constructor(
    readonly option: keyof SeedOptions,
    message: string,
  ) {
    super(message);
    this.name = 'SeedOptionError';
  }
}

export function resolveSeedOptions(options: SeedOptions = {}, now: () => Date = () => new Date()): ResolvedSeedOptions {
  const count = (name: keyof typeof SEED_LIMITS): number => {
    const value = options[name] ?? SEED_DEFAULTS[name];
    const { min, max } = SEED_LIMITS[name];
    if (!Number.isSafeInteger(value) || value < min || value > max)
      throw new SeedOptionError(name, `${name} must be an integer from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')} (got ${value})`);
    return value;
  };
  const seed = options.seed ?? SEED_DEFAULTS.seed;
  if ((typeof seed === 'number' && !Number.isFinite(seed)) || String(seed).length === 0 || String(seed).length > 200)
    throw new SeedOptionError('seed', 'seed must be a finite number or a non-empty string of at most 200 characters');
  const endDate = options.endDate ?? now();
  if (!(endDate instanceof Date) || Number.isNaN(endDate.getTime())) throw new SeedOptionError('endDate', 'endDate must be a valid date');
  return { clinics: count('clinics'), interactions: count('interactions'), days: count('days'), seed, endDate: new Date(endDate.getTime()) };
}

export interface SeedClinic {
  id: string;
  name: string;
  address: string;
  phone: string;
  email: string;
  timezone: string;
  /** What the clinic speaks to patients in (ISO 639-1), its transcripts' and summaries' language. */
  language: Language;
  createdAt: Date;
}

export interface SeedCampaign {
  id: string;
  name: string;
  description: string;
  type: CampaignTypeValue;
  channel: CampaignChannelValue;
  status: CampaignStatusValue;
  clinicId: string;
  createdAt: Date;
  updatedAt: Date;
  settings: CampaignSettings;
}

export interface SeedInteraction {
  id: string;
  channel: ChannelValue;
  type: InteractionTypeValue;
  direction: DirectionValue;
  phoneNumber: string;
  clinicId: string;
  campaignId: string | null;
  startedAt: Date;
  endedAt: Date;
  durationSeconds: number | null;
  outcome: OutcomeValue;
  summary: string;
  recordingUrl: string | null;
  transcript: TranscriptEntry[];
}

export interface DemoData {
  options: ResolvedSeedOptions;
  clinics: SeedClinic[];
  campaigns: SeedCampaign[];
  /** A fresh, lazy pass over the interactions each time it is called (always the same sequence). */
  interactions(): Generator<SeedInteraction>;
}

// ---------------------------------------------------------------------------------------------
// The mixes.

interface Pair {
  channel: ChannelValue;
  type: InteractionTypeValue;
}

/** The seven channel/type pairs, in the order of the vocabulary. */
const PAIRS: readonly Pair[] = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => ({ channel, type })));

/** Share of each pair (per 100) before a clinic's WhatsApp affinity is applied. */
const PAIR_WEIGHTS: Record<string, number> = {
  'voice:INBOUND': 22,
  'voice:FORM_OUTBOUND': 8,
  'voice:CAMPAIGN_OUTBOUND': 20,
  'voice:CAMPAIGN_CALLBACK': 6,
  'whatsapp:INBOUND': 14,
  'whatsapp:CAMPAIGN_OUTBOUND': 12,
  'whatsapp:APPOINTMENT_REMINDER': 18,
};

/**
 * Outcome distribution of each pair, in the order of OUTCOMES: BOOKED, MODIFIED, CANCELLED,
 * NO_ANSWER, VOICEMAIL, CALLBACK, PENDING, OPT_OUT, UNREACHABLE. Only calls the clinic places can go
 * unanswered or to voicemail; an ignored WhatsApp message counts as UNREACHABLE.
 */
const OUTCOME_WEIGHTS: Record<string, readonly number[]> = {
  'voice:INBOUND': [38, 14, 9, 0, 0, 12, 20, 1, 3],
  'voice:FORM_OUTBOUND': [32, 3, 2, 18, 13, 10, 14, 2, 6],
  'voice:CAMPAIGN_OUTBOUND': [20, 5, 3, 23, 17, 9, 12, 4, 7],
  'voice:CAMPAIGN_CALLBACK': [38, 6, 4, 14, 9, 5, 16, 3, 5],
  'whatsapp:INBOUND': [36, 16, 12, 0, 0, 10, 18, 2, 6],
  'whatsapp:CAMPAIGN_OUTBOUND': [22, 3, 3, 0, 0, 8, 22, 7, 35],
  'whatsapp:APPOINTMENT_REMINDER': [44, 14, 10, 0, 0, 4, 8, 2, 18],
};

const pairKey = (p: Pair): string => `${p.channel}:${p.type}`;
for (const pair of PAIRS) {
  if (PAIR_WEIGHTS[pairKey(pair)] === undefined || OUTCOME_WEIGHTS[pairKey(pair)]?.length !== OUTCOMES.length)
    throw new Error(`demo data: no weights for ${pairKey(pair)}`);
}
const OUTCOME_CUMULATIVE = PAIRS.map((p) => cumulative(OUTCOME_WEIGHTS[pairKey(p)]!));

/** Call length in seconds by outcome: [min, max], most calls near the middle. */
const CALL_SECONDS: Record<OutcomeValue, readonly [number, number]> = {
  APPOINTMENT_BOOKED: [110, 420],
  APPOINTMENT_MODIFIED: [80, 300],
  APPOINTMENT_CANCELLED: [50, 200],
  NO_ANSWER: [18, 45],
  VOICEMAIL_REACHED: [25, 70],
  CALLBACK_REQUESTED: [35, 150],
  DECISION_PENDING: [90, 320],
  OPT_OUT: [20, 90],
  UNREACHABLE: [4, 25],
};

/** When things happen, in the clinic's local time: weekday acceptance (Mon..Sun) and hour weights. */
interface TimeProfile {
  weekdays: readonly number[];
  hours: readonly number[];
}

const hours = (weights: Record<number, number>): number[] => cumulative(Array.from({ length: 24 }, (_, h) => weights[h] ?? 0));

const PROFILES = {
  // The voice assistant answers around the clock; most calls still come in office hours.
  voiceInbound: {
    weekdays: [1, 0.95, 0.95, 0.95, 0.85, 0.4, 0.15],
    hours: hours({
      0: 0.3,
      1: 0.2,
      2: 0.1,
      3: 0.1,
      4: 0.1,
      5: 0.2,
      6: 0.4,
      7: 1.2,
      8: 4,
      9: 7,
      10: 8,
      11: 7.5,
      12: 6,
      13: 4.5,
      14: 5,
      15: 6.5,
      16: 6.5,
      17: 5.5,
      18: 4,
      19: 2.5,
      20: 1.5,
      21: 1,
      22: 0.7,
      23: 0.5,
    }),
  },
  whatsappInbound: {
    weekdays: [1, 1, 1, 1, 0.95, 0.6, 0.45],
    hours: hours({
      0: 0.6,
      1: 0.3,
      2: 0.1,
      3: 0.1,
      4: 0.1,
      5: 0.2,
      6: 0.6,
      7: 1.5,
      8: 3,
      9: 4.5,
      10: 5,
      11: 5,
      12: 5.5,
      13: 5.5,
      14: 4.5,
      15: 4.5,
      16: 4.5,
      17: 5,
      18: 5.5,
      19: 6,
      20: 6.5,
      21: 6,
      22: 4,
      23: 2,
    }),
  },
  office: {
    weekdays: [1, 1, 1, 1, 0.95, 0.2, 0],
    hours: hours({ 9: 5, 10: 6, 11: 6, 12: 5, 13: 3, 14: 4, 15: 5, 16: 5, 17: 4, 18: 3 }),
  },
  reminders: {
    weekdays: [1, 1, 1, 1, 1, 0.3, 0.2],
    hours: hours({ 9: 2, 10: 6, 11: 3, 12: 1, 16: 2, 17: 5, 18: 3 }),
  },
} satisfies Record<string, TimeProfile>;

// ---------------------------------------------------------------------------------------------
// Internal models: what the interaction loop needs about clinics and campaigns.

interface CampaignModel {
  row: SeedCampaign;
  /** Calling hours in minutes after local midnight, when the campaign calls. */
  window: readonly [number, number] | null;
  /** When a paused or completed campaign stopped (ms); interactions come before it. */
  stoppedAt: number | null;
  reminderDays: number;
}

interface CampaignChoice {
  items: CampaignModel[];
  cumulative: number[];
}

interface ClinicModel {
  index: number;
  row: SeedClinic;
  country: Country;
  city: City;
  specialty: Specialty;
  agent: string;
  volume: number;
  pairCumulative: number[];
  patients: number;
  voiceCampaigns: CampaignChoice;
  whatsappCampaigns: CampaignChoice;
  reminderCampaigns: CampaignChoice;
  /** Any campaign of the clinic on the channel: what an interaction the patient starts answers. */
  answeredCampaigns: Record<ChannelValue, CampaignChoice>;
}

function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

function buildClinics(key: SeedKey, options: ResolvedSeedOptions, windowStart: number): ClinicModel[] {
  const rng = new Rng(key);
  const offsets = new Rng(key, Stream.clinic, 0x7fffffff);
  const cityOffset = Object.fromEntries(COUNTRY_CODES.map((code) => [code, offsets.int(0, 99)]));
  const specialtyOffset = offsets.int(0, SPECIALTIES.length - 1);
  const seen: Record<string, number> = {};
  const names = new Set<string>();
  const clinics: ClinicModel[] = [];

  for (let c = 0; c < options.clinics; c++) {
    rng.reseed(Stream.clinic, c);
    const id = recordUuid(key, Stream.clinic, c, rng);
    const code = CLINIC_COUNTRY_ORDER[c % CLINIC_COUNTRY_ORDER.length]!;
    const country = COUNTRIES[code];
    const occurrence = seen[code] ?? 0;
    seen[code] = occurrence + 1;
    const city = country.cities[(cityOffset[code]! + occurrence) % country.cities.length]!;
    const specialty = SPECIALTIES[(specialtyOffset + c) % SPECIALTIES.length]!;

    const patterns = country.clinicNames[specialty];
    let name = '';
    for (let attempt = 0; attempt < 6 && (name === '' || names.has(name)); attempt++)
      name = rng.pick(patterns).replace('{city}', city.name).replace('{district}', rng.pick(city.districts));
    if (names.has(name)) name = `${name} ${occurrence + 1}`;
    names.add(name);

    const createdAt = windowStart - rng.int(200, 1500) * DAY_MS - rng.int(0, DAY_MS - 1);
    const row: SeedClinic = {
      id,
      name,
      address: country.address(rng, city),
      phone: country.landline(rng, city),
      email: `${rng.pick(country.emailLocalParts)}@${slug(name)}.${country.emailDomain}`,
      timezone: city.timezone,
      language: country.language,
      createdAt: new Date(createdAt),
    };
    const pairWeights = PAIRS.map((p) => PAIR_WEIGHTS[pairKey(p)]! * (p.channel === 'whatsapp' ? country.whatsappAffinity : 1) * rng.between(0.85, 1.15));
    const empty: CampaignChoice = { items: [], cumulative: [] };
    clinics.push({
      index: c,
      row,
      country,
      city,
      specialty,
      agent: rng.pick(country.agentNames),
      volume: rng.between(0.6, 1.6),
      pairCumulative: cumulative(pairWeights),
      patients: 0,
      voiceCampaigns: empty,
      whatsappCampaigns: empty,
      reminderCampaigns: empty,
      answeredCampaigns: { voice: empty, whatsapp: empty },
    });
  }

  const totalVolume = clinics.reduce((sum, clinic) => sum + clinic.volume, 0);
  for (const clinic of clinics) clinic.patients = Math.max(25, Math.ceil((options.interactions * clinic.volume) / totalVolume / 2.5));
  return clinics;
}

/** Slot j of each clinic: 0-2 always run for the whole period so every campaign-driven pair has a campaign. */
const OTHER_TYPES: readonly CampaignTypeValue[] = ['reactivation', 'follow_up', 'recall', 'custom'];

function slotPlan(rng: Rng, clinic: number, slot: number): { type: CampaignTypeValue; channel: CampaignChannelValue; status: CampaignStatusValue } {
  switch (slot) {
    case 0:
      return { type: 'appointment_reminder', channel: rng.chance(0.7) ? 'whatsapp' : 'multi', status: 'active' };
    case 1:
      return { type: 'no_show_recovery', channel: rng.chance(0.55) ? 'voice' : 'multi', status: 'active' };
    case 2:
      return { type: OTHER_TYPES[(2 * clinic) % 4]!, channel: rng.chance(0.6) ? 'whatsapp' : 'multi', status: 'active' };
    default: {
      const type = slot === 3 ? OTHER_TYPES[(2 * clinic + 1) % 4]! : rng.pick(CAMPAIGN_TYPES);
      const channel = rng.pick<CampaignChannelValue>(['voice', 'voice', 'whatsapp', 'multi', 'multi']);
      const roll = rng.next();
      return { type, channel, status: roll < 0.6 ? 'active' : roll < 0.8 ? 'paused' : 'completed' };
    }
  }
}

function buildCampaigns(key: SeedKey, clinics: ClinicModel[], timeline: Timeline): SeedCampaign[] {
  const rng = new Rng(key);
  const rows: SeedCampaign[] = [];
  const { start: windowStart, end: windowEnd } = timeline;
  for (const clinic of clinics) {
    const models: CampaignModel[] = [];
    const weights: number[] = [];
    const taken = new Set<string>();
    for (let j = 0; j < CAMPAIGNS_PER_CLINIC; j++) {
      const index = clinic.index * CAMPAIGNS_PER_CLINIC + j;
      rng.reseed(Stream.campaign, index);
      const id = recordUuid(key, Stream.campaign, index, rng);
      const plan = slotPlan(rng, clinic.index, j);
      const settings = campaignSettings(rng, clinic.country.language, plan.type, plan.channel);
      const { name, description } = campaignCopy(rng, clinic.country.language, plan.type, settings, rng.pick(SERVICES[clinic.specialty]), taken);
      taken.add(name);
      const earliest = Math.max(clinic.row.createdAt.getTime() + DAY_MS, windowStart - 200 * DAY_MS);
      const createdAt = Math.floor(rng.between(earliest, windowStart - DAY_MS));
      // A paused or completed campaign stopped after 25% to 85% of the period's interactions.
      const stoppedAt = plan.status === 'active' ? null : Math.floor(timeline.at(rng.between(0.25, 0.85), windowStart, windowEnd));
      const updatedAt = stoppedAt ?? Math.floor(rng.between(createdAt, Math.min(windowEnd, createdAt + 120 * DAY_MS)));
      const row: SeedCampaign = {
        id,
        name,
        description,
        type: plan.type,
        channel: plan.channel,
        status: plan.status,
        clinicId: clinic.row.id,
        createdAt: new Date(createdAt),
        updatedAt: new Date(updatedAt),
        settings,
      };
      rows.push(row);
      models.push({
        row,
        window: settings.call_window_start && settings.call_window_end ? [minutesOf(settings.call_window_start), minutesOf(settings.call_window_end)] : null,
        stoppedAt,
        reminderDays: Math.max(1, Math.round((settings.reminder_hours_before ?? 24) / 24)),
      });
      // Busier for longer: a campaign stopped halfway through the period's interactions gets half the traffic.
      weights.push(rng.between(0.6, 1.4) * timeline.share(windowStart, stoppedAt ?? windowEnd));
    }
    const choose = (accept: (m: CampaignModel) => boolean): CampaignChoice => {
      const items: CampaignModel[] = [];
      const w: number[] = [];
      models.forEach((m, k) => {
        if (accept(m)) {
          items.push(m);
          w.push(weights[k]!);
        }
      });
      return { items, cumulative: cumulative(w) };
    };
    clinic.voiceCampaigns = choose((m) => m.row.type !== 'appointment_reminder' && m.row.channel !== 'whatsapp');
    clinic.whatsappCampaigns = choose((m) => m.row.type !== 'appointment_reminder' && m.row.channel !== 'voice');
    clinic.reminderCampaigns = choose((m) => m.row.type === 'appointment_reminder' && m.row.channel !== 'voice');
    clinic.answeredCampaigns = { voice: choose((m) => m.row.channel !== 'whatsapp'), whatsapp: choose((m) => m.row.channel !== 'voice') };
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Interactions.

/** The period, and how densely its instants are drawn (RECENT_DAYS, OLDER_DENSITY). */
class Timeline {
  /** Where full density starts. */
  private readonly recentFrom: number;
  /** The weight of the days before recentFrom (full density weighs 1 per ms). */
  private readonly olderWeight: number;

  constructor(
    readonly start: number,
    readonly end: number,
  ) {
    this.recentFrom = Math.max(start, end - RECENT_DAYS * DAY_MS);
    this.olderWeight = (this.recentFrom - start) * OLDER_DENSITY;
  }

  /** The weight of [start, t]. */
  private weight(t: number): number {
    const at = Math.min(this.end, Math.max(this.start, t));
    return at <= this.recentFrom ? (at - this.start) * OLDER_DENSITY : this.olderWeight + (at - this.recentFrom);
  }

  /** The share of the period's interactions in [lo, hi]. */
  share(lo: number, hi: number): number {
    return (this.weight(hi) - this.weight(lo)) / this.weight(this.end);
  }

  /** The instant of [lo, hi] at `u` (in [0, 1)) of their weight: a uniform `u` draws instants at the period's density. */
  at(u: number, lo: number, hi: number): number {
    const w = this.weight(lo) + u * (this.weight(hi) - this.weight(lo));
    return w <= this.olderWeight && this.olderWeight > 0 ? this.start + w / OLDER_DENSITY : this.recentFrom + (w - this.olderWeight);
  }
}

/** A start instant in [lo, hi], at the timeline's density, that follows the profile in the clinic's local time. */
function sampleStart(
  rng: Rng,
  timeline: Timeline,
  timeZone: string,
  profile: TimeProfile,
  window: readonly [number, number] | null,
  lo: number,
  hi: number,
): number {
  for (let attempt = 0; attempt < 40; attempt++) {
    const localDay = Math.floor(toLocal(timeZone, timeline.at(rng.next(), lo, hi)) / DAY_MS);
    if (rng.next() >= profile.weekdays[weekdayOf(localDay)]!) continue;
    const msOfDay = window
      ? Math.floor(rng.between(window[0] * MINUTE_MS, window[1] * MINUTE_MS))
      : rng.weighted(profile.hours) * HOUR_MS + rng.int(0, HOUR_MS - 1);
    const t = fromLocal(timeZone, localDay * DAY_MS + msOfDay);
    if (t >= lo && t <= hi) return t;
  }
  return Math.floor(timeline.at(rng.next(), lo, hi));
}

/** A weekday (not Sunday) `days` after `day`, at a bookable time: [day number, minute of day]. */
function appointment(rng: Rng, day: number, minDays: number, maxDays: number, not?: number): [number, number] {
  let d = day + rng.int(minDays, maxDays);
  if (d === not) d += 1;
  if (weekdayOf(d) === 6) d += d < day ? -1 : 1;
  return [d, 9 * 60 + 15 * rng.int(0, 38)];
}

/** Types a campaign places: each has one (the others may answer one: ANSWERED_CAMPAIGN_SHARE). */
function isCampaignDriven(type: InteractionTypeValue): boolean {
  return type === 'CAMPAIGN_OUTBOUND' || type === 'CAMPAIGN_CALLBACK' || type === 'APPOINTMENT_REMINDER';
}

/** What an interaction's first draws decide: enough to know when it starts. */
interface Plan {
  clinic: ClinicModel;
  pairIndex: number;
  outcome: OutcomeValue;
  campaign: CampaignModel | null;
  started: number;
}

class InteractionFactory {
  private readonly rng: Rng;
  private readonly patientRng: Rng;
  private readonly clinicCumulative: number[];
  private readonly idWords = new Uint32Array(3);

  constructor(
    private readonly key: SeedKey,
    private readonly clinics: ClinicModel[],
    private readonly timeline: Timeline,
  ) {
    this.rng = new Rng(key);
    this.patientRng = new Rng(key);
    this.clinicCumulative = cumulative(clinics.map((c) => c.volume));
  }

  /** Positions the record's stream and makes the draws up to its start time. */
  plan(i: number): Plan {
    const rng = this.rng.reseed(Stream.interaction, i);
    // The id's random part comes first, so that it depends on nothing but the seed and the index.
    this.idWords[0] = rng.u32();
    this.idWords[1] = rng.u32();
    this.idWords[2] = rng.u32();
    const clinic = this.clinics[rng.weighted(this.clinicCumulative)]!;
    const pairIndex = rng.weighted(clinic.pairCumulative);
    const { channel, type } = PAIRS[pairIndex]!;
    const outcome = OUTCOMES[rng.weighted(OUTCOME_CUMULATIVE[pairIndex]!)]!;

    let campaign: CampaignModel | null = null;
    if (isCampaignDriven(type)) {
      const choice = type === 'APPOINTMENT_REMINDER' ? clinic.reminderCampaigns : channel === 'voice' ? clinic.voiceCampaigns : clinic.whatsappCampaigns;
      campaign = choice.items[rng.weighted(choice.cumulative)]!;
    } else if (rng.chance(ANSWERED_CAMPAIGN_SHARE)) {
      const choice = clinic.answeredCampaigns[channel];
      campaign = choice.items[rng.weighted(choice.cumulative)] ?? null;
    }
    const profile =
      type === 'INBOUND'
        ? channel === 'voice'
          ? PROFILES.voiceInbound
          : PROFILES.whatsappInbound
        : type === 'APPOINTMENT_REMINDER'
          ? PROFILES.reminders
          : PROFILES.office;
    const window = type === 'INBOUND' || type === 'APPOINTMENT_REMINDER' ? null : (campaign?.window ?? null);
    const { timeline } = this;
    const started = sampleStart(rng, timeline, clinic.row.timezone, profile, window, timeline.start, campaign?.stoppedAt ?? timeline.end);
    return { clinic, pairIndex, outcome, campaign, started };
  }

  /** Record `i` in full. */
  build(i: number): SeedInteraction {
    const { clinic, pairIndex, outcome, campaign, started: start } = this.plan(i);
    const { rng, patientRng } = this;
    const windowEnd = this.timeline.end;
    const id = recordUuid(this.key, Stream.interaction, i, this.idWords);
    const { channel, type } = PAIRS[pairIndex]!;
    const timezone = clinic.row.timezone;
    let started = start;

    let durationSeconds: number | null = null;
    let ended: number;
    if (channel === 'voice') {
      const [min, max] = CALL_SECONDS[outcome];
      durationSeconds = Math.round(rng.around(min, max));
      ended = started + durationSeconds * 1000;
    } else {
      // A WhatsApp conversation stays open from minutes to hours; an unanswered one closes after most of a day's silence.
      const minutes = outcome === 'UNREACHABLE' ? rng.between(240, 1200) : type === 'INBOUND' ? rng.between(2, 90) : 3 + rng.next() ** 2 * 360;
      ended = started + Math.round(minutes * MINUTE_MS);
    }
    // Nothing ends after the end of the period.
    if (ended > windowEnd) {
      started -= ended - windowEnd;
      ended = windowEnd;
    }
    // The patient: one of the clinic's regulars, with the same name and number every time.
    patientRng.reseed(Stream.patient, rng.int(0, clinic.patients - 1), clinic.index);
    const foreign = patientRng.chance(0.08);
    const patientCountry = foreign ? COUNTRIES[patientRng.pick(COUNTRY_CODES)] : clinic.country;
    const first = patientRng.pick(patientCountry.firstNames);
    const phoneNumber = patientCountry.mobile(patientRng, patientCountry === clinic.country ? clinic.city : patientCountry.cities[0]!);

    const service = rng.pick(SERVICES[clinic.specialty]);
    const { language, dateStyle } = clinic.country;
    const today = Math.floor(toLocal(timezone, started) / DAY_MS);
    const [slotDay, slotMinute] = appointment(rng, today, 1, 14);
    const [altDay, altMinute] = appointment(rng, today, 1, 14, slotDay);
    const [oldDay, oldMinute] =
      type === 'APPOINTMENT_REMINDER' && campaign ? appointment(rng, today, campaign.reminderDays, campaign.reminderDays) : appointment(rng, today, 1, 12);
    const [missedDay, missedMinute] = appointment(rng, today, -7, -1);

    const conversation: Conversation = {
      language,
      channel,
      type,
      outcome,
      // What the clinic says it is getting in touch about; a conversation the patient starts is their own.
      campaignType: isCampaignDriven(type) ? (campaign?.row.type ?? null) : null,
      clinic: clinic.row.name,
      clinicPhone: clinic.row.phone,
      agent: clinic.agent,
      first,
      female: FEMALE_FIRST_NAMES.has(first),
      service: service.names[language],
      price: clinic.country.currency(service.price),
      slot: formatSlot(slotDay, slotMinute, dateStyle),
      altSlot: formatSlot(altDay, altMinute, dateStyle),
      oldSlot: formatSlot(oldDay, oldMinute, dateStyle),
      missedSlot: formatSlot(missedDay, missedMinute, dateStyle),
      seconds: durationSeconds ?? 0,
    };
    const { transcript, summary } = converse(conversation, rng);

    return {
      id,
      channel,
      type,
      direction: directionOfType(type),
      phoneNumber,
      clinicId: clinic.row.id,
      campaignId: campaign?.row.id ?? null,
      startedAt: new Date(started),
      endedAt: new Date(ended),
      durationSeconds,
      outcome,
      summary,
      recordingUrl: channel === 'voice' ? `https://recordings.example.com/calls/${id}.mp3` : null,
      transcript,
    };
  }
}

/** Start times are bucketed by the UTC hour to hand interactions out in chronological order. */
const ORDER_BUCKET_MS = HOUR_MS;

export function generateDemoData(input: SeedOptions = {}): DemoData {
  const options = resolveSeedOptions(input);
  const key = seedKey(options.seed);
  const windowEnd = options.endDate.getTime();
  const windowStart = windowEnd - options.days * DAY_MS;
  const clinics = buildClinics(key, options, windowStart);
  const timeline = new Timeline(windowStart, windowEnd);
  const campaigns = buildCampaigns(key, clinics, timeline);

  return {
    options,
    clinics: clinics.map((c) => c.row),
    campaigns,
    /**
     * Interactions in chronological order (by the hour, then by index), which keeps the writes to
     * the time-ordered indexes local. A first pass computes only each record's start hour (4 bytes
     * per record); the records themselves are then built one at a time.
     */
    *interactions() {
      const n = options.interactions;
      const factory = new InteractionFactory(key, clinics, timeline);
      const first = Math.floor(windowStart / ORDER_BUCKET_MS);
      const buckets = Math.floor(windowEnd / ORDER_BUCKET_MS) - first + 1;
      let bucketOf: Uint32Array | null = new Uint32Array(n);
      const starts = new Uint32Array(buckets + 1);
      for (let i = 0; i < n; i++) {
        const b = Math.min(buckets - 1, Math.max(0, Math.floor(factory.plan(i).started / ORDER_BUCKET_MS) - first));
        bucketOf[i] = b;
        starts[b + 1]!++;
      }
      for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
      const order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[starts[bucketOf[i]!]!++] = i;
      bucketOf = null;
      for (let k = 0; k < n; k++) yield factory.build(order[k]!);
    },
  };
}

// Benchmark datasets, built in SQL: INSERT ... SELECT FROM generate_series, every column a
// deterministic function of the row number (PostgreSQL's hashint8extended, which hash partitioning
// keeps stable across versions), so the same size always gives the same rows, ids included.
//
// Where: BENCH_DATABASE_URL (a server on which the bench creates databases bench_100k, bench_1m, ...),
// or by default an embedded PostgreSQL cluster of its own in .data/bench (src/db/embedded.ts), so the
// figures do not depend on whatever server the machine runs.
//
// A dataset is reused when its database carries the marker of a complete build of this generator
// version with the right row count (COMMENT ON DATABASE, written last) and holds that many rows.
// Migrations are applied before loading (so triggers and rollup tables of the migrations are
// maintained by the load itself) and again when a dataset is reused.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.js';
import { projectRoot } from '../src/config.js';
import { createPrismaClient } from '../src/db/client.js';
import { useEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import type { Scope } from '../src/domain/values.js';

/**
 * Bump when the generated rows change: datasets of another version are rebuilt. 2: 10 campaigns
 * per clinic (was 5), some of them running part of the time; a tail of long calls (10 minutes to 2 hours).
 * 3: summaries name the reason of the contact (REASONS), so full-text search has words of known
 * frequency to look for.
 */
export const DATASET_VERSION = 3;
/** Days of history in every dataset; the last one is the day before the build (UTC). */
export const DATASET_DAYS = 730;
/** Rows per INSERT statement (and transaction): large, so statement-level triggers see big batches. */
const CHUNK_ROWS = 1_000_000;
const DAY_MS = 86_400_000;

export type Log = (message: string) => void;

// ---------------------------------------------------------------------------------------------
// Sizes

export interface Size {
  /** `100k`, `1m`, `10m`, ... */
  label: string;
  rows: number;
}

export function parseSize(text: string): Size {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`Not a dataset size: '${text}' (examples: 100k, 1m, 10m, 250000)`);
  const factor = { '': 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm'];
  const rows = Math.round(Number(match[1]) * factor);
  if (!Number.isSafeInteger(rows) || rows < 1_000 || rows > 50_000_000) throw new Error(`Dataset size out of range (1k to 50m): '${text}'`);
  const label = rows % 1_000_000 === 0 ? `${rows / 1_000_000}m` : rows % 1_000 === 0 ? `${rows / 1_000}k` : String(rows);
  return { label, rows };
}

// ---------------------------------------------------------------------------------------------
// Where the databases live

export interface Cluster {
  /** `embedded PostgreSQL (.data/bench)` or the server's address without credentials. */
  describe: string;
  urlFor(database: string): string;
  release(): Promise<void>;
  /** The postmaster's pid when its processes are this machine's and known (the embedded cluster). */
  postmasterPid(): number | undefined;
}

export async function openCluster(log: Log): Promise<Cluster> {
  const external = process.env.BENCH_DATABASE_URL;
  if (external) {
    const base = new URL(external);
    if (!/^postgres(ql)?:$/.test(base.protocol)) throw new Error('BENCH_DATABASE_URL must be a postgresql:// URL');
    const urlFor = (database: string) => {
      const url = new URL(base.href);
      url.pathname = `/${database}`;
      return url.href;
    };
    return { describe: `BENCH_DATABASE_URL (${base.hostname}:${base.port || 5432})`, urlFor, release: async () => {}, postmasterPid: () => undefined };
  }
  const dataDir = path.join(projectRoot, '.data', 'bench');
  const cluster = await useEmbeddedPostgres(dataDir, log);
  const postmasterPid = () => {
    try {
      return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  return { describe: `embedded PostgreSQL (${path.relative(projectRoot, dataDir)})`, urlFor: cluster.urlFor, release: () => cluster.release(), postmasterPid };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'clinic-analytics bench', options: '-c TimeZone=UTC' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The fixed part: 10 clinics in five countries, 10 campaigns each

const uuidOf = (text: string) => {
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

interface ClinicSeed {
  name: string;
  address: string;
  phone: string;
  email: string;
  timezone: string;
}

/** Index i in 0..9; its country is i % 5 (ES, US, GB, DE, FR), which also decides its patients' phone formats. */
const CLINICS: readonly ClinicSeed[] = [
  {
    name: 'Clínica Dental Sonrisa Madrid',
    address: 'Calle de Alcalá 112, 28009 Madrid',
    phone: '+34 914 35 22 10',
    email: 'citas@sonrisamadrid.es',
    timezone: 'Europe/Madrid',
  },
  {
    name: 'Bayview Family Dental',
    address: '2140 Fillmore St, San Francisco, CA 94115',
    phone: '+1 (415) 555-0142',
    email: 'frontdesk@bayviewfamilydental.com',
    timezone: 'America/Los_Angeles',
  },
  {
    name: 'Camden Physio Clinic',
    address: '14 Parkway, London NW1 7AA',
    phone: '+44 20 7946 0321',
    email: 'hello@camdenphysio.co.uk',
    timezone: 'Europe/London',
  },
  {
    name: 'Hautarztpraxis am Prenzlauer Berg',
    address: 'Schönhauser Allee 45, 10435 Berlin',
    phone: '+49 30 5557 2210',
    email: 'praxis@haut-prenzlberg.de',
    timezone: 'Europe/Berlin',
  },
  {
    name: 'Centre Ophtalmologique Lyon Part-Dieu',
    address: '19 Rue de la Villette, 69003 Lyon',
    phone: '+33 4 72 55 10 20',
    email: 'rdv@ophtalmo-partdieu.fr',
    timezone: 'Europe/Paris',
  },
  {
    name: 'Fisioterapia Triana Sevilla',
    address: 'Calle Betis 31, 41010 Sevilla',
    phone: '+34 954 27 81 40',
    email: 'info@fisiotriana.es',
    timezone: 'Europe/Madrid',
  },
  {
    name: 'Lakeshore Dermatology',
    address: '875 N Michigan Ave, Chicago, IL 60611',
    phone: '+1 (312) 555-0187',
    email: 'appointments@lakeshorederm.com',
    timezone: 'America/Chicago',
  },
  {
    name: 'Didsbury Family Practice',
    address: '8 Wilmslow Rd, Manchester M20 5PG',
    phone: '+44 161 496 0730',
    email: 'reception@didsburyfp.co.uk',
    timezone: 'Europe/London',
  },
  {
    name: 'Zahnzentrum Schwabing',
    address: 'Leopoldstraße 77, 80802 München',
    phone: '+49 89 5559 4410',
    email: 'termine@zahnzentrum-schwabing.de',
    timezone: 'Europe/Berlin',
  },
  {
    name: 'Cabinet Médical Bordeaux Chartrons',
    address: '42 Quai des Chartrons, 33000 Bordeaux',
    phone: '+33 5 56 55 30 12',
    email: 'secretariat@medical-chartrons.fr',
    timezone: 'Europe/Paris',
  },
];

/** Relative traffic of each clinic (busiest first). */
const CLINIC_VOLUMES = [1.6, 1.4, 1.3, 1.2, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5];

/** The kinds of interactions that belong to a campaign (the rest, inbound and form calls, to none). */
type CampaignKind = 'voice' | 'whatsapp' | 'reminders';

interface CampaignSlot {
  type: string;
  channel: string;
  status: string;
  name: string;
  settings: Record<string, unknown>;
  /**
   * The share (percent) of each kind's campaign interactions it takes: voice campaign calls
   * (CAMPAIGN_OUTBOUND and CAMPAIGN_CALLBACK), WhatsApp campaign messages (CAMPAIGN_OUTBOUND),
   * reminders (APPOINTMENT_REMINDER). The shares of a kind add up to 100.
   */
  shares: Partial<Record<CampaignKind, number>>;
  /** Days of the dataset (0 = its first day) it ran in: from (inclusive) and until (exclusive). */
  from?: number;
  until?: number;
}

/**
 * Slot s of every clinic: 10 campaigns, of uneven weight. A campaign's interactions fall on the
 * days it ran; outside them its share goes to the first campaign of the kind (slot 1 for voice
 * calls, 2 for WhatsApp messages, 0 for reminders). The completed recall ran in the first year
 * only, so a window over the last year has 9 campaigns with interactions per clinic and one without.
 */
const CAMPAIGN_SLOTS: readonly CampaignSlot[] = [
  {
    type: 'appointment_reminder',
    channel: 'whatsapp',
    status: 'active',
    name: 'Appointment reminders',
    settings: {
      reminder_hours_before: 24,
      allow_reschedule: true,
      allow_cancel: true,
      message_template: 'Hi {name}, this is a reminder of your appointment on {date}.',
    },
    shares: { reminders: 70 },
  },
  {
    type: 'no_show_recovery',
    channel: 'voice',
    status: 'active',
    name: 'Missed appointment recovery',
    settings: { max_attempts: 3, retry_interval_hours: 24, call_window_start: '09:00', call_window_end: '18:00' },
    shares: { voice: 30 },
  },
  {
    type: 'follow_up',
    channel: 'whatsapp',
    status: 'active',
    name: 'Post-visit follow-up',
    settings: { max_attempts: 2, message_template: 'Hi {name}, how are you feeling after your visit?' },
    shares: { whatsapp: 35 },
  },
  {
    type: 'reactivation',
    channel: 'voice',
    status: 'paused',
    name: 'Patient reactivation',
    settings: { max_attempts: 2, retry_interval_hours: 48, call_window_start: '10:00', call_window_end: '17:30', inactivity_threshold_days: 365 },
    shares: { voice: 15 },
    // paused two months before the end
    until: DATASET_DAYS - 60,
  },
  {
    type: 'recall',
    channel: 'multi',
    status: 'completed',
    name: 'Annual check-up recall',
    settings: { max_attempts: 3, retry_interval_hours: 72, call_window_start: '09:30', call_window_end: '19:00' },
    shares: { voice: 15, whatsapp: 15 },
    // the first year only
    until: DATASET_DAYS - 365,
  },
  {
    type: 'custom',
    channel: 'voice',
    status: 'active',
    name: 'New patient welcome calls',
    settings: { max_attempts: 2, retry_interval_hours: 24, call_window_start: '10:00', call_window_end: '18:00' },
    shares: { voice: 15 },
    from: 200,
  },
  {
    type: 'reactivation',
    channel: 'whatsapp',
    status: 'active',
    name: 'Lapsed patient win-back',
    settings: { max_attempts: 2, inactivity_threshold_days: 540, message_template: 'Hi {name}, it has been a while: shall we book your next visit?' },
    shares: { whatsapp: 25 },
    from: 300,
  },
  {
    type: 'follow_up',
    channel: 'voice',
    status: 'active',
    name: 'Post-treatment check-in calls',
    settings: { max_attempts: 2, retry_interval_hours: 48, call_window_start: '09:00', call_window_end: '17:00' },
    shares: { voice: 15 },
  },
  {
    type: 'custom',
    channel: 'multi',
    status: 'active',
    name: 'Seasonal vaccination drive',
    settings: { max_attempts: 2, retry_interval_hours: 72, call_window_start: '09:30', call_window_end: '18:30' },
    shares: { voice: 10, whatsapp: 25 },
  },
  {
    type: 'appointment_reminder',
    channel: 'whatsapp',
    status: 'active',
    name: 'Treatment plan reminders',
    settings: { reminder_hours_before: 48, allow_reschedule: true, allow_cancel: false, message_template: 'Hi {name}, your next session is on {date}.' },
    shares: { reminders: 30 },
  },
];

/** The campaign slot an interaction of a kind goes to when the one drawn did not run that day. */
const FALLBACK_SLOT: Record<CampaignKind, number> = { voice: 1, whatsapp: 2, reminders: 0 };

export const CLINIC_IDS: readonly string[] = CLINICS.map((_, c) => uuidOf(`bench-clinic-${c}`));
/** Campaign `s` of clinic `c` is CAMPAIGN_IDS[c * CAMPAIGN_SLOTS.length + s] (slot 1: the voice campaign that also takes other days' calls). */
export const CAMPAIGN_IDS: readonly string[] = CLINICS.flatMap((_, c) => CAMPAIGN_SLOTS.map((_, s) => uuidOf(`bench-campaign-${c}-${s}`)));

async function insertClinicsAndCampaigns(client: pg.Client, firstDay: Date): Promise<void> {
  const clinicCreated = (c: number) => new Date(firstDay.getTime() - (400 + 37 * c) * DAY_MS).toISOString();
  await client.query(
    // Every generated text is English, whatever the clinic's country.
    `INSERT INTO clinics (id, name, address, phone, email, timezone, created_at, language)
     SELECT *, 'en' FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      CLINIC_IDS,
      CLINICS.map((c) => c.name),
      CLINICS.map((c) => c.address),
      CLINICS.map((c) => c.phone),
      CLINICS.map((c) => c.email),
      CLINICS.map((c) => c.timezone),
      CLINICS.map((_, c) => clinicCreated(c)),
    ],
  );
  const campaigns = CLINICS.flatMap((clinic, c) =>
    CAMPAIGN_SLOTS.map((slot, s) => {
      // Before the data, or, for a campaign that started later, a few days before its first interaction.
      const created = new Date(firstDay.getTime() + (slot.from === undefined ? -(120 - 9 * s - c) : slot.from - 10 + c) * DAY_MS);
      // A paused or completed campaign last changed when it stopped.
      const updated = slot.until === undefined ? new Date(created.getTime() + 3 * DAY_MS) : new Date(firstDay.getTime() + slot.until * DAY_MS);
      return {
        id: CAMPAIGN_IDS[c * CAMPAIGN_SLOTS.length + s]!,
        name: `${slot.name} (${clinic.name.split(' ').slice(-1)[0]})`,
        description: `${slot.name} campaign of ${clinic.name}.`,
        type: slot.type,
        channel: slot.channel,
        status: slot.status,
        clinicId: CLINIC_IDS[c]!,
        createdAt: created.toISOString(),
        updatedAt: updated.toISOString(),
        settings: JSON.stringify(slot.settings),
      };
    }),
  );
  const col = <K extends keyof (typeof campaigns)[number]>(k: K) => campaigns.map((x) => x[k]);
  await client.query(
    `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id, created_at, updated_at, settings)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::"CampaignType"[], $5::"CampaignChannel"[], $6::"CampaignStatus"[],
                          $7::uuid[], $8::timestamptz[], $9::timestamptz[], $10::jsonb[])`,
    [
      col('id'),
      col('name'),
      col('description'),
      col('type'),
      col('channel'),
      col('status'),
      col('clinicId'),
      col('createdAt'),
      col('updatedAt'),
      col('settings'),
    ],
  );
}

// ---------------------------------------------------------------------------------------------
// Interactions: one INSERT ... SELECT per chunk of row numbers

const sqlText = (values: readonly string[]) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]::text[]`;
const cumulative = (weights: readonly number[]) => weights.slice(0, -1).map((_, i) => weights.slice(0, i + 1).reduce((a, b) => a + b, 0));

const OUTCOMES = [
  'APPOINTMENT_BOOKED',
  'APPOINTMENT_MODIFIED',
  'APPOINTMENT_CANCELLED',
  'NO_ANSWER',
  'VOICEMAIL_REACHED',
  'CALLBACK_REQUESTED',
  'DECISION_PENDING',
  'OPT_OUT',
  'UNREACHABLE',
];
/** The seven channel/type pairs: 0-3 voice, 4-6 WhatsApp. */
const PAIR_TYPES = ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER'];
const PAIR_WEIGHTS = [22, 8, 20, 6, 14, 12, 18];
/** Outcome weights per pair, in the order of OUTCOMES (the demo seeder's mix). */
const OUTCOME_WEIGHTS = [
  [38, 14, 9, 0, 0, 12, 20, 1, 3],
  [32, 3, 2, 18, 13, 10, 14, 2, 6],
  [20, 5, 3, 23, 17, 9, 12, 4, 7],
  [38, 6, 4, 14, 9, 5, 16, 3, 5],
  [36, 16, 12, 0, 0, 10, 18, 2, 6],
  [22, 3, 3, 0, 0, 8, 22, 7, 35],
  [44, 14, 10, 0, 0, 4, 8, 2, 18],
];
/** Call length in seconds per outcome: [min, max]. */
const CALL_SECONDS = [
  [110, 420],
  [80, 300],
  [50, 200],
  [18, 45],
  [25, 70],
  [35, 150],
  [90, 320],
  [20, 90],
  [4, 25],
];
/**
 * The long tail: this share (per mille) of the calls whose outcome is one of LONG_CALL_OUTCOMES
 * (indexes in OUTCOMES: booked, modified, decision pending: a patient with questions) last from 10
 * minutes to 2 hours instead, shorter ones more likely (600 + u^3 * 6,600 s): about 1.7% of the
 * calls, a quarter of those an hour or more.
 */
const LONG_CALLS_PER_MILLE = 30;
const LONG_CALL_OUTCOMES = [0, 1, 6];
const SUMMARIES = [
  'The patient booked a new appointment.',
  'The patient moved an existing appointment to another day.',
  'The patient cancelled the appointment.',
  'Nobody answered the call.',
  'The call reached voicemail; a message was left.',
  'The patient asked to be called back later.',
  'The patient will confirm after checking their schedule.',
  'The patient asked not to be contacted again.',
  'The patient could not be reached.',
];
/**
 * The reason a summary names (per mille of the interactions with a summary): `checkup` about 30%,
 * `whitening` about 1%, the other 23 about 3% each. The full-text search bench looks for the first
 * two (bench/scenarios.ts). Words that appear nowhere else in the generated texts.
 */
export const REASONS = {
  common: 'checkup',
  rare: 'whitening',
  others: [
    'implant',
    'dentures',
    'cleaning',
    'braces',
    'crown',
    'extraction',
    'physiotherapy',
    'massage',
    'rehabilitation',
    'mole',
    'acne',
    'rash',
    'eczema',
    'glasses',
    'cataract',
    'lenses',
    'vaccination',
    'prescription',
    'allergy',
    'bloodwork',
    'referral',
    'xray',
    'stitches',
  ],
} as const;
/** The reason of a row, from a bucket 0-999 (`b`: an SQL expression). */
const reasonSql = (b: string) =>
  `CASE WHEN ${b} < 300 THEN '${REASONS.common}' WHEN ${b} < 310 THEN '${REASONS.rare}' ` +
  `ELSE (${sqlText(REASONS.others)})[(${b} - 310) % ${REASONS.others.length} + 1] END`;
const ASKS = [
  'Hi, I would like to book an appointment, please.',
  'Hello, I filled in the form on your website.',
  'Hello?',
  'Yes, I got your message.',
  'Hi! Can I come in next week?',
  'Thanks for writing, what is this about?',
  'Thanks for the reminder.',
];
const CLOSINGS = [
  'You are booked in. See you soon!',
  'Done, your appointment has been moved.',
  'Your appointment is cancelled. Take care.',
  'We will try again later.',
  'We will try again later.',
  'Of course, we will call you back.',
  'No problem, get back to us when you know.',
  'Understood, we will not contact you again.',
  'We will try again later.',
];

const u = (k: number) => `((hashint8extended(g, ${k}) & 2147483647)::float8 / 2147483648.0)`;
const hk = (k: number) => `(hashint8extended(g, ${k}) & 2147483647)`;

/** Phone formats per country (clinic % 5) and style (patient % 3), from 9 random digits `d`. */
const PHONE_SQL = `CASE ((x.c % 5) * 3 + x.patient % 3)
  WHEN 0 THEN '+34 6' || substr(d, 1, 2) || ' ' || substr(d, 3, 3) || ' ' || substr(d, 6, 3)
  WHEN 1 THEN '+346' || substr(d, 1, 8)
  WHEN 2 THEN '6' || substr(d, 1, 2) || ' ' || substr(d, 3, 2) || ' ' || substr(d, 5, 2) || ' ' || substr(d, 7, 2)
  WHEN 3 THEN '+1 (2' || substr(d, 1, 2) || ') ' || substr(d, 3, 3) || '-' || substr(d, 6, 4)
  WHEN 4 THEN '+12' || substr(d, 1, 9)
  WHEN 5 THEN '(2' || substr(d, 1, 2) || ') ' || substr(d, 3, 3) || '-' || substr(d, 6, 4)
  WHEN 6 THEN '+44 7' || substr(d, 1, 3) || ' ' || substr(d, 4, 6)
  WHEN 7 THEN '+447' || substr(d, 1, 9)
  WHEN 8 THEN '07' || substr(d, 1, 3) || ' ' || substr(d, 4, 6)
  WHEN 9 THEN '+49 15' || substr(d, 1, 1) || ' ' || substr(d, 2, 8)
  WHEN 10 THEN '+4915' || substr(d, 1, 9)
  WHEN 11 THEN '015' || substr(d, 1, 1) || ' ' || substr(d, 2, 8)
  WHEN 12 THEN '+33 6 ' || substr(d, 1, 2) || ' ' || substr(d, 3, 2) || ' ' || substr(d, 5, 2) || ' ' || substr(d, 7, 2)
  WHEN 13 THEN '+336' || substr(d, 1, 8)
  ELSE '06 ' || substr(d, 1, 2) || ' ' || substr(d, 3, 2) || ' ' || substr(d, 5, 2) || ' ' || substr(d, 7, 2)
END`;

/**
 * Rows $1..$2 of a dataset of $3 rows whose first day starts at epoch second $4, with $5 patients
 * per clinic; $6 clinic ids, $7 campaign ids (clinic * 10 + slot). Interactions and the transcripts
 * of a share of them (80% of WhatsApp conversations, 30% of calls) in one statement.
 */
function chunkSql(): string {
  const outcomeCase = OUTCOME_WEIGHTS.map((w, p) => {
    const sum = w.reduce((a, b) => a + b, 0);
    return `WHEN ${p} THEN width_bucket(${u(3)} * ${sum}, ARRAY[${cumulative(w).join(', ')}]::float8[])`;
  }).join(' ');
  const pairCumulative = cumulative(PAIR_WEIGHTS);
  const volumeSum = CLINIC_VOLUMES.reduce((a, b) => a + b, 0);
  const clinicCumulative = cumulative(CLINIC_VOLUMES).map((v) => (v / volumeSum).toFixed(6));
  const entry = (role: string, content: string) => `jsonb_build_object('role', '${role}', 'content', ${content})`;
  // The campaign slot of a kind's interaction: drawn by the slots' shares, then the kind's fallback
  // slot when the one drawn did not run on the row's day.
  const slotOf = (kind: CampaignKind) => {
    const slots = CAMPAIGN_SLOTS.flatMap((slot, s) => (slot.shares[kind] ? [{ ...slot, s, share: slot.shares[kind]! }] : []));
    const draws = slots.map((slot, i) => {
      const ran = [slot.from === undefined ? '' : `x.day >= ${slot.from}`, slot.until === undefined ? '' : `x.day < ${slot.until}`].filter(Boolean);
      return `WHEN ${i} THEN ${ran.length ? `CASE WHEN ${ran.join(' AND ')} THEN ${slot.s} ELSE ${FALLBACK_SLOT[kind]} END` : slot.s}`;
    });
    const bounds = cumulative(slots.map((slot) => slot.share));
    return `CASE width_bucket((x.h10 % 10000) / 100.0, ARRAY[${bounds.join(', ')}]::numeric[]) ${draws.join(' ')} END`;
  };
  const slots = CAMPAIGN_SLOTS.length;
  const greeting = `'Hello, this is the virtual assistant of your clinic. How can I help you today?'`;
  return `
  WITH base AS (
    SELECT g,
      width_bucket(${u(1)}, ARRAY[${clinicCumulative.join(', ')}]::float8[]) AS c,
      width_bucket(${u(2)} * 100, ARRAY[${pairCumulative.join(', ')}]::float8[]) AS p,
      ${u(3)} AS u3, ${u(4)} AS u4, ${u(5)} AS u5, ${u(6)} AS u6, ${u(7)} AS u7, ${u(8)} AS u8,
      ${hk(9)} AS h9, ${hk(10)} AS h10, ${hk(11)} AS h11
    FROM generate_series($1::bigint, $2::bigint) AS g
  ), r AS (
    SELECT b.*,
      md5('bench:' || g)::uuid::text AS id,
      CASE WHEN b.h11 % 100 = 0 THEN NULL ELSE CASE b.p ${outcomeCase} END END AS o,
      b.h9 % $5::bigint AS patient,
      (g - 1) * ${DATASET_DAYS} / $3::bigint AS day,
      to_timestamp($4::float8 + ((g - 1) * ${DATASET_DAYS} / $3::bigint) * 86400
        + round((CASE WHEN b.u5 < 0.7 THEN 28800 + b.u6 * 39600 ELSE b.u6 * 86400 END)::numeric, 3)::float8) AS started
    FROM base AS b
  ), x AS (
    SELECT r.*,
      lpad(((hashint8extended(r.c * 100000000 + r.patient, 12) & 2147483647) % 1000000000)::text, 9, '0') AS d,
      CASE WHEN r.p >= 4 OR r.o IS NULL THEN NULL
        WHEN r.o IN (${LONG_CALL_OUTCOMES.join(', ')}) AND ${hk(13)} % 1000 < ${LONG_CALLS_PER_MILLE}
        THEN 600 + floor(${u(14)} ^ 3 * 6600)::int
        ELSE round((ARRAY[${CALL_SECONDS.map((s) => s[0]).join(', ')}])[r.o + 1]
          + ((ARRAY[${CALL_SECONDS.map(([lo, hi]) => hi! - lo!).join(', ')}])[r.o + 1]) * (r.u7 + r.u8) / 2)::int END AS duration
    FROM r
  ), y AS (
    SELECT x.*,
      CASE WHEN x.p IN (2, 3) THEN ${slotOf('voice')} WHEN x.p = 5 THEN ${slotOf('whatsapp')} WHEN x.p = 6 THEN ${slotOf('reminders')} END AS slot
    FROM x
  ), rows AS (
    SELECT x.id, x.p, x.o, x.u4,
      (CASE WHEN x.p < 4 THEN 'voice' ELSE 'whatsapp' END)::"Channel" AS channel,
      (${sqlText(PAIR_TYPES)})[x.p + 1]::"InteractionType" AS type,
      (CASE WHEN x.p IN (0, 4) THEN 'inbound' ELSE 'outbound' END)::"Direction" AS direction,
      ${PHONE_SQL} AS phone_number,
      ($6::uuid[])[x.c + 1] AS clinic_id,
      ($7::text[])[x.c * ${slots} + x.slot + 1] AS campaign_id,
      x.started AS started_at,
      CASE WHEN x.o IS NULL THEN NULL
           WHEN x.p < 4 THEN x.started + make_interval(secs => x.duration)
           ELSE x.started + make_interval(mins => (2 + x.u7 * x.u7 * 360)::int) END AS ended_at,
      x.duration AS duration_seconds,
      (${sqlText(OUTCOMES)})[x.o + 1] AS outcome,
      (${sqlText(SUMMARIES)})[x.o + 1] || ' Reason: ' || ${reasonSql(`(${hk(15)} % 1000)`)} || '.' AS summary,
      CASE WHEN x.p < 4 AND x.o IS NOT NULL THEN 'https://recordings.example.com/calls/' || x.id || '.mp3' END AS recording_url
    FROM y AS x
  ), inserted AS (
    INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, ended_at, duration_seconds, outcome, summary, recording_url)
    SELECT id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, ended_at, duration_seconds, outcome, summary, recording_url
    FROM rows
  )
  INSERT INTO interaction_transcripts (interaction_id, entries)
  SELECT id,
    CASE (hashtext(id) & 3)
      WHEN 0 THEN jsonb_build_array(${entry('assistant', greeting)}, ${entry('user', `(${sqlText(ASKS)})[p + 1]`)})
      ELSE jsonb_build_array(${entry('assistant', greeting)}, ${entry('user', `(${sqlText(ASKS)})[p + 1]`)},
        ${entry('assistant', `'Let me check the calendar for you.'`)}, ${entry('user', `'Thank you.'`)},
        ${entry('assistant', `coalesce((${sqlText(CLOSINGS)})[o + 1], 'One moment, please.')`)})
    END
  FROM rows
  WHERE u4 < CASE WHEN p < 4 THEN 0.3 ELSE 0.8 END`;
}

// ---------------------------------------------------------------------------------------------
// Dropping and recreating the indexes and constraints of the loaded tables (as pg_restore does)

interface Definitions {
  /** Constraints backed by an index (primary keys, unique, exclusion) and plain indexes. */
  indexes: Array<{ table: string; name: string; constraint: boolean; sql: string }>;
  foreignKeys: Array<{ table: string; name: string; sql: string }>;
}

const LOADED_TABLES = ['interactions', 'interaction_transcripts', 'interaction_search_documents'];
/**
 * The search documents' triggers, off while loading: the documents are written once afterwards by
 * interaction_search_rebuild() (per statement, each interaction's document was written from its
 * summary and then again with its transcript).
 */
const SEARCH_TRIGGERS = [
  ['interactions', 'interaction_search_insert'],
  ['interaction_transcripts', 'transcript_search_insert'],
] as const;

async function dropIndexesAndConstraints(client: pg.Client): Promise<Definitions> {
  const tables = LOADED_TABLES;
  const { rows: fks } = await client.query<{ table: string; name: string; def: string }>(
    `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS def
     FROM pg_constraint WHERE contype = 'f' AND (conrelid::regclass::text = ANY($1) OR confrelid::regclass::text = ANY($1))`,
    [tables],
  );
  const { rows: indexes } = await client.query<{ table: string; name: string; conname: string | null; condef: string | null; indexdef: string }>(
    `SELECT i.indrelid::regclass::text AS table, ix.relname AS name, c.conname, pg_get_constraintdef(c.oid) AS condef, pg_get_indexdef(i.indexrelid) AS indexdef
     FROM pg_index i JOIN pg_class ix ON ix.oid = i.indexrelid
     LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
     WHERE i.indrelid::regclass::text = ANY($1)`,
    [tables],
  );
  const definitions: Definitions = {
    foreignKeys: fks.map((f) => ({ table: f.table, name: f.name, sql: `ALTER TABLE ${f.table} ADD CONSTRAINT "${f.name}" ${f.def}` })),
    indexes: indexes.map((i) =>
      i.conname
        ? { table: i.table, name: i.conname, constraint: true, sql: `ALTER TABLE ${i.table} ADD CONSTRAINT "${i.conname}" ${i.condef}` }
        : { table: i.table, name: i.name, constraint: false, sql: i.indexdef },
    ),
  };
  for (const f of definitions.foreignKeys) await client.query(`ALTER TABLE ${f.table} DROP CONSTRAINT "${f.name}"`);
  for (const i of definitions.indexes) {
    await client.query(i.constraint ? `ALTER TABLE ${i.table} DROP CONSTRAINT "${i.name}"` : `DROP INDEX "${i.name}"`);
  }
  return definitions;
}

async function recreate(client: pg.Client, definitions: Definitions, log: Log): Promise<void> {
  // Constraints first (a foreign key needs the referenced key), then the plain indexes, then foreign keys.
  const ordered = [...definitions.indexes.filter((i) => i.constraint), ...definitions.indexes.filter((i) => !i.constraint)];
  for (const i of ordered) {
    const started = Date.now();
    await client.query(i.sql);
    log(`    ${i.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  for (const f of definitions.foreignKeys) await client.query(f.sql);
}

// ---------------------------------------------------------------------------------------------
// Datasets

export interface DatasetMeta {
  version: number;
  rows: number;
  /** First and last UTC day of the data (YYYY-MM-DD). */
  firstDay: string;
  lastDay: string;
  /** A 5-digit substring of a real phone number of the dataset, for the search scenario. */
  search: string;
  /**
   * The 3 digits whose share of the interactions' numbers is closest to a quarter (what a person
   * types first), for the common-fragment search scenario. Datasets built before it existed get it
   * when reused (see `commonFragment`).
   */
  commonSearch?: string;
  builtAt: string;
  buildSeconds: number;
}

export interface Dataset {
  size: Size;
  database: string;
  url: string;
  meta: DatasetMeta;
  /** True when it was (re)built in this run. */
  built: boolean;
  /** Migrations applied by this run (a reused dataset gets the ones added since it was built). */
  appliedMigrations: string[];
}

async function readMeta(adminUrl: string, database: string): Promise<DatasetMeta | null | undefined> {
  return withClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ comment: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
      [database],
    );
    if (!rows.length) return undefined; // no database
    try {
      return rows[0]!.comment ? (JSON.parse(rows[0]!.comment) as DatasetMeta) : null;
    } catch {
      return null;
    }
  });
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function writeMeta(adminUrl: string, database: string, meta: DatasetMeta): Promise<void> {
  await withClient(adminUrl, (c) => c.query(`COMMENT ON DATABASE "${database}" IS '${JSON.stringify(meta).replace(/'/g, "''")}'`));
}

/**
 * The 3 digits whose share of the interactions' phone numbers is closest to a quarter, over a
 * fixed 1% of the rows (by a hash of the id, so the same dataset always gives the same fragment).
 * The generator's numbers are random digits behind a few national prefixes, so no 3 digits reach a
 * quarter: the most common ones (a prefix such as "346" of "+346...") are in about 9%.
 */
async function commonFragment(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ fragment: string }>(
    `WITH sample AS (SELECT id, phone_number FROM interactions WHERE hashtext(id) % 100 = 0),
     windows AS (
       SELECT DISTINCT s.id, substr(s.phone_number, k, 3) AS fragment
       FROM sample AS s, generate_series(1, length(s.phone_number) - 2) AS k
       WHERE substr(s.phone_number, k, 3) ~ '^[0-9]{3}$'
     )
     SELECT fragment FROM windows GROUP BY fragment
     ORDER BY abs(count(*)::float8 / (SELECT count(*) FROM sample) - 0.25), fragment LIMIT 1`,
  );
  return rows[0]!.fragment;
}

export async function ensureDataset(cluster: Cluster, size: Size, options: { rebuild: boolean; log: Log }): Promise<Dataset> {
  const { log } = options;
  const database = `bench_${size.label}`;
  const url = cluster.urlFor(database);
  const adminUrl = cluster.urlFor('postgres');

  const meta = await readMeta(adminUrl, database);
  if (!options.rebuild && meta && meta.version === DATASET_VERSION && meta.rows === size.rows) {
    const count = await withClient(url, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM interactions')).rows[0]!.n));
    if (count === size.rows) {
      const applied = await migrate(url);
      if (applied.length) {
        log(`  ${database}: applied migrations ${applied.join(', ')}; analyzing`);
        await withClient(url, (c) => c.query('VACUUM (ANALYZE)'));
      }
      if (meta.commonSearch === undefined) {
        meta.commonSearch = await withClient(url, commonFragment);
        await writeMeta(adminUrl, database, meta);
        log(`  ${database}: common search fragment "${meta.commonSearch}" recorded`);
      }
      await ensureVisibilityMap(url, database, log);
      log(`  ${database}: reusing ${size.rows.toLocaleString('en-US')} interactions (${meta.firstDay} to ${meta.lastDay}, built ${meta.builtAt})`);
      return { size, database, url, meta, built: false, appliedMigrations: applied };
    }
    log(`  ${database}: holds ${count.toLocaleString('en-US')} interactions, expected ${size.rows.toLocaleString('en-US')}: rebuilding`);
  } else if (meta !== undefined) {
    log(`  ${database}: ${options.rebuild ? '--rebuild given' : 'incomplete or from another generator version'}: rebuilding`);
  }

  const started = Date.now();
  await withClient(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${database}"`);
  });
  const applied = await migrate(url);
  log(`  ${database}: created, ${applied.length} migration(s) applied; loading ${size.rows.toLocaleString('en-US')} interactions`);

  // The last day is yesterday (UTC), so the metrics' default window (the last 30 days) is full.
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const firstDayMs = today - DATASET_DAYS * DAY_MS;
  const patientsPerClinic = Math.max(50, Math.round(size.rows / 25)); // about 2.5 interactions per patient

  const { search, commonSearch } = await withClient(url, async (client) => {
    await client.query(`SET synchronous_commit = off`);
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await insertClinicsAndCampaigns(client, new Date(firstDayMs));
    const definitions = await dropIndexesAndConstraints(client);
    for (const [table, trigger] of SEARCH_TRIGGERS) await client.query(`ALTER TABLE ${table} DISABLE TRIGGER ${trigger}`);
    const sql = chunkSql();
    for (let lo = 1; lo <= size.rows; lo += CHUNK_ROWS) {
      const hi = Math.min(size.rows, lo + CHUNK_ROWS - 1);
      const t = Date.now();
      await client.query(sql, [lo, hi, size.rows, firstDayMs / 1000, patientsPerClinic, CLINIC_IDS, CAMPAIGN_IDS]);
      log(`    rows ${lo.toLocaleString('en-US')}-${hi.toLocaleString('en-US')} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
    const folding = Date.now();
    const folded = await client.query<{ n: string }>('SELECT interaction_phone_changes_fold() AS n');
    log(
      `    phone-number changes folded into the fragment counts: ${Number(folded.rows[0]!.n).toLocaleString('en-US')} (${((Date.now() - folding) / 1000).toFixed(1)} s)`,
    );
    const indexing = Date.now();
    for (const [table, trigger] of SEARCH_TRIGGERS) await client.query(`ALTER TABLE ${table} ENABLE TRIGGER ${trigger}`);
    const documents = await client.query<{ n: string }>('SELECT interaction_search_rebuild() AS n');
    log(`    search documents: ${Number(documents.rows[0]!.n).toLocaleString('en-US')} (${((Date.now() - indexing) / 1000).toFixed(1)} s)`);
    log(`    indexes and constraints:`);
    await recreate(client, definitions, log);
    const t = Date.now();
    await client.query('VACUUM (ANALYZE)');
    log(`    VACUUM (ANALYZE) (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    // The last five digits of the newest interaction's number ending in five digits: a patient's
    // number as a receptionist would type it.
    const { rows } = await client.query<{ s: string }>(
      `SELECT (regexp_match(phone_number, '([0-9]{5})$'))[1] AS s FROM interactions
       WHERE phone_number ~ '[0-9]{5}$' ORDER BY started_at DESC, id DESC LIMIT 1`,
    );
    return { search: rows[0]!.s, commonSearch: await commonFragment(client) };
  });

  const built: DatasetMeta = {
    version: DATASET_VERSION,
    rows: size.rows,
    firstDay: isoDay(firstDayMs),
    lastDay: isoDay(today - DAY_MS),
    search,
    commonSearch,
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  await writeMeta(adminUrl, database, built);
  await ensureVisibilityMap(url, database, log);
  log(`  ${database}: built in ${built.buildSeconds} s`);
  return { size, database, url, meta: built, built: true, appliedMigrations: applied };
}

/** Facts about the loaded data, for the results file. */
/**
 * VACUUMs the dataset again when its visibility map is not set (under 90% of the interactions'
 * pages all-visible). The build's own VACUUM, in the session that loaded the rows, was seen to
 * leave it unset (0 of 3,298 pages at 100k, 2026-11-24); without it a count(*) cannot be an
 * index-only scan, which slowed the baseline's counts about 2x and flattered the service.
 */
async function ensureVisibilityMap(url: string, database: string, log: Log): Promise<void> {
  const share = () =>
    withClient(url, async (c) => {
      const { rows } = await c.query<{ visible: number; pages: number }>(
        `SELECT relallvisible AS visible, relpages AS pages FROM pg_class WHERE oid = 'interactions'::regclass`,
      );
      const { visible, pages } = rows[0]!;
      return pages === 0 ? 1 : visible / pages;
    });
  const before = await share();
  if (before >= 0.9) return;
  await withClient(url, (c) => c.query('VACUUM (ANALYZE)'));
  const after = await share();
  log(`  ${database}: visibility map ${(100 * before).toFixed(0)}% set; VACUUM (ANALYZE) again: ${(100 * after).toFixed(0)}%`);
  if (after < 0.9) throw new Error(`${database}: VACUUM left ${(100 * after).toFixed(0)}% of the interactions' pages all-visible; is a transaction held open?`);
}

export async function describeDataset(url: string): Promise<{ tableMb: number; indexMb: number; transcripts: number; rollupTables: string[] }> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ table_mb: string; index_mb: string; transcripts: string }>(
      `SELECT pg_table_size('interactions') / 1048576 AS table_mb, pg_indexes_size('interactions') / 1048576 AS index_mb,
              (SELECT reltuples::bigint FROM pg_class WHERE oid = 'interaction_transcripts'::regclass) AS transcripts`,
    );
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'
       AND tablename NOT IN ('interactions', 'interaction_transcripts', 'clinics', 'campaigns', 'api_keys', '_prisma_migrations') ORDER BY 1`,
    );
    return {
      tableMb: Number(rows[0]!.table_mb),
      indexMb: Number(rows[0]!.index_mb),
      transcripts: Number(rows[0]!.transcripts),
      rollupTables: tables.map((t) => t.name),
    };
  });
}

export async function serverVersion(url: string): Promise<string> {
  return withClient(url, async (c) => (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v);
}

/**
 * Unlimited-tier keys for this run (earlier bench keys are deleted first). Several keys, used in
 * turn, keep the per-key GraphQL field rate limits (src/graphql/builder.ts) from capping
 * the measurement; see bench/README.md (Keys) and docs/graphql.md (per-field limits).
 */
export async function createBenchKeys(url: string, count: number, options: { name?: string; scopes?: Scope[] } = {}): Promise<string[]> {
  const name = options.name ?? 'bench';
  const db = createPrismaClient(url, 2);
  try {
    await db.apiKey.deleteMany({ where: { name: { startsWith: `${name} ` } } });
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      // Live keys: the datasets' clinics are live ones, which test keys do not see (decisions section 12).
      const { key } = await createApiKey(db, { name: `${name} ${i + 1}`, tier: 'unlimited', environment: 'live', scopes: options.scopes });
      keys.push(key);
    }
    return keys;
  } finally {
    await db.$disconnect();
  }
}

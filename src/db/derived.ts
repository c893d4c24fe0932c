// Every table PostgreSQL derives from the data, in one catalogue: what each holds and by which
// keys, which triggers keep it in the writer's transaction, how its change log is folded, and how
// it is rebuilt from the source tables. Versioned migrations create the tables; the functions and
// triggers have their single current text in one repeatable file per structure
// (prisma/repeatable/<structure>.sql, applied by db/migrate.ts when it changes). This declaration
// is what the rest reads: the rebuild command (cli/rebuild.ts) runs the rebuilds in this order,
// docs/architecture.md's account of what one write does is computed from it (a test keeps the two
// equal), and test/db/derived-catalogue.test.ts compares it with pg_class, pg_index, pg_trigger
// and pg_proc of a migrated database, so a derived table, trigger or function that is not
// declared here fails the suite.

/** The tables the API's data lives in; everything in DERIVED is computed from them. */
export const SOURCE_TABLES = ['clinics', 'campaigns', 'interactions', 'interaction_transcripts'] as const;
export type SourceTable = (typeof SOURCE_TABLES)[number];

/** Tables of the service itself, neither data nor derived from it. */
export const SERVICE_TABLES = ['_prisma_migrations', '_repeatable_migrations', 'api_keys', 'service_secrets'] as const;

export type WriteEvent = 'INSERT' | 'UPDATE' | 'DELETE' | 'TRUNCATE';

export interface DerivedTable {
  name: string;
  /** Its primary key's columns in order; [] for an append-only change log. */
  keys: readonly string[];
  holds: string;
}

/** A statement trigger on a source table (every one is AFTER ... FOR EACH STATEMENT). */
export interface Trigger {
  name: string;
  on: SourceTable | string;
  events: readonly WriteEvent[];
  function: string;
}

export interface DerivedStructure {
  name: string;
  purpose: string;
  tables: readonly DerivedTable[];
  triggers: readonly Trigger[];
  /** The SQL functions that belong to it (trigger functions, helpers, fold, rebuild). */
  functions: readonly string[];
  /** The functions that recompute it from the source tables, in order, or why there are none. */
  rebuild: { functions: readonly string[] } | { none: string };
  /** The function that folds its change log into its counts, when it keeps one (run by the service every 5 s, the importer and the seeder). */
  fold?: string;
}

const ALL: readonly WriteEvent[] = ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'];

/** The four statement triggers of one structure on one table, named `<prefix>_<event>`. */
function onEvery(prefix: string, on: string, fn: string | ((event: WriteEvent) => string), events: readonly WriteEvent[] = ALL): Trigger[] {
  return events.map((event) => ({ name: `${prefix}_${event.toLowerCase()}`, on, events: [event], function: typeof fn === 'string' ? fn : fn(event) }));
}

const totalsKeys = ['channel', 'type', 'direction'];

/** In the order a rebuild runs them: a structure's rebuild reads only source tables. */
export const DERIVED: readonly DerivedStructure[] = [
  {
    name: 'daily rollups',
    purpose: 'The finest exact counts per UTC day: what every daily level and the rates are summed from.',
    tables: [
      {
        name: 'interaction_daily_rollups',
        keys: ['day', 'clinic_id', ...totalsKeys, 'outcome'],
        holds: 'interactions, calls, durations and successes per UTC day, clinic, channel, type, direction and outcome',
      },
    ],
    triggers: onEvery('interaction_daily_rollups', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_daily_rollups_after_truncate' : `interaction_daily_rollups_after_${event.toLowerCase()}`,
    ),
    functions: [
      'interaction_daily_rollups_after_insert',
      'interaction_daily_rollups_after_update',
      'interaction_daily_rollups_after_delete',
      'interaction_daily_rollups_after_truncate',
      'interaction_daily_rollups_rebuild',
    ],
    rebuild: { functions: ['interaction_daily_rollups_rebuild'] },
  },
  {
    name: 'rollup levels',
    purpose: 'Days and months, per clinic and over every clinic, with or without the outcome: metrics read whole months and days from them.',
    tables: [
      {
        name: 'interaction_day_totals',
        keys: ['day', 'clinic_id', ...totalsKeys],
        holds: 'per UTC day, clinic, channel, type and direction, outcomes folded into counts',
      },
      { name: 'interaction_month_totals', keys: ['month', 'clinic_id', ...totalsKeys], holds: 'the same per month' },
      { name: 'interaction_month_outcomes', keys: ['month', 'clinic_id', ...totalsKeys, 'outcome'], holds: 'per month, with the outcome' },
      { name: 'interaction_day_totals_all_clinics', keys: ['day', ...totalsKeys], holds: 'day totals summed over every clinic' },
      { name: 'interaction_month_totals_all_clinics', keys: ['month', ...totalsKeys], holds: 'month totals summed over every clinic' },
      { name: 'interaction_day_outcomes_all_clinics', keys: ['day', ...totalsKeys, 'outcome'], holds: 'day outcomes summed over every clinic' },
      { name: 'interaction_month_outcomes_all_clinics', keys: ['month', ...totalsKeys, 'outcome'], holds: 'month outcomes summed over every clinic' },
      { name: 'interaction_days', keys: ['day'], holds: 'every interaction of a UTC day in one row, split by channel and direction' },
    ],
    triggers: onEvery('interaction_rollup_levels', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_rollup_levels_after_truncate' : 'interaction_rollup_levels_apply',
    ),
    functions: ['interaction_rollup_levels_apply', 'interaction_rollup_levels_after_truncate', 'interaction_rollup_levels_rebuild'],
    rebuild: { functions: ['interaction_rollup_levels_rebuild'] },
  },
  {
    name: 'levels under the day',
    purpose: 'Hours and quarter hours, for metrics in a time zone whose days do not start at a UTC midnight.',
    tables: [
      { name: 'interaction_day_hours', keys: ['day'], holds: "one row per UTC day: the day's running totals at the end of each of its 24 hours" },
      { name: 'interaction_quarters', keys: ['quarter'], holds: 'every interaction of a UTC quarter hour in one row' },
      { name: 'interaction_hour_totals', keys: ['hour', 'clinic_id', ...totalsKeys], holds: 'per UTC hour, clinic, channel, type and direction' },
    ],
    triggers: onEvery('interaction_fine_levels', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_fine_levels_after_truncate' : 'interaction_fine_levels_apply',
    ),
    functions: ['interaction_fine_levels_apply', 'interaction_fine_levels_after_truncate', 'interaction_fine_levels_rebuild'],
    rebuild: { functions: ['interaction_fine_levels_rebuild'] },
  },
  {
    name: 'quarter totals',
    purpose: "Quarter hours per clinic and campaign: the edges of a filtered or campaign's series in a time zone.",
    tables: [
      {
        name: 'interaction_quarter_totals',
        keys: ['quarter', 'clinic_id', 'campaign_id', ...totalsKeys],
        holds: "per UTC quarter hour, clinic, campaign ('' for none), channel, type and direction",
      },
    ],
    triggers: onEvery('interaction_quarter_totals', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_quarter_totals_after_truncate' : 'interaction_quarter_totals_apply',
    ),
    functions: ['interaction_quarter_totals_apply', 'interaction_quarter_totals_after_truncate', 'interaction_quarter_totals_rebuild'],
    rebuild: { functions: ['interaction_quarter_totals_rebuild'] },
  },
  {
    name: 'campaign and duration levels',
    purpose: 'Breakdowns by campaign and outcome, and the histogram of voice-call durations (/metrics/durations).',
    tables: [
      {
        name: 'interaction_campaign_days',
        keys: ['day', 'clinic_id', 'campaign_id', ...totalsKeys, 'outcome'],
        holds: 'per UTC day, clinic, campaign and outcome',
      },
      { name: 'interaction_campaign_months', keys: ['month', 'clinic_id', 'campaign_id', ...totalsKeys, 'outcome'], holds: 'the same per month' },
      {
        name: 'interaction_duration_days',
        keys: ['clinic_id', 'day', 'campaign_id', 'type', 'bucket'],
        holds: 'voice calls per day, clinic, campaign, type and duration bucket',
      },
      { name: 'interaction_duration_months', keys: ['clinic_id', 'month', 'campaign_id', 'type', 'bucket'], holds: 'the same per month' },
      { name: 'interaction_duration_days_all_clinics', keys: ['day', 'type', 'bucket'], holds: 'duration days summed over every clinic' },
      { name: 'interaction_duration_months_all_clinics', keys: ['month', 'type', 'bucket'], holds: 'duration months summed over every clinic' },
    ],
    triggers: onEvery('interaction_dimension_levels', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_dimension_levels_after_truncate' : 'interaction_dimension_levels_apply',
    ),
    functions: [
      'interaction_dimension_levels_apply',
      'interaction_dimension_levels_after_truncate',
      'interaction_dimension_levels_rebuild',
      'interaction_duration_bucket',
    ],
    rebuild: { functions: ['interaction_dimension_levels_rebuild'] },
  },
  {
    name: 'campaign totals',
    purpose: "Every metric filtered by a campaign, breakdowns by campaign and a Campaign's metrics.",
    tables: [
      {
        name: 'interaction_campaign_day_totals',
        keys: ['day', 'clinic_id', 'campaign_id', ...totalsKeys],
        holds: "per UTC day, clinic, campaign ('' for none), channel, type and direction",
      },
      { name: 'interaction_campaign_month_totals', keys: ['month', 'clinic_id', 'campaign_id', ...totalsKeys], holds: 'the same per month' },
    ],
    triggers: onEvery('interaction_campaign_totals', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_campaign_totals_after_truncate' : 'interaction_campaign_totals_apply',
    ),
    functions: ['interaction_campaign_totals_apply', 'interaction_campaign_totals_after_truncate', 'interaction_campaign_totals_rebuild'],
    rebuild: { functions: ['interaction_campaign_totals_rebuild'] },
  },
  {
    name: 'phone numbers',
    purpose: 'Exact totals of a phone-number search without counting its matches: per number, and per fragment of 1 to 3 characters.',
    tables: [
      { name: 'interaction_phones', keys: ['clinic_id', 'phone_number'], holds: 'interactions per clinic and phone number (trigram-indexed)' },
      { name: 'interaction_phone_changes', keys: [], holds: "the writes' per-number changes, appended, until a fold applies them" },
      { name: 'interaction_phone_fragments', keys: ['fragment', 'clinic_id'], holds: 'interactions per clinic and number fragment of 1 to 3 characters' },
    ],
    triggers: onEvery('interaction_phones', 'interactions', (event) =>
      event === 'TRUNCATE' ? 'interaction_phones_after_truncate' : 'interaction_phones_apply',
    ),
    functions: [
      'interaction_phones_apply',
      'interaction_phones_after_truncate',
      'interaction_phones_rebuild',
      'interaction_phone_fragments_of',
      'interaction_phone_changes_fold',
      'interaction_phone_fragments_rebuild',
    ],
    // The numbers, then the fragments from them.
    rebuild: { functions: ['interaction_phones_rebuild', 'interaction_phone_fragments_rebuild'] },
    fold: 'interaction_phone_changes_fold',
  },
  {
    name: 'search documents',
    purpose:
      "Full-text search (q, text): each interaction's summary and transcript as a document in its clinic's language, and word counts for the planner's choice.",
    tables: [
      { name: 'interaction_search_documents', keys: ['interaction_id'], holds: "one tsvector per interaction with words, with the filters' columns" },
      { name: 'interaction_search_term_changes', keys: [], holds: 'word-count changes, appended, until a fold applies them' },
      { name: 'interaction_search_terms', keys: ['lexeme', 'clinic_id'], holds: 'documents per clinic and word' },
    ],
    triggers: [
      ...onEvery('interaction_search', 'interactions', 'interaction_search_on_interactions'),
      ...onEvery('transcript_search', 'interaction_transcripts', 'interaction_search_on_transcripts', ['INSERT', 'UPDATE', 'DELETE']),
      { name: 'clinic_search_update', on: 'clinics', events: ['UPDATE'], function: 'interaction_search_on_clinics' },
      ...onEvery('interaction_search_terms', 'interaction_search_documents', 'interaction_search_terms_apply', ['INSERT', 'UPDATE', 'DELETE']),
    ],
    functions: [
      'interaction_search_on_interactions',
      'interaction_search_on_transcripts',
      'interaction_search_on_clinics',
      'interaction_search_refresh',
      'interaction_search_text',
      'interaction_search_config',
      'interaction_search_terms_apply',
      'interaction_search_terms_fold',
      'interaction_search_rebuild',
    ],
    rebuild: { functions: ['interaction_search_rebuild'] },
    fold: 'interaction_search_terms_fold',
  },
  {
    name: 'tombstones',
    purpose: 'Deleted interactions, for the change feed (/interactions/deleted) and mirrors.',
    tables: [
      {
        name: 'interaction_tombstones',
        keys: ['id'],
        holds: "a deleted interaction's id, clinic and when it was deleted; cleared when the id is inserted again",
      },
    ],
    triggers: [
      { name: 'interaction_tombstones_delete', on: 'interactions', events: ['DELETE'], function: 'interaction_tombstones_on_delete' },
      { name: 'interaction_tombstones_insert', on: 'interactions', events: ['INSERT'], function: 'interaction_tombstones_on_insert' },
    ],
    functions: ['interaction_tombstones_on_delete', 'interaction_tombstones_on_insert'],
    rebuild: { none: 'a record of deletions: the rows it remembers are gone from the source tables' },
  },
  {
    name: 'data versions',
    purpose: "Each clinic's data version: the ETags of metrics and lists change exactly when a write touches the clinic.",
    tables: [
      { name: 'clinic_data_changes', keys: [], holds: 'the clinics each write touched, appended, until a fold applies them' },
      { name: 'clinic_data_versions', keys: ['clinic_id'], holds: "each clinic's version, raised by every write that touched it" },
    ],
    triggers: [
      ...onEvery('clinic_data_versions', 'clinics', (event) => (event === 'TRUNCATE' ? 'clinic_data_versions_after_truncate' : 'clinic_data_versions_apply')),
      ...onEvery('campaign_data_versions', 'campaigns', (event) =>
        event === 'TRUNCATE' ? 'clinic_data_versions_after_truncate' : 'clinic_data_versions_apply',
      ),
      ...onEvery('interaction_data_versions', 'interactions', (event) =>
        event === 'TRUNCATE' ? 'clinic_data_versions_after_truncate' : 'clinic_data_versions_apply',
      ),
      ...onEvery('transcript_data_versions', 'interaction_transcripts', (event) =>
        event === 'TRUNCATE' ? 'clinic_data_versions_after_truncate' : 'transcript_data_versions_apply',
      ),
    ],
    functions: [
      'clinic_data_versions_apply',
      'transcript_data_versions_apply',
      'clinic_data_versions_after_truncate',
      'clinic_data_versions_bump',
      'clinic_data_versions_bump_all',
      'clinic_data_changes_fold',
    ],
    // Every clinic's version moves on: whatever a rebuild changed, no cached answer survives it.
    rebuild: { functions: ['clinic_data_versions_bump_all'] },
    fold: 'clinic_data_changes_fold',
  },
];

/**
 * SQL functions outside any one structure: kept for operators and tests that call them by name.
 * The rebuild command runs each structure's own rebuild instead (search included).
 */
export const OTHER_FUNCTIONS = [
  { name: 'interaction_rollups_rebuild', does: 'every structure above but the search documents and tombstones, in one call' },
] as const;

/** The file in prisma/repeatable that holds a structure's (or an OTHER_FUNCTIONS entry's) functions and triggers. */
export function repeatableFile(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.sql`;
}

/** Every derived table's name. */
export const DERIVED_TABLES: readonly string[] = DERIVED.flatMap((structure) => structure.tables.map((table) => table.name));

const EVENTS: readonly WriteEvent[] = ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE'];

/**
 * What one write statement does, table by table, as docs/architecture.md shows it (a test keeps the
 * page equal to this text): for each written table and event, the triggers PostgreSQL runs after
 * the statement (in the order of their names, as it fires them) and the tables each maintains.
 */
export function writeEffectsMarkdown(): string {
  const written = [...new Set(DERIVED.flatMap((structure) => structure.triggers.map((trigger) => trigger.on)))];
  const sections: string[] = [];
  for (const table of written) {
    for (const event of EVENTS) {
      const fired = DERIVED.flatMap((structure) =>
        structure.triggers.filter((trigger) => trigger.on === table && trigger.events.includes(event)).map((trigger) => ({ trigger, structure })),
      ).sort((a, b) => (a.trigger.name < b.trigger.name ? -1 : 1));
      if (!fired.length) continue;
      sections.push(
        `#### ${event} on \`${table}\``,
        '',
        '| # | Trigger (function) | Structure | Tables it writes |',
        '|---|---|---|---|',
        ...fired.map(
          ({ trigger, structure }, i) =>
            `| ${i + 1} | \`${trigger.name}\` (\`${trigger.function}\`) | ${structure.name} | ${structure.tables.map((t) => `\`${t.name}\``).join(', ') || '-'} |`,
        ),
        '',
      );
    }
  }
  return sections.join('\n');
}

/** The derived structures as a table for docs/architecture.md: purpose, tables with keys, fold and rebuild. */
export function structuresMarkdown(): string {
  return [
    '| Structure | What for | Tables (primary key) | Folded by | Rebuilt by |',
    '|---|---|---|---|---|',
    ...DERIVED.map((structure) => {
      const tables = structure.tables.map((t) => `\`${t.name}\` (${t.keys.length ? t.keys.join(', ') : 'append-only'}): ${t.holds}`).join('; ');
      const rebuild =
        'functions' in structure.rebuild ? structure.rebuild.functions.map((fn) => `\`${fn}()\``).join(', then ') : `nothing: ${structure.rebuild.none}`;
      return `| ${structure.name} | ${structure.purpose} | ${tables} | ${structure.fold ? `\`${structure.fold}()\`` : '-'} | ${rebuild} |`;
    }),
    '',
  ].join('\n');
}

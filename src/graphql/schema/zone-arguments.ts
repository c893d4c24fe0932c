// The time zone, comparison and granularity arguments of the metrics fields: checked with the
// other arguments (syntax, membership), then resolved against the database (does the zone exist;
// which zone is the clinic's).
import { dimensionsOfWindow, type MetricsFilter } from '../../analytics/filter.js';
import { COMPARISONS, type Comparison, type LocalBound, type ZonedQuery } from '../../analytics/zoned.js';
import { queryRows } from '../../db/client.js';
import { hasControlCharacter, type Problems } from '../../domain/parameters.js';
import type { ParameterNames } from '../../filters/interaction-filters.js';
import { Prisma } from '../../generated/prisma/client.js';
import { GRANULARITIES, type Granularity } from '../../zones/local-calendar.js';
import { looksLikeZoneName, zoneNames } from '../../zones/zone-names.js';
import type { GraphQLContext } from '../builder.js';
import { rejected } from '../builder.js';

const DAY = 86_400_000;
const UNKNOWN_ZONE = 'is not a time zone of the tz database (names are case-sensitive, e.g. Europe/Madrid)';
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The arguments as sent (REST passes values no enum could carry through unconverted: errors.ts). */
export interface ZoneArguments {
  dateFrom?: string | null;
  dateTo?: string | null;
  timezone?: string | null;
  compare?: string | null;
  granularity?: string | null;
}

export interface CheckedZoneArguments {
  /** As given: an IANA name (not yet known to exist) or `clinic`; undefined for none. */
  timezone?: string;
  compare?: Comparison;
  granularity?: Granularity;
}

export function checkZoneArguments(
  values: ZoneArguments & { clinicId?: string | null },
  names: ParameterNames,
  problems: Problems,
  options: { granularity?: 'required'; knownZones?: ReadonlySet<string> } = {},
): CheckedZoneArguments {
  const checked: CheckedZoneArguments = {};
  if (values.timezone != null) {
    const zone = values.timezone;
    if (zone === 'clinic') {
      if (values.clinicId == null) problems[names.timezone] = `\`clinic\` needs ${names.clinicId}: the time zone is that clinic's`;
      else checked.timezone = zone;
    } else if (hasControlCharacter(zone) || !looksLikeZoneName(zone)) {
      problems[names.timezone] = 'must be an IANA time zone name such as Europe/Madrid, or clinic';
    } else if (options.knownZones && !options.knownZones.has(zone)) {
      problems[names.timezone] = UNKNOWN_ZONE;
    } else checked.timezone = zone;
  }
  if (values.compare != null) {
    if ((COMPARISONS as readonly string[]).includes(values.compare)) checked.compare = values.compare as Comparison;
    else problems[names.compare] = `must be one of ${COMPARISONS.join(', ')}`;
  }
  if (values.granularity != null) {
    if ((GRANULARITIES as readonly string[]).includes(values.granularity)) checked.granularity = values.granularity as Granularity;
    else problems[names.granularity] = `must be one of ${GRANULARITIES.join(', ')}`;
  } else if (options.granularity === 'required') {
    problems[names.granularity] = `is required: one of ${GRANULARITIES.join(', ')}`;
  }
  return checked;
}

/** A bound as the window reads it in a zone: a date stays a local date; a date-time is an instant. */
function localBound(text: string | null | undefined, parsed: Date | undefined, bound: 'from' | 'to'): LocalBound | undefined {
  if (text == null || parsed === undefined) return undefined;
  if (!DATE_ONLY.test(text)) return { kind: 'instant', at: parsed.getTime() };
  // A date-only bound was parsed as the start (from) or the last millisecond (to) of that UTC day:
  // its wall midnight is the same number read as a local time.
  return { kind: 'date', wall: bound === 'from' ? parsed.getTime() : parsed.getTime() + 1 - DAY };
}

/**
 * The zoned query of a checked request, or undefined for one without time zone and comparison
 * (unless `always`: a series is always zoned, UTC by default).
 */
export async function zonedQuery(
  context: GraphQLContext,
  raw: ZoneArguments,
  filter: MetricsFilter,
  checked: CheckedZoneArguments,
  always = false,
): Promise<ZonedQuery | undefined> {
  if (checked.timezone === undefined && checked.compare === undefined && !always) return undefined;
  let zone = checked.timezone ?? 'UTC';
  if (zone === 'clinic') {
    // A clinic the key cannot see, or that does not exist, reads as UTC: its figures are zeros anyway.
    const [clinicId] = filter.clinicIds ?? [];
    const [row] = clinicId ? await queryRows<{ timezone: string }>(context.db, Prisma.sql`SELECT timezone FROM clinics WHERE id = ${clinicId}::uuid`) : [];
    zone = row?.timezone ?? 'UTC';
    if (!(await zoneNames(context.db)).has(zone)) {
      throw rejected(context, (names) => ({ [names.timezone]: `the clinic's time zone ${JSON.stringify(zone)} is not in the tz database` }));
    }
  } else if (!(await zoneNames(context.db)).has(zone)) {
    throw rejected(context, (names) => ({ [names.timezone]: UNKNOWN_ZONE }));
  }
  return {
    zone,
    from: localBound(raw.dateFrom, filter.from, 'from'),
    to: localBound(raw.dateTo, filter.to, 'to'),
    dims: dimensionsOfWindow(filter),
    compare: checked.compare,
    now: context.now,
  };
}

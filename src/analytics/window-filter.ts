// The window and filters of a metrics request, defaults resolved (decisions section 4).
import type { MetricsFilter } from '../analytics/filter.js';
import type { VisibleClinics } from '../auth/api-keys.js';
import { daysInWindow, defaultMetricsWindow, type Problems } from '../domain/parameters.js';
import { checkFilters, type FilterNames, type RawFilters } from '../filters/interaction-filters.js';
import { dimensionsOf } from '../interactions/rows.js';

/** Longest window of the daily series: about ten years of days. */
export const MAX_DAILY_DAYS = 3_700;

export function checkMetricsFilter(
  raw: RawFilters,
  names: FilterNames,
  problems: Problems,
  context: { visibleClinics: VisibleClinics; now: Date; maxDays?: number; inZone?: boolean },
): MetricsFilter {
  const filters = checkFilters(raw, names, problems, { inZone: context.inZone });
  const window = defaultMetricsWindow(context.now);
  const from = filters.from ?? window.from;
  const to = filters.to ?? window.to;
  // In a time zone, dates are local days: the bounds' order and the days are judged once read there (analytics/zoned.ts).
  if (!context.inZone && !problems[names.dateFrom] && !problems[names.dateTo] && from > to) {
    problems[filters.from ? names.dateFrom : names.dateTo] = filters.from
      ? `is later than ${filters.to ? names.dateTo : `the default ${names.dateTo} (today)`}`
      : `is earlier than the default ${names.dateFrom} (30 days ago); give ${names.dateFrom} too`;
  }
  if (!context.inZone && context.maxDays && !problems[names.dateFrom] && !problems[names.dateTo] && daysInWindow(from, to) > context.maxDays) {
    problems[names.dateTo] = `the daily series covers at most ${context.maxDays} days`;
  }
  return { ...dimensionsOf(filters, context.visibleClinics), from, to };
}

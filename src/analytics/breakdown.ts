// The summary metrics of a window broken down by one or two dimensions (clinic, campaign, channel,
// type, direction, outcome), one group per combination that has interactions, in one statement.
//
// Sources, as for every metric (rollups/counted.ts): whole months and other full UTC days from the
// rollup levels (a month the window holds most of read whole, less the days it does not hold), the
// partial days at the window's edges raw. Which levels, narrowest first: a breakdown by outcome
// reads the outcome grain with the campaign as a key (the only one holding the outcome with
// durations); one by campaign, or filtered by a campaign, the totals grain with the campaign as a
// key; the others the totals levels, summed over every clinic when the key sees every clinic and
// the clinic is not a group key.
import type { Db } from '../db/client.js';
import { and, num, prepared, queryRows } from '../db/client.js';
import type { ChannelValue, DirectionValue, InteractionTypeValue } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import {
  CAMPAIGN_TOTALS,
  CAMPAIGNS,
  campaignCountedTotals,
  dimensionConditions,
  RAW_COUNTED_TOTALS,
  type RollupLevels,
  rawRangeConditions,
  rollupParts,
  splitWindow,
  TOTALS,
  totalsColumns,
  UTC_DAY,
} from '../rollups/counted.js';
import { SUMS, type SumsRow } from '../rollups/sums.js';
import type { MetricsFilter } from './filter.js';
import { type SummaryMetrics, summaryMetrics } from './summary.js';
import { totalsOf } from './totals.js';

export const DIMENSIONS = ['clinic', 'campaign', 'channel', 'type', 'direction', 'outcome'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** At most this many dimensions in one breakdown. */
export const MAX_GROUP_BY = 2;

/** One group: its keys (only those grouped by are present) and its summary metrics. */
export interface BreakdownGroup {
  clinicId?: string;
  /** null: interactions without a campaign. */
  campaignId?: string | null;
  channel?: ChannelValue;
  type?: InteractionTypeValue;
  direction?: DirectionValue;
  /** null: interactions without an outcome. */
  outcome?: string | null;
  metrics: SummaryMetrics;
}

export interface BreakdownPage {
  groups: BreakdownGroup[];
  /** Groups in the whole breakdown (every page). */
  total: number;
}

/** Each dimension's group key over COUNTED DIMENSION rows, where '' is "none" (null in the answer). */
const KEY: Record<Dimension, string> = {
  clinic: 'clinic_id::text',
  campaign: "nullif(campaign_id, '')",
  channel: 'channel::text',
  type: 'type::text',
  direction: 'direction::text',
  outcome: "nullif(outcome, '')",
};

/**
 * The interactions of the filter as COUNTED DIMENSION rows `(day, clinic_id, campaign_id, type,
 * outcome, ...COUNTED TOTALS columns)`, campaign and outcome '' for none; from levels without a
 * column the groups do not need, that column is a constant. Rows subtracted from a month read whole
 * carry negated measures (rollupParts): only sums are taken of them.
 */
function countedDimensions(filter: MetricsFilter, groupBy: readonly Dimension[]): Prisma.Sql {
  let levels: RollupLevels;
  let columns: (sign: 1 | -1) => Prisma.Sql;
  if (groupBy.includes('outcome')) {
    levels = CAMPAIGNS;
    columns = (sign) => Prisma.sql`clinic_id, campaign_id, type, outcome, ${campaignCountedTotals(sign)}`;
  } else if (groupBy.includes('campaign') || filter.campaignId !== undefined) {
    levels = CAMPAIGN_TOTALS;
    columns = (sign) => Prisma.sql`clinic_id, campaign_id, type, ''::text AS outcome, ${totalsColumns(sign)}`;
  } else if (groupBy.includes('clinic') || filter.clinicIds !== undefined) {
    // (per clinic even for a key that sees every clinic: the clinic is a group key)
    levels = { ...TOTALS, dayAllClinics: TOTALS.day, monthAllClinics: TOTALS.month };
    columns = (sign) => Prisma.sql`clinic_id, ''::text AS campaign_id, type, ''::text AS outcome, ${totalsColumns(sign)}`;
  } else {
    levels = TOTALS;
    columns = (sign) => Prisma.sql`NULL::uuid AS clinic_id, ''::text AS campaign_id, type, ''::text AS outcome, ${totalsColumns(sign)}`;
  }
  const split = splitWindow(filter.from, filter.to);
  const parts = split.days ? rollupParts(split.days, levels, columns(1), filter, { negated: columns(-1) }) : [];
  const dimensions = dimensionConditions(filter);
  for (const range of split.raw) {
    parts.push(Prisma.sql`
      SELECT ${UTC_DAY} AS day, clinic_id, coalesce(campaign_id, '') AS campaign_id, type, coalesce(outcome, '') AS outcome, ${RAW_COUNTED_TOTALS}
      FROM interactions
      WHERE ${and([...rawRangeConditions(range), ...dimensions])}`);
  }
  return Prisma.join(parts, '\n      UNION ALL');
}

export function breakdownQuery(filter: MetricsFilter, groupBy: readonly Dimension[], page: { skip: number; take: number }): Prisma.Sql {
  const keys = Prisma.raw(groupBy.map((d, i) => `${KEY[d]} AS k${i}`).join(', '));
  const grouped = Prisma.raw(groupBy.map((_, i) => String(i + 1)).join(', '));
  // The window count rides on the page's rows (a page past the last has none: metricsBreakdown).
  return Prisma.sql`
    WITH counted AS (${countedDimensions(filter, groupBy)}),
    groups AS (
      SELECT ${keys}, ${SUMS} FROM counted GROUP BY ${grouped} HAVING sum(n) <> 0
    )
    SELECT g.*, count(*) OVER ()::bigint AS groups FROM groups AS g
    ORDER BY ${orderOf(groupBy)}
    LIMIT ${page.take} OFFSET ${page.skip}`;
}

/**
 * Largest group first, then the keys ascending, nulls last: clinics by id, the others by their
 * text's bytes (COLLATE "C": the same on every server, whatever its locale; enums by their REST
 * spelling rather than their declaration order).
 */
function orderOf(groupBy: readonly Dimension[]): Prisma.Sql {
  const keyOrder = groupBy.map((d, i) => (d === 'clinic' ? `k${i}::uuid ASC` : `k${i} COLLATE "C" ASC NULLS LAST`));
  return Prisma.raw(['total DESC', ...keyOrder].join(', '));
}

type GroupRow = SumsRow & { k0: string | null; k1?: string | null; groups: bigint };

const TOTAL_GROUPS = (filter: MetricsFilter, groupBy: readonly Dimension[]) => Prisma.sql`
    WITH counted AS (${countedDimensions(filter, groupBy)})
    SELECT count(*)::bigint AS groups FROM (
      SELECT 1 FROM counted GROUP BY ${Prisma.raw(groupBy.map((d) => KEY[d]).join(', '))} HAVING sum(n) <> 0
    ) AS g`;

export async function metricsBreakdown(
  db: Db,
  filter: MetricsFilter,
  groupBy: readonly Dimension[],
  page: { skip: number; take: number },
): Promise<BreakdownPage> {
  const rows = await queryRows<GroupRow>(db, prepared(`metrics_breakdown_${groupBy.join('_')}`, breakdownQuery(filter, groupBy, page)));
  let total = num(rows[0]?.groups);
  if (rows.length === 0 && page.skip > 0) {
    // A page past the last: the window count had no row to ride on.
    const [row] = await queryRows<{ groups: bigint }>(db, TOTAL_GROUPS(filter, groupBy));
    total = num(row?.groups);
  }
  return {
    total,
    groups: rows.map((row) => {
      const group: BreakdownGroup = { metrics: summaryMetrics(totalsOf(row)) };
      groupBy.forEach((dimension, i) => {
        setKey(group, dimension, i === 0 ? row.k0 : (row.k1 ?? null));
      });
      return group;
    }),
  };
}

function setKey(group: BreakdownGroup, dimension: Dimension, value: string | null): void {
  switch (dimension) {
    case 'clinic':
      group.clinicId = value!;
      break;
    case 'campaign':
      group.campaignId = value;
      break;
    case 'channel':
      group.channel = value as ChannelValue;
      break;
    case 'type':
      group.type = value as InteractionTypeValue;
      break;
    case 'direction':
      group.direction = value as DirectionValue;
      break;
    case 'outcome':
      group.outcome = value;
      break;
  }
}

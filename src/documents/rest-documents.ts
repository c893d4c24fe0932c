// The REST facade's fixed GraphQL documents that take interaction filters, written to
// schema/rest/*.graphql by `npm run generate` (write-rest-documents.ts) for codegen to type. Their
// filters' variables and arguments are spelt from the filters' declarations
// (filters/interaction-filters.ts), so a filter declared for a read reaches its REST documents
// without an edit here.
import { type FilterReader, filtersOf, INTERACTION_FILTERS } from '../filters/interaction-filters.js';

/** A filter's GraphQL type as a variable declares it. */
function variableType(input: (typeof INTERACTION_FILTERS)[keyof typeof INTERACTION_FILTERS]['input']): string {
  if ('scalar' in input) return input.scalar;
  return 'list' in input ? `[${input.enum}!]` : input.enum;
}

const filterVariables = (reader: FilterReader) => filtersOf(reader).map((key) => `  $${key}: ${variableType(INTERACTION_FILTERS[key].input)}`).join('\n');
const filterArguments = (reader: FilterReader) => filtersOf(reader).map((key) => `    ${key}: $${key}`).join('\n');

/** File name under schema/rest/ -> the document. */
export const REST_FILTER_DOCUMENTS: Readonly<Record<string, string>> = {
  'interactions.graphql': `# GET /api/v1/interactions (pages; with \`cursor\` or \`updated_since\`: interactions-by-cursor.graphql)
query RestInteractions(
  $page: Int
  $limit: Int
  $dateFrom: String
  $dateTo: String
${filterVariables('lists')}
  $order: SortOrder
  $includeTotal: Boolean = true
) {
  interactions(
    page: $page
    limit: $limit
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('lists')}
    order: $order
    includeTotal: $includeTotal
  ) {
    nodes {
      ...RestInteractionFields
      transcript {
        role
        content
      }
    }
    pageInfo {
      page
      limit
      ... @include(if: $includeTotal) {
        total
        totalPages
      }
      hasMore
    }
  }
}
`,
  'interactions-by-cursor.graphql': `# GET /api/v1/interactions with \`cursor\` or \`updated_since\` (cursor paging and the change feed)
query RestInteractionsByCursor(
  $limit: Int
  $cursor: String
  $order: SortOrder
  $includeTotal: Boolean
  $updatedSince: String
  $dateFrom: String
  $dateTo: String
${filterVariables('lists')}
) {
  interactionsConnection(
    first: $limit
    after: $cursor
    order: $order
    includeTotal: $includeTotal
    updatedSince: $updatedSince
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('lists')}
  ) {
    nodes {
      ...RestInteractionFields
      updatedAt
      transcript {
        role
        content
      }
    }
    pageInfo {
      limit
      total
      hasMore
      nextCursor
    }
  }
}
`,
  'metrics-summary.graphql': `# GET /api/v1/metrics/summary
query RestMetricsSummary(
  $dateFrom: String
  $dateTo: String
${filterVariables('summary')}
  $timezone: String
  $compare: MetricsComparison
) {
  metricsSummary(
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('summary')}
    timezone: $timezone
    compare: $compare
  ) {
    ...RestSummaryFields
    previous {
      ...RestSummaryFields
    }
    change {
      totalInteractions
      totalCalls
      totalConversations
      inboundCount
      outboundCount
      avgDurationSeconds
      totalDurationSeconds
      successRate
      appointmentsScheduled
    }
  }
}
`,
  'metrics-daily.graphql': `# GET /api/v1/metrics/daily
query RestMetricsDaily(
  $dateFrom: String
  $dateTo: String
${filterVariables('metrics')}
  $timezone: String
  $compare: MetricsComparison
) {
  metricsDailyReport(
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('metrics')}
    timezone: $timezone
    compare: $compare
  ) {
    daily {
      ...RestDailyFields
    }
    previous {
      ...RestDailyFields
    }
  }
}
`,
  'metrics-series.graphql': `# GET /api/v1/metrics/series
query RestMetricsSeries(
  $dateFrom: String
  $dateTo: String
${filterVariables('metrics')}
  $timezone: String
  $compare: MetricsComparison
  $granularity: Granularity
) {
  metricsSeries(
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('metrics')}
    timezone: $timezone
    compare: $compare
    granularity: $granularity
  ) {
    series {
      ...RestSeriesFields
    }
    previous {
      ...RestSeriesFields
    }
  }
}
`,
  'metrics-outcomes.graphql': `# GET /api/v1/metrics/outcomes
query RestMetricsOutcomes(
  $dateFrom: String
  $dateTo: String
${filterVariables('metrics')}
  $timezone: String
  $compare: MetricsComparison
) {
  metricsOutcomes(
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('metrics')}
    timezone: $timezone
    compare: $compare
  ) {
    ...RestOutcomesFields
    previous {
      ...RestOutcomesFields
    }
  }
}
`,
  'metrics-breakdown.graphql': `# GET /api/v1/metrics/breakdown
query RestMetricsBreakdown(
  $page: Int
  $limit: Int
  $dateFrom: String
  $dateTo: String
${filterVariables('metrics')}
  $timezone: String
  $groupBy: [MetricsDimension!]
) {
  metricsBreakdown(
    page: $page
    limit: $limit
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('metrics')}
    timezone: $timezone
    groupBy: $groupBy
  ) {
    groupBy
    groups {
      clinicId
      clinicName
      campaignId
      campaignName
      channel
      type
      direction
      outcome
      metrics {
        ...RestSummaryFields
      }
    }
    pageInfo {
      ...RestPageInfo
    }
  }
}
`,
  'metrics-durations.graphql': `# GET /api/v1/metrics/durations
query RestMetricsDurations(
  $dateFrom: String
  $dateTo: String
${filterVariables('metrics')}
  $timezone: String
) {
  metricsDurations(
    dateFrom: $dateFrom
    dateTo: $dateTo
${filterArguments('metrics')}
    timezone: $timezone
  ) {
    count
    percentiles {
      p50
      p75
      p90
      p95
      p99
    }
    histogram {
      fromSeconds
      toSeconds
      count
    }
    precisionSeconds
  }
}
`,
};

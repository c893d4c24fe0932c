/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query RestCampaigns($page: Int, $limit: Int, $clinicId: ID, $status: CampaignStatus) {\n  campaigns(page: $page, limit: $limit, clinicId: $clinicId, status: $status) {\n    nodes {\n      ...RestCampaignFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": typeof types.RestCampaignsDocument,
    "query RestClinics($page: Int, $limit: Int) {\n  clinics(page: $page, limit: $limit) {\n    nodes {\n      ...RestClinicFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": typeof types.RestClinicsDocument,
    "fragment RestInteractionFields on Interaction {\n  id\n  channel\n  type\n  direction\n  phoneNumber\n  clinicId\n  startedAt\n  endedAt\n  durationSeconds\n  outcome\n  summary\n  recordingUrl\n}\n\nfragment RestPageInfo on PageInfo {\n  page\n  limit\n  total\n  totalPages\n  hasMore\n}\n\nfragment RestClinicFields on Clinic {\n  id\n  name\n  address\n  phone\n  email\n  timezone\n  createdAt\n}\n\nfragment RestCampaignFields on Campaign {\n  id\n  name\n  description\n  type\n  channel\n  status\n  clinicId\n  createdAt\n  updatedAt\n  settings\n}": typeof types.RestInteractionFieldsFragmentDoc,
    "query RestInteraction($id: ID!) {\n  interaction(id: $id) {\n    ...RestInteractionFields\n    transcript {\n      role\n      content\n    }\n  }\n}": typeof types.RestInteractionDocument,
    "query RestInteractions($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType, $outcomes: [Outcome!], $clinicId: ID, $search: String) {\n  interactions(\n    page: $page\n    limit: $limit\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    channel: $channel\n    type: $type\n    outcomes: $outcomes\n    clinicId: $clinicId\n    search: $search\n  ) {\n    nodes {\n      ...RestInteractionFields\n      transcript {\n        role\n        content\n      }\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": typeof types.RestInteractionsDocument,
    "query RestMetricsDaily($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsDaily(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    date\n    total\n    calls\n    conversations\n    inbound\n    outbound\n    appointmentsScheduled\n    successRate\n    avgDurationSeconds\n  }\n}": typeof types.RestMetricsDailyDocument,
    "query RestMetricsOutcomes($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsOutcomes(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    outcomes {\n      outcome\n      label\n      count\n      percentage\n    }\n    total\n  }\n}": typeof types.RestMetricsOutcomesDocument,
    "query RestMetricsSummary($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel) {\n  metricsSummary(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n  ) {\n    totalInteractions\n    totalCalls\n    totalConversations\n    inboundCount\n    outboundCount\n    avgDurationSeconds\n    totalDurationSeconds\n    successRate\n    appointmentsScheduled\n  }\n}": typeof types.RestMetricsSummaryDocument,
};
const documents: Documents = {
    "query RestCampaigns($page: Int, $limit: Int, $clinicId: ID, $status: CampaignStatus) {\n  campaigns(page: $page, limit: $limit, clinicId: $clinicId, status: $status) {\n    nodes {\n      ...RestCampaignFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": types.RestCampaignsDocument,
    "query RestClinics($page: Int, $limit: Int) {\n  clinics(page: $page, limit: $limit) {\n    nodes {\n      ...RestClinicFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": types.RestClinicsDocument,
    "fragment RestInteractionFields on Interaction {\n  id\n  channel\n  type\n  direction\n  phoneNumber\n  clinicId\n  startedAt\n  endedAt\n  durationSeconds\n  outcome\n  summary\n  recordingUrl\n}\n\nfragment RestPageInfo on PageInfo {\n  page\n  limit\n  total\n  totalPages\n  hasMore\n}\n\nfragment RestClinicFields on Clinic {\n  id\n  name\n  address\n  phone\n  email\n  timezone\n  createdAt\n}\n\nfragment RestCampaignFields on Campaign {\n  id\n  name\n  description\n  type\n  channel\n  status\n  clinicId\n  createdAt\n  updatedAt\n  settings\n}": types.RestInteractionFieldsFragmentDoc,
    "query RestInteraction($id: ID!) {\n  interaction(id: $id) {\n    ...RestInteractionFields\n    transcript {\n      role\n      content\n    }\n  }\n}": types.RestInteractionDocument,
    "query RestInteractions($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType, $outcomes: [Outcome!], $clinicId: ID, $search: String) {\n  interactions(\n    page: $page\n    limit: $limit\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    channel: $channel\n    type: $type\n    outcomes: $outcomes\n    clinicId: $clinicId\n    search: $search\n  ) {\n    nodes {\n      ...RestInteractionFields\n      transcript {\n        role\n        content\n      }\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}": types.RestInteractionsDocument,
    "query RestMetricsDaily($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsDaily(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    date\n    total\n    calls\n    conversations\n    inbound\n    outbound\n    appointmentsScheduled\n    successRate\n    avgDurationSeconds\n  }\n}": types.RestMetricsDailyDocument,
    "query RestMetricsOutcomes($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsOutcomes(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    outcomes {\n      outcome\n      label\n      count\n      percentage\n    }\n    total\n  }\n}": types.RestMetricsOutcomesDocument,
    "query RestMetricsSummary($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel) {\n  metricsSummary(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n  ) {\n    totalInteractions\n    totalCalls\n    totalConversations\n    inboundCount\n    outboundCount\n    avgDurationSeconds\n    totalDurationSeconds\n    successRate\n    appointmentsScheduled\n  }\n}": types.RestMetricsSummaryDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestCampaigns($page: Int, $limit: Int, $clinicId: ID, $status: CampaignStatus) {\n  campaigns(page: $page, limit: $limit, clinicId: $clinicId, status: $status) {\n    nodes {\n      ...RestCampaignFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"): (typeof documents)["query RestCampaigns($page: Int, $limit: Int, $clinicId: ID, $status: CampaignStatus) {\n  campaigns(page: $page, limit: $limit, clinicId: $clinicId, status: $status) {\n    nodes {\n      ...RestCampaignFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestClinics($page: Int, $limit: Int) {\n  clinics(page: $page, limit: $limit) {\n    nodes {\n      ...RestClinicFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"): (typeof documents)["query RestClinics($page: Int, $limit: Int) {\n  clinics(page: $page, limit: $limit) {\n    nodes {\n      ...RestClinicFields\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "fragment RestInteractionFields on Interaction {\n  id\n  channel\n  type\n  direction\n  phoneNumber\n  clinicId\n  startedAt\n  endedAt\n  durationSeconds\n  outcome\n  summary\n  recordingUrl\n}\n\nfragment RestPageInfo on PageInfo {\n  page\n  limit\n  total\n  totalPages\n  hasMore\n}\n\nfragment RestClinicFields on Clinic {\n  id\n  name\n  address\n  phone\n  email\n  timezone\n  createdAt\n}\n\nfragment RestCampaignFields on Campaign {\n  id\n  name\n  description\n  type\n  channel\n  status\n  clinicId\n  createdAt\n  updatedAt\n  settings\n}"): (typeof documents)["fragment RestInteractionFields on Interaction {\n  id\n  channel\n  type\n  direction\n  phoneNumber\n  clinicId\n  startedAt\n  endedAt\n  durationSeconds\n  outcome\n  summary\n  recordingUrl\n}\n\nfragment RestPageInfo on PageInfo {\n  page\n  limit\n  total\n  totalPages\n  hasMore\n}\n\nfragment RestClinicFields on Clinic {\n  id\n  name\n  address\n  phone\n  email\n  timezone\n  createdAt\n}\n\nfragment RestCampaignFields on Campaign {\n  id\n  name\n  description\n  type\n  channel\n  status\n  clinicId\n  createdAt\n  updatedAt\n  settings\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestInteraction($id: ID!) {\n  interaction(id: $id) {\n    ...RestInteractionFields\n    transcript {\n      role\n      content\n    }\n  }\n}"): (typeof documents)["query RestInteraction($id: ID!) {\n  interaction(id: $id) {\n    ...RestInteractionFields\n    transcript {\n      role\n      content\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestInteractions($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType, $outcomes: [Outcome!], $clinicId: ID, $search: String) {\n  interactions(\n    page: $page\n    limit: $limit\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    channel: $channel\n    type: $type\n    outcomes: $outcomes\n    clinicId: $clinicId\n    search: $search\n  ) {\n    nodes {\n      ...RestInteractionFields\n      transcript {\n        role\n        content\n      }\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"): (typeof documents)["query RestInteractions($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType, $outcomes: [Outcome!], $clinicId: ID, $search: String) {\n  interactions(\n    page: $page\n    limit: $limit\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    channel: $channel\n    type: $type\n    outcomes: $outcomes\n    clinicId: $clinicId\n    search: $search\n  ) {\n    nodes {\n      ...RestInteractionFields\n      transcript {\n        role\n        content\n      }\n    }\n    pageInfo {\n      ...RestPageInfo\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestMetricsDaily($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsDaily(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    date\n    total\n    calls\n    conversations\n    inbound\n    outbound\n    appointmentsScheduled\n    successRate\n    avgDurationSeconds\n  }\n}"): (typeof documents)["query RestMetricsDaily($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsDaily(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    date\n    total\n    calls\n    conversations\n    inbound\n    outbound\n    appointmentsScheduled\n    successRate\n    avgDurationSeconds\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestMetricsOutcomes($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsOutcomes(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    outcomes {\n      outcome\n      label\n      count\n      percentage\n    }\n    total\n  }\n}"): (typeof documents)["query RestMetricsOutcomes($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {\n  metricsOutcomes(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n    type: $type\n  ) {\n    outcomes {\n      outcome\n      label\n      count\n      percentage\n    }\n    total\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query RestMetricsSummary($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel) {\n  metricsSummary(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n  ) {\n    totalInteractions\n    totalCalls\n    totalConversations\n    inboundCount\n    outboundCount\n    avgDurationSeconds\n    totalDurationSeconds\n    successRate\n    appointmentsScheduled\n  }\n}"): (typeof documents)["query RestMetricsSummary($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel) {\n  metricsSummary(\n    dateFrom: $dateFrom\n    dateTo: $dateTo\n    clinicId: $clinicId\n    channel: $channel\n  ) {\n    totalInteractions\n    totalCalls\n    totalConversations\n    inboundCount\n    outboundCount\n    avgDurationSeconds\n    totalDurationSeconds\n    successRate\n    appointmentsScheduled\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;
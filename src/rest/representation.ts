// From GraphQL results to the REST representations of the spec: snake_case fields in the spec's
// order, lowercase enum values, and the per-channel field rules of decisions section 3.
import type {
  RestCampaignFieldsFragment,
  RestClinicFieldsFragment,
  RestInteractionFieldsFragment,
  RestMetricsDailyQuery,
  RestMetricsSummaryQuery,
  RestPageInfoFragment,
} from '../documents/graphql.js';
import type { PaginationMeta } from './envelope.js';

type TranscriptEntry = { role: string; content: string };

export function toInteraction(
  node: RestInteractionFieldsFragment & { transcript?: TranscriptEntry[] | null },
  view: 'list' | 'detail',
): Record<string, unknown> {
  const voice = node.channel === 'VOICE';
  const body: Record<string, unknown> = {
    id: node.id,
    channel: node.channel.toLowerCase(),
    type: node.type,
    direction: node.direction.toLowerCase(),
    phone_number: node.phoneNumber,
    clinic_id: node.clinicId,
    started_at: node.startedAt,
    ended_at: node.endedAt ?? null,
  };
  // WhatsApp conversations have no duration or recording; voice calls carry no transcript in lists.
  if (voice) body.duration_seconds = node.durationSeconds ?? null;
  body.outcome = node.outcome ?? null;
  if (!voice || view === 'detail') body.transcript = (node.transcript ?? []).map(({ role, content }) => ({ role, content }));
  body.summary = node.summary ?? null;
  if (voice) body.recording_url = node.recordingUrl ?? null;
  return body;
}

export function toClinic(node: RestClinicFieldsFragment): Record<string, unknown> {
  return {
    id: node.id,
    name: node.name,
    address: node.address,
    phone: node.phone,
    email: node.email,
    timezone: node.timezone,
    created_at: node.createdAt,
  };
}

export function toCampaign(node: RestCampaignFieldsFragment): Record<string, unknown> {
  return {
    id: node.id,
    name: node.name,
    description: node.description,
    type: node.type.toLowerCase(),
    channel: node.channel.toLowerCase(),
    status: node.status.toLowerCase(),
    clinic_id: node.clinicId,
    created_at: node.createdAt,
    updated_at: node.updatedAt,
    settings: node.settings,
  };
}

export function toMeta(pageInfo: RestPageInfoFragment): PaginationMeta {
  return {
    page: pageInfo.page,
    limit: pageInfo.limit,
    total: pageInfo.total,
    total_pages: pageInfo.totalPages,
    has_more: pageInfo.hasMore,
  };
}

type SummaryMetrics = NonNullable<RestMetricsSummaryQuery['metricsSummary']>;
type DailyMetric = NonNullable<RestMetricsDailyQuery['metricsDaily']>[number];

// Written out rather than derived from the keys: a daily series over a year has 365 entries, and
// renaming keys by pattern per entry was a fifth of such a request's CPU time.
export function toSummaryMetrics(summary: SummaryMetrics): Record<string, unknown> {
  return {
    total_interactions: summary.totalInteractions,
    total_calls: summary.totalCalls,
    total_conversations: summary.totalConversations,
    inbound_count: summary.inboundCount,
    outbound_count: summary.outboundCount,
    avg_duration_seconds: summary.avgDurationSeconds,
    total_duration_seconds: summary.totalDurationSeconds,
    success_rate: summary.successRate,
    appointments_scheduled: summary.appointmentsScheduled,
  };
}

export function toDailyMetric(day: DailyMetric): Record<string, unknown> {
  return {
    date: day.date,
    total: day.total,
    calls: day.calls,
    conversations: day.conversations,
    inbound: day.inbound,
    outbound: day.outbound,
    appointments_scheduled: day.appointmentsScheduled,
    success_rate: day.successRate,
    avg_duration_seconds: day.avgDurationSeconds,
  };
}

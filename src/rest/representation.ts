// From GraphQL results to the REST representations of the spec: snake_case fields in the spec's
// order, lowercase enum values, and the per-channel field rules of decisions section 3.
import type {
  RestCampaignFieldsFragment,
  RestClinicFieldsFragment,
  RestInteractionFieldsFragment,
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

/** camelCase keys to snake_case, for the metrics objects whose fields map one to one. */
export function snakeKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

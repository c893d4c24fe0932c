// The GraphQL schema: every domain module registers its types and root fields on the builder.
import { builder, fieldRateLimitsOf } from './builder.js';
import './schema/enums.js';
import './schema/interaction.js';
import './schema/interaction-connection.js';
import './schema/text-highlights.js';
import './schema/deleted-interactions.js';
import './schema/clinic.js';
import './schema/campaign.js';
import './schema/metrics.js';
import './schema/metrics-dimensions.js';
import './schema/entity-metrics.js';
import './schema/viewer.js';

builder.queryType({ description: 'Read-only access to clinics, campaigns, interactions and their metrics.' });

export const schema = builder.toSchema({ sortSchema: false });

/** The per-key limits on expensive Query fields, derived from their declared costs (checked at start-up). */
export const FIELD_RATE_LIMITS = fieldRateLimitsOf(schema);

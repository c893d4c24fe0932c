// The bench's "Yoga floor" (bench/README.md, "PostGraphile peer"): what the service's design costs
// before any of its own code. graphql-yoga (the project's own) over node:http, an SDL schema with
// exactly the fields the peer's GraphQL documents ask (bench/peer.ts), each root field resolved by
// one plain `pg` statement. No authentication, no quotas, no masking, no plugins beyond Yoga's
// defaults: the service's GraphQL figures minus the floor's are what its own code costs per request.
//
// Plain node:http; `/health/ready` answers 200 once the database answers (startServer in
// bench/processes.ts waits for it); everything else goes to Yoga (`/graphql`). The bench's
// `Authorization` header is ignored.
//
// Answers are spelled as the service spells them (enum values VOICE, WHATSAPP; instants as ISO 8601
// UTC with milliseconds), so that the peer's check reads them as it reads the service's GraphQL.
//
// Environment: DATABASE_URL (required), PORT (default 4300), HOST (127.0.0.1), DATABASE_POOL_SIZE
// (10, as the service's default).
import http from 'node:http';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import pg from 'pg';

const DATABASE_URL = process.env.DATABASE_URL;
const PORT = Number(process.env.PORT ?? 4300);
const HOST = process.env.HOST ?? '127.0.0.1';
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);

const typeDefs = /* GraphQL */ `
  scalar DateTime

  enum Channel {
    VOICE
    WHATSAPP
  }

  enum InteractionType {
    APPOINTMENT_REMINDER
    CAMPAIGN_CALLBACK
    CAMPAIGN_OUTBOUND
    FORM_OUTBOUND
    INBOUND
  }

  type Clinic {
    name: String!
  }

  type Campaign {
    name: String!
  }

  type Interaction {
    id: ID!
    startedAt: DateTime!
    channel: Channel!
    type: InteractionType!
    outcome: String
    durationSeconds: Int
    clinic: Clinic
    campaign: Campaign
  }

  type PageInfo {
    total: Int!
  }

  type InteractionPage {
    nodes: [Interaction!]!
    pageInfo: PageInfo!
  }

  type MetricsSummary {
    totalInteractions: Int!
  }

  type OutcomeBreakdown {
    outcome: String!
    count: Int!
  }

  type OutcomeBreakdownResult {
    outcomes: [OutcomeBreakdown!]!
  }

  type Query {
    interactions(limit: Int, clinicId: ID, channel: Channel): InteractionPage
    metricsSummary(dateFrom: String!, dateTo: String!): MetricsSummary
    metricsOutcomes(dateFrom: String!, dateTo: String!): OutcomeBreakdownResult
  }
`;

/** The arguments of `interactions`, which its page's rows and its total share. */
interface PageArgs {
  limit?: number | null;
  clinicId?: string | null;
  /** The database's value (`voice`): the Channel enum's internal values are the database's. */
  channel?: string | null;
}

interface WindowArgs {
  dateFrom: string;
  dateTo: string;
}

interface InteractionRow {
  id: string;
  startedAt: Date;
  channel: string;
  type: string;
  outcome: string | null;
  durationSeconds: number | null;
  clinicName: string;
  campaignName: string | null;
}

/**
 * The WHERE of a page and of its total, with its parameters after `first` (the page's limit):
 * one statement text per combination of filters, so that each is a named statement of its own.
 */
function where(args: PageArgs, first: number): { name: string; sql: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const names: string[] = [];
  if (args.clinicId) {
    values.push(args.clinicId);
    conditions.push(`i.clinic_id = $${first + values.length}::uuid`);
    names.push('clinic');
  }
  if (args.channel) {
    values.push(args.channel);
    conditions.push(`i.channel = $${first + values.length}::"Channel"`);
    names.push('channel');
  }
  return { name: names.join(' '), sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

/** A UTC day (YYYY-MM-DD) as the instant it starts, `days` later. */
function dayStart(day: string, days = 0): Date {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at)) throw new GraphQLError(`Not a date (YYYY-MM-DD): ${day}`);
  return new Date(at + days * 86_400_000);
}

/** The window's bounds: dateFrom 00:00Z included to the day after dateTo, 00:00Z, excluded. */
const bounds = (args: WindowArgs) => [dayStart(args.dateFrom), dayStart(args.dateTo, 1)];

function schema(pool: pg.Pool) {
  const one = async <T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => (await pool.query<T>({ name, text, values })).rows;
  return createSchema({
    typeDefs,
    resolvers: {
      DateTime: new GraphQLScalarType({
        name: 'DateTime',
        serialize: (value) => (value as Date).toISOString(),
      }),
      // Internal values are the database's enum values; GraphQL spells them in upper case.
      Channel: { VOICE: 'voice', WHATSAPP: 'whatsapp' },
      Query: {
        interactions: (_: unknown, args: PageArgs) => args,
        metricsSummary: async (_: unknown, args: WindowArgs) => {
          const [row] = await one<{ total: number }>(
            'summary',
            'SELECT count(*)::int AS total FROM interactions WHERE started_at >= $1 AND started_at < $2',
            bounds(args),
          );
          return { totalInteractions: row!.total };
        },
        metricsOutcomes: async (_: unknown, args: WindowArgs) => ({
          outcomes: await one<{ outcome: string; count: number }>(
            'outcomes',
            'SELECT outcome, count(*)::int AS count FROM interactions WHERE started_at >= $1 AND started_at < $2 AND outcome IS NOT NULL' +
              ' GROUP BY outcome ORDER BY count DESC, outcome',
            bounds(args),
          ),
        }),
      },
      InteractionPage: {
        nodes: (args: PageArgs) => {
          const filter = where(args, 1);
          return one<InteractionRow>(
            `page ${filter.name}`,
            'SELECT i.id, i.started_at AS "startedAt", i.channel, i.type, i.outcome, i.duration_seconds AS "durationSeconds",' +
              ' c.name AS "clinicName", p.name AS "campaignName"' +
              ' FROM interactions i JOIN clinics c ON c.id = i.clinic_id' +
              ' LEFT JOIN campaigns p ON p.id = i.campaign_id AND p.clinic_id = i.clinic_id' +
              ` ${filter.sql} ORDER BY i.started_at DESC, i.id DESC LIMIT $1`,
            [args.limit ?? 50, ...filter.values],
          );
        },
        pageInfo: async (args: PageArgs) => {
          const filter = where(args, 0);
          const [row] = await one<{ total: number }>(`total ${filter.name}`, `SELECT count(*)::int AS total FROM interactions i ${filter.sql}`, filter.values);
          return { total: row!.total };
        },
      },
      Interaction: {
        clinic: (row: InteractionRow) => ({ name: row.clinicName }),
        campaign: (row: InteractionRow) => (row.campaignName === null ? null : { name: row.campaignName }),
      },
    },
  });
}

async function main(): Promise<void> {
  if (!DATABASE_URL) throw new Error('DATABASE_URL is required');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE });
  const yoga = createYoga({ schema: schema(pool), logging: false, landingPage: false });
  let ready = false;
  const server = http.createServer((req, res) => {
    if (req.url === '/health/ready' || req.url === '/health/live') {
      res.writeHead(ready || req.url === '/health/live' ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ok' : 'starting');
      return;
    }
    void yoga(req, res);
  });
  server.listen(PORT, HOST);
  await pool.query('SELECT 1');
  ready = true;
  console.log(`Yoga floor ready on http://${HOST}:${PORT}/graphql (pool ${POOL_SIZE})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

// `deletedInteractions`: the tombstones of purged interactions, for clients that mirror the data
// (the GraphQL side of REST's GET /api/v1/interactions/deleted, which runs this field).
import { checkPaging, hasControlCharacter, type Problems, parseDateBound } from '../../domain/parameters.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/values.js';
import type { ParameterNames } from '../../filters/interaction-filters.js';
import { CursorError, cursorCodec, type Position } from '../../interactions/cursor.js';
import { listTombstonesAfter, type Tombstone, type TombstonePage, tombstoneList } from '../../interactions/tombstones.js';
import type { GraphQLContext } from '../builder.js';
import { builder, checked, rejected } from '../builder.js';
import { CursorPageInfo } from './interaction-connection.js';

const DeletedInteraction = builder.objectRef<Tombstone>('DeletedInteraction').implement({
  description:
    'A tombstone: an interaction that was deleted (erased or past its retention period). It carries no patient data; a client that keeps a copy of the interactions deletes this one from it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Id of the deleted interaction.' }),
    clinicId: t.exposeID('clinicId', { description: 'Clinic the interaction belonged to (UUID).' }),
    deletedAt: t.expose('deletedAt', {
      type: 'DateTime',
      description: 'When it was deleted. An id deleted again (imported anew, then deleted) has the later time.',
    }),
  }),
});

const DeletedInteractionConnection = builder.objectRef<TombstonePage>('DeletedInteractionConnection').implement({
  description: 'A page of tombstones read after a cursor.',
  fields: (t) => ({
    nodes: t.field({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      type: [DeletedInteraction],
      description: 'The tombstones of this page, by `deletedAt`, then `id`.',
      resolve: (page) => page.nodes(),
    }),
    pageInfo: t.field({
      databaseCost: { readsDatabase: false },
      type: CursorPageInfo,
      description: 'The next cursor and whether more follow.',
      resolve: (page) => page,
    }),
  }),
});

interface DeletedArgs {
  first?: number | null;
  after?: string | null;
  since?: string | null;
  includeTotal?: unknown;
}

/** GraphQL and REST both call the start `since`. */
const SINCE = 'since';

/** The arguments checked together, so that one answer names every problem. */
function checkDeletedList(raw: DeletedArgs, names: ParameterNames, problems: Problems) {
  const { limit } = checkPaging({ limit: raw.first }, { page: names.page, limit: names.first }, problems);
  let since: Date | undefined;
  if (raw.since != null) {
    since = parseDateBound(raw.since, 'from');
    if (!since) problems[SINCE] = 'must be an ISO 8601 date-time with Z or an offset (or a date, meaning the start of that UTC day)';
  }
  let includeTotal = true;
  if (raw.includeTotal != null) {
    if (typeof raw.includeTotal === 'boolean') includeTotal = raw.includeTotal;
    else problems[names.includeTotal] = 'must be true or false';
  }
  if (raw.after != null && hasControlCharacter(raw.after)) problems[names.after] = 'is not a valid cursor';
  return { limit, since, includeTotal, after: raw.after || null };
}

builder.queryFields((t) => ({
  deletedInteractions: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 20 },
    complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE) }),
    type: DeletedInteractionConnection,
    nullable: true,
    description:
      'Tombstones of deleted interactions (operators erase patients and apply retention periods with the CLI), oldest deletion first: a client that mirrors the interactions deletes these ids from its copy. Start without `after`, then pass `pageInfo.nextCursor` until it is null; later, resume with `since` set to the largest `deletedAt` seen. Deletions still being committed are held back until they commit, so resuming never skips one. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: {
      since: t.arg.string({
        description:
          'Only tombstones with `deletedAt` at or after this instant (ISO 8601 with Z or an offset; a date means the start of that UTC day). Default: every tombstone. Resume from the largest `deletedAt` seen (tombstones at exactly that instant come again: deleting twice is harmless).',
      }),
      first: t.arg.int({ description: 'Items per page, 1 to 500. Default 25.' }),
      after: t.arg.string({ description: 'The next cursor of the previous page; absent or empty for the first page.' }),
      includeTotal: t.arg.boolean({ description: 'False: `total` is null and nothing is counted. Default true.' }),
    },
    // Checked before anything is awaited: a request whose parameters are wrong fails synchronously
    // (the OpenAPI document executes the REST document that way to find a 400's details).
    resolve: (_root, args, context) => readTombstones(context, checked(context, args, checkDeletedList)),
  }),
}));

async function readTombstones(context: GraphQLContext, list: ReturnType<typeof checkDeletedList>): Promise<TombstonePage> {
  let after: Position | null = null;
  if (list.after) {
    const codec = await cursorCodec(context.db);
    try {
      after = codec.decode(list.after, tombstoneList(list.since));
    } catch (error) {
      if (error instanceof CursorError) throw rejected(context, (names) => ({ [names.after]: error.message }));
      throw error;
    }
  }
  return listTombstonesAfter(context.db, {
    visibleClinics: context.visibleClinics,
    since: list.since,
    after,
    limit: list.limit,
    includeTotal: list.includeTotal,
  });
}

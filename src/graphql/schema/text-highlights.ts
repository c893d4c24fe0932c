// `Interaction.highlights`: where the words of a full-text search (`text`) were found. The list
// that searched marks its rows with its text (interaction.ts, searchedRows); the field reads the
// fragments of a page's rows in one statement per distinct text (ts_headline, text-search.ts).
import DataLoader from 'dataloader';
import { readsPhi } from '../../auth/api-keys.js';
import { highlightsOf } from '../../interactions/text-search.js';
import type { GraphQLContext } from '../builder.js';
import { builder } from '../builder.js';
import { Interaction, searchedBy } from './interaction.js';

/** Context -> text -> loader of the fragments by interaction id. */
const loadersOf = new WeakMap<GraphQLContext, Map<string, DataLoader<string, string[]>>>();

function highlightLoader(context: GraphQLContext, text: string): DataLoader<string, string[]> {
  let byText = loadersOf.get(context);
  if (!byText) {
    byText = new Map();
    loadersOf.set(context, byText);
  }
  let loader = byText.get(text);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const found = await highlightsOf(context.db, text, ids);
      return ids.map((id) => found.get(id) ?? []);
    });
    byText.set(text, loader);
  }
  return loader;
}

builder.objectField(Interaction, 'highlights', (t) =>
  t.field({
    // ts_headline over the page's summaries and transcripts: work of its own, after the rows.
    databaseCost: { readsDatabase: true, units: 1 },
    type: ['String'],
    nullable: true,
    description:
      "Where the words of the list's full-text search (`text`) appear: up to three fragments of the summary and transcript, each matched word as it was written between `**` (`I want to **cancel** my appointment`). Null when the list was not searched by `text`.",
    resolve: (interaction, _args, context) => {
      const text = searchedBy.get(interaction);
      // What was said is patient data: a key without phi:read cannot search (403), and never reads it here either.
      if (text === undefined || !readsPhi(context.key)) return null;
      return highlightLoader(context, text).load(interaction.id);
    },
  }),
);

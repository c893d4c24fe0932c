// `rebuild`: recomputes every derived structure (rollups at every level, phone numbers and their
// fragments, search documents and word counts, data versions) from the source tables
// (src/db/rebuild.ts; what each structure is: src/db/derived.ts).
import type { Command } from 'commander';
import { rebuildDerived } from '../db/rebuild.js';
import { type CommandContext, withDatabase } from './context.js';

export function registerRebuild(program: Command, cli: CommandContext): void {
  program
    .command('rebuild')
    .description('recompute every derived table (rollups, phone numbers, search, data versions) from the data; writers wait until it commits')
    .action(async () => {
      const out = cli.output();
      const result = await withDatabase(cli, async ({ url }) => rebuildDerived(url, (structure) => out.info(`Rebuilding ${structure}...`)));
      out.result(result, () => {
        for (const { structure, rows, ms } of result.rebuilt) {
          const written = rows.reduce((sum, r) => sum + (r.rows ?? 0), 0);
          cli.console.log(`${structure}: ${written.toLocaleString('en-US')} rows in ${ms.toLocaleString('en-US')} ms`);
        }
        for (const { structure, why } of result.skipped) cli.console.log(`${structure}: not rebuilt (${why})`);
      });
    });
}

import type { Command } from 'commander';
import { migrate } from '../db/migrate.js';
import { type Output, withDatabase } from './context.js';

export function registerMigrate(program: Command, output: () => Output): void {
  program
    .command('migrate')
    .description('apply pending migrations to the configured database')
    .action(async () => {
      const out = output();
      const applied = await withDatabase(async ({ url }) => migrate(url), { migrated: false });
      out.result({ applied }, () =>
        console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'The database is up to date.'),
      );
    });
}

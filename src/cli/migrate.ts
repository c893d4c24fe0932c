import type { Command } from 'commander';
import { migrate } from '../db/migrate.js';
import { type CommandContext, withDatabase } from './context.js';

export function registerMigrate(program: Command, cli: CommandContext): void {
  program
    .command('migrate')
    .description('apply pending migrations to the configured database')
    .action(async () => {
      const out = cli.output();
      const applied = await withDatabase(cli, async ({ url }) => migrate(url), { migrated: false });
      out.result({ applied }, () =>
        cli.console.log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(', ')}` : 'The database is up to date.'),
      );
    });
}

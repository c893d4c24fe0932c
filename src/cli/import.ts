import type { Command } from 'commander';
import { CLINIC_ENVIRONMENTS, type ClinicEnvironmentValue, isClinicEnvironment } from '../auth/api-keys.js';
import { checkReadable, ImportDatabaseError, ImportFileError, type ImportFiles, importFiles } from '../importer/import.js';
import { createProgress } from '../importer/progress.js';
import { DEFAULT_MAX_LINE_BYTES } from '../importer/read-ndjson.js';
import { problemLines, rejection, summaryLines, toJson } from '../importer/report.js';
import { CliError, type CommandContext, withDatabase } from './context.js';

interface ImportOptions {
  clinics?: string;
  campaigns?: string;
  interactions?: string;
  skipInvalid?: boolean;
  maxLineBytes?: string;
  environment?: string;
}

/** `--environment`: live (the default) or sandbox. */
export function environmentFlag(command: string, value: string | undefined, fallback: ClinicEnvironmentValue): ClinicEnvironmentValue {
  if (value === undefined) return fallback;
  if (!isClinicEnvironment(value))
    throw new CliError(`${command}: --environment must be one of ${CLINIC_ENVIRONMENTS.join(', ')}, got ${JSON.stringify(value)}`, 2);
  return value;
}

function lineLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bytes = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(bytes) || bytes < 1) {
    throw new CliError(`import: --max-line-bytes must be a positive whole number of bytes, got ${JSON.stringify(value)}`, 2);
  }
  return bytes;
}

export function registerImport(program: Command, cli: CommandContext): void {
  program
    .command('import')
    .description('upsert clinics, campaigns and interactions from newline-delimited JSON (one REST representation per line)')
    .option('--clinics <file>', 'clinics, one per line')
    .option('--campaigns <file>', 'campaigns, one per line')
    .option('--interactions <file>', 'interactions, one per line, optionally with `campaign_id`; a line without `transcript` removes a stored one')
    .option(
      '--environment <env>',
      'live (default) or sandbox: new clinics get it, and records of a stored clinic of the other environment are invalid lines (seen by svc_live_ / svc_test_ keys)',
    )
    .option('--skip-invalid', 'write the valid lines even when some lines are invalid')
    .option('--max-line-bytes <n>', `longest line accepted, in bytes; a longer one is an invalid line (default ${DEFAULT_MAX_LINE_BYTES})`)
    .action(async (options: ImportOptions) => {
      const out = cli.output();
      const files: ImportFiles = { clinics: options.clinics, campaigns: options.campaigns, interactions: options.interactions };
      if (!files.clinics && !files.campaigns && !files.interactions) {
        throw new CliError('import: give at least one of --clinics FILE, --campaigns FILE, --interactions FILE', 2);
      }
      const maxLineBytes = lineLimit(options.maxLineBytes);
      const environment = environmentFlag('import', options.environment, 'live');
      // Before the database is opened: a typo in a path fails at once, as the usage error it is.
      for (const file of Object.values(files)) if (file !== undefined) await readableArgument(file);
      const report = await translateImportErrors(async () =>
        withDatabase(cli, ({ url }) =>
          importFiles({
            files,
            url,
            skipInvalid: Boolean(options.skipInvalid),
            environment,
            maxLineBytes,
            progress: createProgress(!out.json && Boolean(cli.io.stderr.isTTY), cli.io.stderr),
            onWait: () => cli.console.error('Another import into this database is running; waiting for it to finish (imports run one at a time)...'),
          }),
        ),
      );
      out.result(toJson(report), () => {
        for (const line of problemLines(report)) cli.console.error(line);
        for (const line of summaryLines(report)) cli.console.log(line);
      });
      const reason = rejection(report);
      if (reason) {
        if (!out.json) cli.console.error(reason);
        cli.setExitCode(1);
      }
    });
}

/** A file named on the command line that cannot be read is a usage error (exit 2), like a bad flag. */
async function readableArgument(file: string): Promise<void> {
  try {
    await checkReadable(file);
  } catch (error) {
    if (error instanceof ImportFileError) throw new CliError(error.message, 2);
    throw error;
  }
}

async function translateImportErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ImportFileError || error instanceof ImportDatabaseError) throw new CliError(error.message);
    throw error;
  }
}

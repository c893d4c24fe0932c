// `purge --phone NUMBER | --before DATE [--clinic ID] [--yes]`: erasure of a patient and retention
// (docs/concepts.md, Erasure and retention). Without --yes it only says what it would delete; with
// it, it deletes in batches (src/purge/purge.ts), each committed on its own, so an interrupted run
// is simply run again.
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { isUuid, parseDateBound } from '../domain/parameters.js';
import { type PatientNumber, PhoneNumberError, parsePatientNumber } from '../purge/phone-numbers.js';
import {
  DEFAULT_BATCH_SIZE,
  PurgeInputError,
  type PurgeRequest,
  type PurgeResult,
  type PurgeSelection,
  type PurgeSummary,
  purgeInBatches,
  selectForPurge,
  summarizePurge,
} from '../purge/purge.js';
import { CliError, type CommandContext, withDatabase } from './context.js';

interface PurgeOptions {
  phone?: string;
  country?: string;
  before?: string;
  clinic?: string;
  yes?: boolean;
  batchSize?: string;
}

const MAX_BATCH_SIZE = 100_000;

function parseRequest(options: PurgeOptions): { request: PurgeRequest; batchSize: number } {
  if (options.phone === undefined && options.before === undefined) throw new CliError('purge: give --phone NUMBER or --before DATE (or both)', 2);
  const request: PurgeRequest = {};
  if (options.phone !== undefined) {
    try {
      request.phone = parsePatientNumber(options.phone, options.country);
    } catch (error) {
      if (error instanceof PhoneNumberError) throw new CliError(`purge: --phone: ${error.message}`, 2);
      throw error;
    }
  } else if (options.country !== undefined) throw new CliError('purge: --country only applies to --phone', 2);
  if (options.before !== undefined) {
    // A date is the start of that UTC day: `--before 2025-01-01` keeps the whole of 2025-01-01.
    const before = parseDateBound(options.before.trim(), 'from');
    if (!before) throw new CliError(`purge: --before: '${options.before}' is not a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset`, 2);
    request.before = before;
  }
  if (options.clinic !== undefined) {
    if (!isUuid(options.clinic)) throw new CliError(`purge: --clinic: '${options.clinic}' is not a clinic id (UUID)`, 2);
    request.clinicId = options.clinic.toLowerCase();
  }
  let batchSize = DEFAULT_BATCH_SIZE;
  if (options.batchSize !== undefined) {
    batchSize = /^\d{1,7}$/.test(options.batchSize) ? Number(options.batchSize) : Number.NaN;
    if (!(batchSize >= 1 && batchSize <= MAX_BATCH_SIZE)) {
      throw new CliError(`purge: --batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE.toLocaleString('en-US')} (got '${options.batchSize}')`, 2);
    }
  }
  return { request, batchSize };
}

// --- Presentation ------------------------------------------------------------------------------

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;
const n = (value: number) => value.toLocaleString('en-US');
const minute = (date: Date | null) => (date ? `${date.toISOString().slice(0, 16).replace('T', ' ')}Z` : '-');

function selectionJson(request: PurgeRequest, phone: PatientNumber | undefined) {
  return { phone: phone?.e164 ?? null, before: iso(request.before), clinic_id: request.clinicId ?? null };
}

function summaryJson(selection: PurgeSelection, summary: PurgeSummary) {
  return {
    selection: selectionJson(selection.request, selection.request.phone),
    interactions: summary.interactions,
    transcripts: summary.transcripts,
    first_started_at: iso(summary.firstStartedAt),
    last_started_at: iso(summary.lastStartedAt),
    clinics: summary.clinics.map((c) => ({
      clinic_id: c.clinicId,
      name: c.name,
      interactions: c.interactions,
      transcripts: c.transcripts,
      first_started_at: iso(c.firstStartedAt),
      last_started_at: iso(c.lastStartedAt),
    })),
    phone_forms: selection.forms?.map((f) => ({ clinic_id: f.clinicId, phone_number: f.phoneNumber, interactions: f.interactions })) ?? null,
    unresolved_forms: selection.unresolved.map((f) => ({ clinic_id: f.clinicId, phone_number: f.phoneNumber, interactions: f.interactions, reason: f.reason })),
  };
}

function table(header: string[], rows: string[][], right: ReadonlySet<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `  ${l}`);
}

function describeSelection(request: PurgeRequest): string {
  const parts = [
    ...(request.phone ? [`of ${request.phone.e164}`] : []),
    ...(request.before ? [`started before ${request.before.toISOString()}`] : []),
    ...(request.clinicId ? [`in clinic ${request.clinicId}`] : []),
  ];
  return parts.join(', ');
}

function summaryLines(selection: PurgeSelection, summary: PurgeSummary, willDelete: boolean): string[] {
  const lines: string[] = [];
  const what = describeSelection(selection.request);
  if (summary.interactions === 0) lines.push(`No interactions ${what}.`);
  else {
    lines.push(
      `${willDelete ? 'Deleting' : 'Would delete'} ${n(summary.interactions)} interactions (${n(summary.transcripts)} with a transcript) ${what}, ` +
        `started ${minute(summary.firstStartedAt)} to ${minute(summary.lastStartedAt)}:`,
    );
    lines.push(
      ...table(
        ['CLINIC', 'NAME', 'INTERACTIONS', 'TRANSCRIPTS', 'FIRST STARTED', 'LAST STARTED'],
        summary.clinics.map((c) => [c.clinicId, c.name, n(c.interactions), n(c.transcripts), minute(c.firstStartedAt), minute(c.lastStartedAt)]),
        new Set([2, 3]),
      ),
    );
  }
  if (selection.forms && selection.forms.length > 0) {
    lines.push(`Stored forms of ${selection.request.phone!.e164}:`);
    lines.push(
      ...table(
        ['CLINIC', 'STORED AS', 'INTERACTIONS'],
        selection.forms.map((f) => [f.clinicId, f.phoneNumber, n(f.interactions)]),
        new Set([2]),
      ),
    );
  }
  if (selection.unresolved.length > 0) {
    lines.push('Stored numbers ending with the same digits that cannot be compared (NOT deleted; check them by hand):');
    lines.push(
      ...table(
        ['CLINIC', 'STORED AS', 'INTERACTIONS', 'WHY'],
        selection.unresolved.map((f) => [f.clinicId, f.phoneNumber, n(f.interactions), f.reason]),
        new Set([2]),
      ),
    );
  }
  return lines;
}

// --- Command -----------------------------------------------------------------------------------

export function registerPurge(program: Command, cli: CommandContext): void {
  program
    .command('purge')
    .description('erase a patient (--phone) or old interactions (--before), transcripts included; prints what it would delete and deletes only with --yes')
    .option('--phone <number>', "every interaction of this patient's number, in whatever form it was stored (international form, or national with --country)")
    .option('--country <code>', 'the country of a national --phone number (ISO 3166-1 alpha-2, e.g. ES)')
    .option('--before <date>', 'interactions started before this instant (YYYY-MM-DD is the start of that UTC day, or an ISO 8601 date-time)')
    .option('--clinic <id>', "only this clinic's interactions")
    .option('--yes', 'delete (without it, nothing is deleted)')
    .option('--batch-size <n>', `rows per transaction (default ${n(DEFAULT_BATCH_SIZE)})`)
    .action(async (options: PurgeOptions) => {
      const out = cli.output();
      const { request, batchSize } = parseRequest(options);
      await withDatabase(cli, async ({ db }) => {
        let selection: PurgeSelection;
        try {
          selection = await selectForPurge(db, request);
        } catch (error) {
          if (error instanceof PurgeInputError) throw new CliError(`purge: ${error.message}`, 2);
          throw error;
        }
        const summary = await summarizePurge(db, selection);
        if (!options.yes) {
          out.result({ dry_run: true, ...summaryJson(selection, summary) }, () => {
            for (const line of summaryLines(selection, summary, false)) cli.console.log(line);
            if (summary.interactions > 0) cli.console.log('Nothing was deleted: run again with --yes to delete.');
          });
          return;
        }
        if (!out.json) for (const line of summaryLines(selection, summary, true)) cli.console.log(line);
        const bar =
          cli.io.stderr.isTTY && !out.json && summary.interactions > 0
            ? new cliProgress.SingleBar(
                {
                  stream: cli.io.stderr,
                  format: 'Deleting interactions [{bar}] {percentage}% | {value}/{total} | {duration_formatted} | ETA {eta_formatted}',
                  hideCursor: true,
                },
                cliProgress.Presets.shades_classic,
              )
            : null;
        // Rows written into the selection since the count make the bar's total an estimate.
        bar?.start(summary.interactions, 0);
        const started = performance.now();
        let result: PurgeResult;
        try {
          result = await purgeInBatches(db, selection, {
            batchSize,
            onBatch: (deleted) => {
              if (bar && deleted > bar.getTotal()) bar.setTotal(deleted);
              bar?.update(deleted);
            },
          });
        } finally {
          bar?.stop();
        }
        const seconds = (performance.now() - started) / 1000;
        const rate = seconds > 0 ? Math.round(result.deleted / seconds) : null;
        out.result(
          {
            dry_run: false,
            ...summaryJson(selection, summary),
            deleted: result.deleted,
            batches: result.batches,
            seconds: Math.round(seconds * 1000) / 1000,
            rows_per_second: rate,
          },
          () =>
            cli.console.log(
              `Deleted ${n(result.deleted)} interactions in ${result.batches} batch${result.batches === 1 ? '' : 'es'} and ${seconds.toFixed(1)} s` +
                `${rate !== null && result.deleted > 0 ? ` (${n(rate)} rows/s)` : ''}; each left a tombstone for GET /api/v1/interactions/deleted.`,
            ),
        );
      });
    });
}

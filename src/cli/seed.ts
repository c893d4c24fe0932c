import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { KEY_PREFIX_OF_ENVIRONMENT } from '../auth/api-keys.js';
import { OLDER_DENSITY, RECENT_DAYS, SEED_DEFAULTS, SEED_LIMITS, SeedOptionError } from '../seed/generate.js';
import { SeedEnvironmentError, seedDemoData } from '../seed/seed-database.js';
import { CliError, type CommandContext, withDatabase } from './context.js';
import { environmentFlag } from './import.js';

interface SeedFlags {
  clinics?: string;
  interactions?: string;
  days?: string;
  seed?: string;
  endDate?: string;
  environment?: string;
}

function count(flag: keyof typeof SEED_LIMITS, raw: string | undefined): number {
  if (raw === undefined) return SEED_DEFAULTS[flag];
  const { min, max } = SEED_LIMITS[flag];
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new CliError(`--${flag} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')} (got "${raw}")`, 2);
  return value;
}

/** The flags as seedDemoData takes them; a numeric --seed is the same seed as the number. */
export function parseSeedFlags(flags: SeedFlags, now: () => Date = () => new Date()) {
  let seed: string | number = SEED_DEFAULTS.seed;
  if (flags.seed !== undefined) {
    const text = flags.seed.trim();
    if (text === '' || text.length > 200) throw new CliError('--seed must be a non-empty value of at most 200 characters', 2);
    seed = /^(0|[1-9]\d{0,14})$/.test(text) ? Number(text) : text;
  }
  let endDate = now();
  if (flags.endDate !== undefined) {
    endDate = new Date(flags.endDate);
    if (!/^\d{4}-\d{2}-\d{2}/.test(flags.endDate) || Number.isNaN(endDate.getTime()))
      throw new CliError(`--end-date must be an ISO 8601 date or date-time (got "${flags.endDate}")`, 2);
  }
  return {
    clinics: count('clinics', flags.clinics),
    interactions: count('interactions', flags.interactions),
    days: count('days', flags.days),
    seed,
    endDate,
    environment: environmentFlag('seed', flags.environment, 'sandbox'),
  };
}

export function registerSeed(program: Command, cli: CommandContext): void {
  program
    .command('seed')
    .description('load deterministic demo data: clinics, their campaigns and interactions (re-running the same seed is idempotent)')
    .option('--clinics <n>', `number of clinics, each with 5 campaigns (default ${SEED_DEFAULTS.clinics})`)
    .option('--interactions <n>', `number of interactions (default ${SEED_DEFAULTS.interactions.toLocaleString('en-US')})`)
    .option(
      '--days <n>',
      `length of the period, in days, ending at --end-date (default ${SEED_DEFAULTS.days}); days before the last ${RECENT_DAYS} hold ${OLDER_DENSITY} times as many interactions a day`,
    )
    .option('--seed <s>', `seed of the random generator (default ${SEED_DEFAULTS.seed})`)
    .option('--end-date <iso>', 'end of the period (default: now); with the same seed and counts, the same end date gives the same rows')
    .option('--environment <env>', 'sandbox (default: seen by svc_test_ keys) or live (seen by svc_live_ keys)')
    .action(async (flags: SeedFlags) => {
      const out = cli.output();
      const options = parseSeedFlags(flags);
      const bar =
        cli.io.stderr.isTTY && !out.json
          ? new cliProgress.SingleBar(
              { stream: cli.io.stderr, format: 'Seeding interactions [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}', hideCursor: true },
              cliProgress.Presets.shades_classic,
            )
          : null;
      const started = performance.now();
      let counts: Awaited<ReturnType<typeof seedDemoData>>;
      try {
        counts = await withDatabase(cli, ({ url }) =>
          seedDemoData(url, {
            ...options,
            onProgress: (done, total) => {
              if (!bar) return;
              if (done === 0) bar.start(total, 0);
              else bar.update(done);
            },
          }),
        );
      } catch (error) {
        if (error instanceof SeedOptionError) throw new CliError(`--${error.option}: ${error.message}`, 2);
        if (error instanceof SeedEnvironmentError) throw new CliError(`seed: ${error.message}`);
        throw error;
      } finally {
        bar?.stop();
      }
      const seconds = (performance.now() - started) / 1000;
      const endDate = options.endDate.toISOString();
      const { environment } = options;
      out.result({ ...counts, environment, seed: options.seed, days: options.days, end_date: endDate }, () =>
        cli.console.log(
          `Seeded ${counts.clinics.toLocaleString('en-US')} ${environment} clinics, ${counts.campaigns.toLocaleString('en-US')} campaigns and ` +
            `${counts.interactions.toLocaleString('en-US')} interactions (seed ${JSON.stringify(options.seed)}, ${options.days} days ending ${endDate}) ` +
            `in ${seconds.toFixed(1)} s; ${KEY_PREFIX_OF_ENVIRONMENT[environment]} keys see them.`,
        ),
      );
    });
}

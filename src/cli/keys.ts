// `keys create | list | revoke`: issuing API keys is an operator task (docs/cli.md); no
// HTTP endpoint does it.
import type { Command } from 'commander';
import {
  ApiKeyInputError,
  type ApiKeyRecord,
  CLINIC_ENVIRONMENT_OF_KEY,
  CLINIC_ENVIRONMENTS,
  type ClinicEnvironmentValue,
  type CreateApiKeyInput,
  createApiKey,
  type KeyEnvironmentValue,
  listApiKeys,
  revokeApiKey,
} from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { isUuid } from '../domain/parameters.js';
import { KEY_TIERS, type KeyTierValue, SCOPES, type Scope } from '../domain/values.js';
import { CliError, type CommandContext, withDatabase } from './context.js';
import { environmentFlag } from './import.js';

interface CreateOptions {
  name?: string;
  scopes?: string;
  clinics?: string;
  tier?: string;
  expiresAt?: string;
  test?: boolean;
  environment?: string;
}

/** The command-line option behind each `createApiKey` input field, for error messages. */
const OPTION_OF_FIELD: Record<keyof CreateApiKeyInput, string> = {
  name: '--name',
  environment: '--environment',
  scopes: '--scopes',
  clinicIds: '--clinics',
  tier: '--tier',
  expiresAt: '--expires-at',
};

/** A bad option value is a usage error (exit 2), as a bad flag of any command is. */
function optionError(option: string, message: string): CliError {
  return new CliError(`Invalid ${option}: ${message}`, 2, { option });
}

/** `a,b` -> ['a', 'b']; an empty list or an empty item is an error naming the option. */
function commaList(option: string, value: string): string[] {
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw optionError(option, `expected a comma-separated list without empty items, got '${value}'`);
  return items;
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2}))?$/;

/**
 * `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with `Z` or an offset. Impossible dates such
 * as 2026-02-30 are refused rather than rolled over.
 */
function parseExpiry(value: string): Date | null {
  const m = ISO_DATE_TIME.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', , zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  if (zone && !/^[Zz]$/.test(zone)) {
    const [oh, om] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    if (oh > 23 || om > 59) return null;
  }
  const date = new Date(m[4] === undefined ? `${y}-${mo}-${d}T00:00:00Z` : value.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The key environment whose clinics are `environment`'s. */
const KEY_ENVIRONMENT_OF_CLINICS = Object.fromEntries(
  Object.entries(CLINIC_ENVIRONMENT_OF_KEY).map(([key, clinics]) => [clinics, key as KeyEnvironmentValue]),
) as Record<ClinicEnvironmentValue, KeyEnvironmentValue>;

/** How `keys create` is told to make a key that sees each clinic environment. */
const FLAGS_OF_ENVIRONMENT: Record<ClinicEnvironmentValue, string> = { live: '--environment live (the default)', sandbox: '--environment sandbox (or --test)' };

/** `--environment live|sandbox`, as import and seed take it; `--test` is `--environment sandbox`. */
function keyEnvironment(opts: CreateOptions): KeyEnvironmentValue {
  const environment = environmentFlag('keys create', opts.environment, opts.test ? 'sandbox' : 'live');
  if (opts.test && environment !== 'sandbox') throw new CliError('keys create: --test makes a sandbox key; it cannot go with --environment live', 2);
  return KEY_ENVIRONMENT_OF_CLINICS[environment];
}

function parseCreateOptions(opts: CreateOptions): CreateApiKeyInput {
  if (opts.name === undefined) throw optionError('--name', 'a name is required (--name NAME)');
  const input: CreateApiKeyInput = { name: opts.name, environment: keyEnvironment(opts) };
  if (opts.scopes !== undefined) {
    const scopes = commaList('--scopes', opts.scopes);
    const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length) throw optionError('--scopes', `unknown scope(s) ${unknown.join(', ')}; valid: ${SCOPES.join(', ')}`);
    input.scopes = scopes as Scope[];
  }
  if (opts.clinics !== undefined) {
    const ids = commaList('--clinics', opts.clinics);
    const malformed = ids.filter((id) => !isUuid(id));
    if (malformed.length) throw optionError('--clinics', `not a clinic id (UUID): ${malformed.join(', ')}`);
    input.clinicIds = ids;
  }
  if (opts.tier !== undefined) {
    if (!(KEY_TIERS as readonly string[]).includes(opts.tier)) {
      throw optionError('--tier', `unknown tier '${opts.tier}'; valid: ${KEY_TIERS.join(', ')}`);
    }
    input.tier = opts.tier as KeyTierValue;
  }
  if (opts.expiresAt !== undefined) {
    const expiresAt = parseExpiry(opts.expiresAt);
    if (!expiresAt) {
      throw optionError('--expires-at', `'${opts.expiresAt}' is not an ISO 8601 date (YYYY-MM-DD) or date-time with Z or an offset`);
    }
    input.expiresAt = expiresAt;
  }
  return input;
}

// --- Presentation ------------------------------------------------------------------------------

type KeyStatus = 'active' | 'expired' | 'revoked';

function statusOf(record: ApiKeyRecord, now: Date): KeyStatus {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

function recordJson(record: ApiKeyRecord, now: Date) {
  return {
    id: record.id,
    name: record.name,
    environment: record.environment,
    prefix: record.prefix,
    scopes: record.scopes,
    tier: record.tier,
    clinic_ids: record.clinicIds,
    expires_at: record.expiresAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
    last_used_at: record.lastUsedAt?.toISOString() ?? null,
    status: statusOf(record, now),
  };
}

/** `2026-01-31 09:05Z`: minutes are enough to read a listing. */
function shortTime(date: Date | null, none = '-'): string {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')}Z` : none;
}

function scopesText(scopes: readonly Scope[]): string {
  return scopes.length === SCOPES.length ? 'all' : scopes.join(',');
}

/**
 * What the key's clinic list names that the key will not see: clinics of the other environment
 * (a key sees only its own environment's clinics) and clinics that do not exist (yet).
 */
async function clinicsNeverSeen(db: Db, record: { environment: KeyEnvironmentValue; clinicIds: readonly string[] | null }): Promise<string[]> {
  if (!record.clinicIds) return [];
  const stored = await db.clinic.findMany({ where: { id: { in: [...record.clinicIds] } }, select: { id: true, environment: true } });
  const environmentOf = new Map(stored.map((clinic) => [clinic.id, clinic.environment]));
  const own = CLINIC_ENVIRONMENT_OF_KEY[record.environment];
  return record.clinicIds.flatMap((id) => {
    const environment = environmentOf.get(id);
    if (environment === undefined) return [`clinic ${id} does not exist (yet); the key will see it once it is imported into the ${own} environment`];
    if (environment !== own) return [`clinic ${id} is a ${environment} clinic: this ${record.environment} key never sees it (it sees ${own} clinics only)`];
    return [];
  });
}

/**
 * An unrestricted key on a database whose clinics are all of the other environment sees nothing
 * (empty lists, zero metrics, without an error): as on the embedded demo database, whose clinics
 * are sandbox, with a live key made by default.
 */
async function otherEnvironmentOnly(db: Db, record: { environment: KeyEnvironmentValue; clinicIds: readonly string[] | null }): Promise<string | undefined> {
  if (record.clinicIds) return undefined;
  const counts = await db.clinic.groupBy({ by: ['environment'], _count: { _all: true } });
  const countOf = (environment: ClinicEnvironmentValue) => counts.find((c) => c.environment === environment)?._count._all ?? 0;
  const own = CLINIC_ENVIRONMENT_OF_KEY[record.environment];
  const other = CLINIC_ENVIRONMENTS.find((environment) => environment !== own)!;
  const clinics = countOf(other);
  if (countOf(own) > 0 || clinics === 0) return undefined;
  return (
    `no clinic is in the ${own} environment, so this ${record.environment} key sees nothing (empty lists, zero metrics) until ${own} data is imported; ` +
    `the ${clinics.toLocaleString('en-US')} clinic${clinics === 1 ? ' is' : 's are'} ${other}: for ${clinics === 1 ? 'it' : 'them'}, create a key with ${FLAGS_OF_ENVIRONMENT[other]}.`
  );
}

function clinicsText(clinicIds: readonly string[] | null): string {
  if (!clinicIds) return 'all';
  return clinicIds.length === 1 ? clinicIds[0]! : `${clinicIds.length} clinics`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

// --- Commands ----------------------------------------------------------------------------------

export function registerKeys(program: Command, cli: CommandContext): void {
  const keys = program.command('keys').description('issue, list and revoke API keys');

  keys
    .command('create')
    .description('issue an API key; the key is printed once and cannot be shown again')
    .option('--name <name>', 'who or what the key is for (required)')
    .option('--scopes <list>', `comma-separated scopes (default: all of ${SCOPES.join(',')})`)
    .option('--clinics <ids>', 'comma-separated clinic ids the key is restricted to (default: every clinic)')
    .option('--tier <tier>', `rate-limit tier: ${KEY_TIERS.join(' | ')} (default: standard)`)
    .option('--expires-at <iso>', 'expiry: ISO 8601 date-time with Z or an offset, or YYYY-MM-DD (midnight UTC)')
    .option('--environment <env>', 'live (default: a svc_live_ key, which sees live clinics) or sandbox (a svc_test_ key, which sees sandbox clinics)')
    .option('--test', 'the same as --environment sandbox')
    .action(async (opts: CreateOptions) => {
      const out = cli.output();
      const input = parseCreateOptions(opts);
      const { key, record, unseen } = await withDatabase(cli, async ({ db }) => {
        try {
          const created = await createApiKey(db, input);
          const unseen = await clinicsNeverSeen(db, created.record);
          const elsewhere = await otherEnvironmentOnly(db, created.record);
          return { ...created, unseen: elsewhere ? [...unseen, elsewhere] : unseen };
        } catch (error) {
          if (error instanceof ApiKeyInputError) throw optionError(OPTION_OF_FIELD[error.field], error.message);
          throw error;
        }
      });
      const warning = 'This key is shown only once and cannot be retrieved again: store it securely now.';
      out.result(
        {
          id: record.id,
          key,
          name: record.name,
          environment: record.environment,
          prefix: record.prefix,
          scopes: record.scopes,
          tier: record.tier,
          clinic_ids: record.clinicIds,
          expires_at: record.expiresAt?.toISOString() ?? null,
        },
        () => {
          cli.console.log(`Created ${record.environment} API key "${record.name}" (id ${record.id})`);
          cli.console.log('');
          cli.console.log(`    ${key}`);
          cli.console.log('');
          cli.console.log(warning);
          cli.console.log(
            `Scopes: ${record.scopes.join(', ')}; tier: ${record.tier}; clinics: ${record.clinicIds ? record.clinicIds.join(', ') : 'all'}; expires: ${shortTime(record.expiresAt, 'never')}`,
          );
        },
      );
      if (out.json) cli.console.error(warning);
      // Not refused: a clinic may be imported later, and a restriction naming it is then right.
      for (const line of unseen) cli.console.error(`Note: ${line}`);
    });

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .action(async () => {
      const out = cli.output();
      const records = await withDatabase(cli, async ({ db }) => listApiKeys(db));
      const now = new Date();
      out.result(
        records.map((r) => recordJson(r, now)),
        () => {
          if (!records.length) {
            cli.console.log('No API keys. Create one with `keys create --name NAME`.');
            return;
          }
          cli.console.log(
            table(
              ['ID', 'NAME', 'PREFIX', 'TIER', 'SCOPES', 'CLINICS', 'STATUS', 'EXPIRES', 'LAST USED', 'CREATED'],
              records.map((r) => [
                r.id,
                r.name,
                `${r.prefix}...`,
                r.tier,
                scopesText(r.scopes),
                clinicsText(r.clinicIds),
                statusOf(r, now),
                shortTime(r.expiresAt, 'never'),
                shortTime(r.lastUsedAt, 'never'),
                shortTime(r.createdAt),
              ]),
            ),
          );
        },
      );
    });

  keys
    .command('revoke')
    .description('revoke an API key by id (see `keys list`); running servers reject it within seconds')
    .argument('<id>', 'the key id')
    .action(async (id: string) => {
      const out = cli.output();
      if (!isUuid(id)) throw new CliError(`Invalid key id '${id}': expected a UUID as shown by \`keys list\`.`, 2);
      const record = await withDatabase(cli, async ({ db }) => revokeApiKey(db, id));
      if (!record) throw new CliError(`No API key with id ${id}.`);
      out.result(recordJson(record, new Date()), () =>
        cli.console.log(`Revoked API key "${record.name}" (${record.prefix}..., id ${record.id}) at ${record.revokedAt?.toISOString()}.`),
      );
    });
}

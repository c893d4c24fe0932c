// The import of newline-delimited JSON files, in two streaming passes so memory stays bounded:
//   1. validate every line (shape, rules, duplicate ids, references to the files and the database),
//      keeping only ids and the numbers of invalid lines;
//   2. if allowed, read the files again and upsert the valid lines in batches, clinics, then
//      campaigns, then interactions, all in ONE transaction.
// Imports into one database run one at a time (session.ts: an advisory lock held over both passes).
import fs from 'node:fs/promises';
import type pg from 'pg';
import type { ClinicEnvironmentValue } from '../auth/api-keys.js';
import { isUuid } from '../domain/parameters.js';
import { CLAIM_TRANSACTION_ID } from '../interactions/change-feed.js';
import { IdIndex } from './id-index.js';
import { createProgress, type Progress } from './progress.js';
import { DEFAULT_MAX_LINE_BYTES, type NumberedLine, readLines } from './read-ndjson.js';
import { normalizeUuid, RESOURCES, type RecordOf, type Resource } from './records.js';
import { DatabaseReferences } from './references.js';
import { ImportSession } from './session.js';
import { checkLine, type Problem, WHOLE_LINE } from './validate.js';
import { BatchWriter, type WriteContext } from './write.js';

export { IMPORT_APPLICATION_NAME, ImportDatabaseError } from './session.js';

export type ImportFiles = Partial<Record<Resource, string>>;

export interface ImportOptions {
  /** Path of each file, as the user gave it (problems name the file this way). */
  files: ImportFiles;
  /** Write the valid lines even when some are invalid. */
  skipInvalid?: boolean;
  /** PostgreSQL connection string. */
  url: string;
  /**
   * The environment the import writes: new clinics get it, and a record of a stored clinic of the
   * other environment is an invalid line (data never moves between environments). Default `live`.
   */
  environment?: ClinicEnvironmentValue;
  /** Show progress bars on stderr. */
  progress?: boolean | Progress;
  /** Rows per multi-row statement. */
  batchSize?: number;
  /** Problems listed in the report; further ones are only counted. */
  maxListedProblems?: number;
  /** Longest line accepted, in bytes; a longer one is an invalid line (default 16 MiB). */
  maxLineBytes?: number;
  /** Called once when another import holds the import lock of the database, before waiting for it. */
  onWait?: () => void;
}

export interface ResourceReport {
  file: string;
  /** Non-blank lines. */
  lines: number;
  valid: number;
  invalid: number;
  written: number;
}

export interface ImportReport {
  /** The environment the import wrote (or would have written). */
  environment: ClinicEnvironmentValue;
  resources: Partial<Record<Resource, ResourceReport>>;
  /** Invalid lines over all files. */
  invalid: number;
  /** `FILE:LINE field: reason`, in file order. */
  problems: string[];
  /** Problems found beyond `maxListedProblems`. */
  problemsNotListed: number;
  /** True when the transaction was committed (false: nothing was written). */
  committed: boolean;
}

/** A file that cannot be read, or that changed between the passes. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}

interface FileIdentity {
  size: number;
  mtimeMs: number;
}

/** Fails with a clear message when `file` cannot be read as a regular file. */
export async function checkReadable(file: string): Promise<FileIdentity> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new ImportFileError(`Cannot read ${file}: ${why}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ImportFileError(`Cannot read ${file}: not a regular file`);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } finally {
    await handle.close();
  }
}

/** What the files say about a clinic or campaign id: its first line, and whether that line is valid. */
interface FileEntry {
  line: number;
  valid: boolean;
  /** Campaigns: the clinic id (normalised) of a valid line. */
  clinicId?: string;
}

class Pass1State {
  readonly clinics = new Map<string, FileEntry>();
  readonly campaigns = new Map<string, FileEntry>();
  /** Interaction id -> first line: the only per-line memory of the import, kept compact. */
  readonly interactions = new IdIndex();
  /** Per resource, the numbers of the invalid lines (pass 2 skips them). */
  readonly invalidLines: Record<Resource, Set<number>> = { clinics: new Set(), campaigns: new Set(), interactions: new Set() };

  constructor(
    readonly files: ImportFiles,
    readonly environment: ClinicEnvironmentValue,
  ) {}
}

/**
 * What pass 1 keeps of a line while its batch is checked: the ids, not the parsed object (which
 * then dies young instead of growing the heap).
 */
interface LineFacts {
  line: number;
  id?: string;
  /** Normalised; only when the field is valid by itself. */
  clinicId?: string;
  /** Only when the field is valid by itself. */
  campaignId?: string;
  problems: Problem[];
}

function factsOf(resource: Resource, line: NumberedLine): LineFacts {
  if (line.unreadable !== undefined) return { line: line.number, problems: [{ field: WHOLE_LINE, reason: line.unreadable }] };
  const { value, problems } = checkLine(resource, line.text);
  const usable = (field: string) => !problems.some((p) => p.field === field);
  const clinicId = usable('clinic_id') ? str(value?.clinic_id) : undefined;
  return {
    line: line.number,
    id: str(value?.id),
    clinicId: clinicId === undefined ? undefined : normalizeUuid(clinicId),
    campaignId: usable('campaign_id') ? str(value?.campaign_id) : undefined,
    problems,
  };
}

const DEFAULT_BATCH_SIZE = 2_000;
const DEFAULT_MAX_LISTED = 10_000;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export async function importFiles(options: ImportOptions): Promise<ImportReport> {
  const files = RESOURCES.flatMap((resource) => {
    const path = options.files[resource];
    return path === undefined ? [] : [{ resource, path }];
  });
  const progress = typeof options.progress === 'object' ? options.progress : createProgress(Boolean(options.progress));
  const maxListed = options.maxListedProblems ?? DEFAULT_MAX_LISTED;
  const environment = options.environment ?? 'live';
  const report: ImportReport = { environment, resources: {}, invalid: 0, problems: [], problemsNotListed: 0, committed: false };
  const identities = new Map<string, FileIdentity>();
  for (const { path } of files) identities.set(path, await checkReadable(path));

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const session = new ImportSession(options.url);
  const client = session.client;
  await client.connect();
  let committing = false;
  try {
    await session.lockImports(options.onWait);
    // Only the invalid line numbers outlive pass 1: the ids it kept are released before pass 2.
    const invalidLines = await validateFiles(client, files, identities, report, progress, maxListed, maxLineBytes, environment);
    if (report.invalid > 0 && !options.skipInvalid) return report;

    await client.query('BEGIN');
    try {
      await client.query(CLAIM_TRANSACTION_ID);
      for (const { resource, path } of files) {
        const stats = report.resources[resource]!;
        if (stats.valid === 0) continue;
        const identity = identities.get(path)!;
        await assertUnchanged(path, identity);
        progress.start(`writing ${path}`, identity.size);
        try {
          const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
          stats.written = await writeFile(client, resource, path, invalidLines[resource], batchSize, maxLineBytes, progress, { environment });
        } finally {
          progress.stop();
        }
        await assertUnchanged(path, identity);
      }
      committing = true;
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      for (const { resource } of files) report.resources[resource]!.written = 0;
      throw error;
    }
    report.committed = true;
    // The phone numbers' changes folded into the fragment counts now rather than by the service
    // over the next seconds (its folds are chunked): short phone searches read no backlog.
    await client.query('SELECT interaction_phone_changes_fold(), clinic_data_changes_fold(), interaction_search_terms_fold()');
    return report;
  } catch (error) {
    throw error instanceof ImportFileError ? error : session.explain(error, committing);
  } finally {
    await session.close();
  }
}

/** Pass 1: fills `report` (counts and problems) and returns the numbers of the invalid lines per resource. */
async function validateFiles(
  client: pg.ClientBase,
  files: { resource: Resource; path: string }[],
  identities: Map<string, FileIdentity>,
  report: ImportReport,
  progress: Progress,
  maxListed: number,
  maxLineBytes: number,
  environment: ClinicEnvironmentValue,
): Promise<Record<Resource, Set<number>>> {
  const state = new Pass1State(Object.fromEntries(files.map((f) => [f.resource, f.path])), environment);
  const references = new DatabaseReferences(client);
  for (const { resource, path } of files) {
    const stats: ResourceReport = { file: path, lines: 0, valid: 0, invalid: 0, written: 0 };
    report.resources[resource] = stats;
    const problem = (line: number, p: Problem) => {
      if (report.problems.length < maxListed) report.problems.push(`${path}:${line} ${p.field}: ${p.reason}`);
      else report.problemsNotListed++;
    };
    progress.start(`checking ${path}`, identities.get(path)!.size);
    try {
      for await (const batch of readLines(path, { maxLineBytes, onBytes: (n) => progress.update(n) })) {
        const facts = batch.map((line) => factsOf(resource, line));
        await checkAcrossLines(resource, facts, state, references);
        for (const { line, problems } of facts) {
          stats.lines++;
          if (problems.length === 0) {
            stats.valid++;
            continue;
          }
          stats.invalid++;
          state.invalidLines[resource].add(line);
          for (const p of problems) problem(line, p);
        }
      }
    } finally {
      progress.stop();
    }
    report.invalid += stats.invalid;
  }
  return state.invalidLines;
}

async function assertUnchanged(path: string, before: FileIdentity): Promise<void> {
  const now = await checkReadable(path);
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs) {
    throw new ImportFileError(`${path} changed during the import; nothing was written`);
  }
}

/**
 * Duplicate ids within the file and references to other records, for one batch of lines.
 * A reference to a record whose own line is invalid is itself invalid (it would not be written).
 */
async function checkAcrossLines(resource: Resource, batch: LineFacts[], state: Pass1State, references: DatabaseReferences): Promise<void> {
  // Duplicates, in line order. An invalid line's id still counts: the later line is the duplicate.
  for (const facts of batch) {
    if (facts.id === undefined) continue;
    let seen: number | undefined;
    if (resource === 'interactions') {
      seen = state.interactions.add(facts.id, facts.line);
    } else {
      const id = resource === 'clinics' ? normalizeUuid(facts.id) : facts.id;
      seen = state[resource].get(id)?.line;
      if (seen === undefined) state[resource].set(id, { line: facts.line, valid: false });
    }
    if (seen !== undefined) facts.problems.push({ field: 'id', reason: `duplicate of line ${seen}` });
  }
  if (resource === 'clinics') {
    // A stored clinic of the other environment is refused: its line is invalid, and so are the
    // lines that refer to it (they name an invalid line), rather than moving its data.
    const ids = batch.flatMap((f) => (f.id !== undefined && isUuid(f.id) ? [normalizeUuid(f.id)] : []));
    await references.load(ids, []);
    for (const facts of batch) {
      if (facts.id === undefined || !isUuid(facts.id)) continue;
      const stored = references.clinicEnvironment(normalizeUuid(facts.id));
      if (stored && stored !== state.environment)
        facts.problems.push({ field: 'id', reason: environmentConflict(normalizeUuid(facts.id), stored, state.environment) });
    }
    finishEntries(resource, batch, state);
    return;
  }

  // The database is asked once per batch, for the ids the files do not decide. A campaign's or an
  // interaction's own id is looked up too: a stored one must not move to another clinic (tenant).
  const ownId = (facts: LineFacts) => (facts.id !== undefined && !facts.problems.some((p) => p.field === 'id') ? facts.id : undefined);
  const ownIds = batch.flatMap((f) => (ownId(f) !== undefined ? [ownId(f)!] : []));
  await references.load(
    batch.flatMap((f) => (f.clinicId !== undefined && !state.clinics.has(f.clinicId) ? [f.clinicId] : [])),
    [
      ...batch.flatMap((f) => (f.campaignId !== undefined && !state.campaigns.has(f.campaignId) ? [f.campaignId] : [])),
      ...(resource === 'campaigns' ? ownIds : []),
    ],
    resource === 'interactions' ? ownIds : [],
  );
  const noun = resource === 'campaigns' ? 'campaign' : 'interaction';

  for (const facts of batch) {
    const { clinicId, campaignId, problems } = facts;
    if (clinicId !== undefined) {
      const reason = clinicProblem(clinicId, state, references);
      if (reason) problems.push({ field: 'clinic_id', reason });
    }
    if (campaignId !== undefined) {
      const reason = campaignProblem(campaignId, clinicId, state, references);
      if (reason) problems.push({ field: 'campaign_id', reason });
    }
    const own = ownId(facts);
    if (own !== undefined && clinicId !== undefined) {
      const stored = resource === 'campaigns' ? references.campaignClinic(own) : references.interactionClinic(own)?.clinicId;
      if (stored && stored !== clinicId) {
        // A deleted one too: its tombstone goes when it is stored again, and a mirror of that clinic
        // alone would then never learn that the row left it.
        const reason = references.interactionClinic(own)?.deleted
          ? `interaction ${own} was deleted from clinic ${stored}; it can be stored again in that clinic only`
          : `${noun} ${own} belongs to clinic ${stored} in the database; ${noun === 'campaign' ? 'a' : 'an'} ${noun} cannot move to another clinic`;
        problems.push({ field: 'clinic_id', reason });
      }
    }
  }
  if (resource === 'campaigns') finishEntries(resource, batch, state);
}

function clinicProblem(clinicId: string, state: Pass1State, references: DatabaseReferences): string | undefined {
  const entry = state.clinics.get(clinicId);
  if (entry) return entry.valid ? undefined : `unknown clinic ${clinicId} (its line ${state.files.clinics}:${entry.line} is invalid)`;
  const stored = references.clinicEnvironment(clinicId);
  if (!stored) return `unknown clinic ${clinicId}`;
  return stored === state.environment ? undefined : environmentConflict(clinicId, stored, state.environment);
}

/** Why a record of a stored clinic of the other environment is refused. */
function environmentConflict(clinicId: string, stored: ClinicEnvironmentValue, writing: ClinicEnvironmentValue): string {
  return `clinic ${clinicId} is a ${stored} clinic; this import writes ${writing} data (--environment ${writing}), and data never moves between environments`;
}

function campaignProblem(campaignId: string, clinicId: string | undefined, state: Pass1State, references: DatabaseReferences): string | undefined {
  const entry = state.campaigns.get(campaignId);
  let owner: string | null | undefined;
  if (entry) {
    if (!entry.valid) return `unknown campaign ${campaignId} (its line ${state.files.campaigns}:${entry.line} is invalid)`;
    owner = entry.clinicId;
  } else {
    owner = references.campaignClinic(campaignId);
    if (!owner) return `unknown campaign ${campaignId}`;
  }
  if (clinicId !== undefined && owner !== clinicId) return `campaign ${campaignId} belongs to clinic ${owner}, not ${clinicId}`;
  return undefined;
}

/** Marks the file entries of valid clinic and campaign lines, which later files may refer to. */
function finishEntries(resource: 'clinics' | 'campaigns', batch: LineFacts[], state: Pass1State): void {
  for (const { line, id, clinicId, problems } of batch) {
    if (problems.length > 0 || id === undefined) continue;
    const entry = state[resource].get(resource === 'clinics' ? normalizeUuid(id) : id);
    if (entry?.line !== line) continue;
    entry.valid = true;
    if (resource === 'campaigns') entry.clinicId = clinicId;
  }
}

async function writeFile<R extends Resource>(
  client: pg.ClientBase,
  resource: R,
  path: string,
  invalidLines: Set<number>,
  batchSize: number,
  maxLineBytes: number,
  progress: Progress,
  context: WriteContext,
): Promise<number> {
  const writer = new BatchWriter(client, resource, batchSize, context);
  try {
    for await (const batch of readLines(path, { maxLineBytes, onBytes: (n) => progress.update(n) })) {
      for (const line of batch) {
        if (invalidLines.has(line.number)) continue;
        const { record } = checkLine(resource, line.text);
        // Valid in pass 1 and the file is unchanged (checked around this pass), so this holds.
        if (!record) throw new ImportFileError(`${path}:${line.number} changed during the import; nothing was written`);
        writer.push(record as RecordOf[R]);
        if (writer.full) await writer.send();
      }
    }
    await writer.finish();
  } finally {
    await writer.settle();
  }
  return writer.written;
}

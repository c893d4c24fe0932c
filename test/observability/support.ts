// Helpers for the observability tests (not a test file itself): a logger writing into memory,
// API keys whose id the test knows, a database whose interaction reads fail, and reading one
// sample out of Prometheus text.
import { type CreateApiKeyInput, createApiKey } from '../../src/auth/api-keys.js';
import type { Db } from '../../src/db/client.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';

export interface LogEntry {
  level: string;
  msg: string;
  request_id?: string;
  key_id?: string;
  method?: string;
  route?: string;
  operation?: string;
  status?: number;
  duration_ms?: number;
  client_ip?: string;
  code?: string;
  graphql_path?: string;
  err?: { type?: string; message?: string; stack?: string };
  [field: string]: unknown;
}

export interface CapturedLog {
  logger: Logger;
  /** Everything written so far, verbatim. */
  text(): string;
  entries(): LogEntry[];
  /** The `request` lines (one per HTTP request). */
  requests(): LogEntry[];
  clear(): void;
}

export function captureLog(level: 'trace' | 'debug' | 'info' = 'debug'): CapturedLog {
  let chunks: string[] = [];
  const logger = createLogger({ level, destination: { write: (chunk: string) => void chunks.push(chunk) } });
  const entries = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogEntry);
  return {
    logger,
    text: () => chunks.join(''),
    entries,
    requests: () => entries().filter((e) => e.msg === 'request'),
    clear: () => {
      chunks = [];
    },
  };
}

/** An API key (Unlimited unless given) with its id. */
export async function createKeyWithId(db: Db, input: Partial<CreateApiKeyInput> = {}): Promise<{ key: string; id: string }> {
  const { key, record } = await createApiKey(db, { name: 'observability test key', tier: 'unlimited', ...input });
  return { key, id: record.id };
}

/**
 * The value of one sample in Prometheus text format, or undefined when absent. `labels` must list
 * every label of the sample (in any order).
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]+=")/)
      .filter(Boolean)
      .sort()
      .join(',');
    if (have === wanted) return Number(match[3]);
  }
  return undefined;
}

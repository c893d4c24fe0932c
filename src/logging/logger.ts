// Structured logs: pino, one JSON object a line on stdout (or readable lines with `pretty`).
// Never a key: `authorization` fields are redacted wherever they sit, and anything shaped like an
// API key (`svc_live_...`, `svc_test_...`) is masked in messages, string fields and error stacks.
import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';
import { type LogConfig, loadLogConfig } from '../config.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Readable lines for a terminal instead of JSON. */
  pretty?: boolean;
  /** Where lines go (default: stdout); tests pass an in-memory stream. */
  destination?: DestinationStream;
}

/** Where an `authorization` value may sit in a logged object (pino redaction paths). */
export const REDACTED_PATHS = [
  'authorization',
  'Authorization',
  '*.authorization',
  '*.Authorization',
  '*.*.authorization',
  '*.*.Authorization',
  '*.*.*.authorization',
  '*.*.*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'req.headers.Authorization',
  'request.headers.authorization',
  'request.headers.Authorization',
  'err.config.headers.authorization',
  'metricsToken',
  '*.metricsToken',
];

const API_KEY_LIKE = /svc_(?:live|test)_[A-Za-z0-9]+/g;
const BEARER_LIKE = /(bearer\s+)[^\s"',;]+/gi;

/** Masks anything shaped like an API key or a bearer credential in free text. */
export function scrubSecrets(text: string): string {
  return text.replace(API_KEY_LIKE, '[redacted]').replace(BEARER_LIKE, '$1[redacted]');
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 3 || !value || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, depth + 1)]));
}

/** The innermost error that is not a GraphQL wrapper: the one whose stack says what went wrong. */
export function rootError(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth++) {
    const inner = current && typeof current === 'object' ? (current as { originalError?: unknown }).originalError : undefined;
    if (!inner) break;
    current = inner;
  }
  return current;
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return scrubValue(error, 0);
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  for (const field of ['message', 'stack'] as const) {
    if (typeof serialized[field] === 'string') serialized[field] = scrubSecrets(serialized[field] as string);
  }
  return serialized;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? (options.pretty ? prettyDestination(process.stdout) : pino.destination(1));
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => scrubValue(object, 0) as Record<string, unknown>,
      },
      serializers: { err: serializeError, error: serializeError },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

/** A logger from LOG_LEVEL and LOG_FORMAT (what server.ts passes: `createLogger(loggerOptions(config))`). */
export function loggerOptions(config: LogConfig): LoggerOptions {
  return { level: config.LOG_LEVEL, pretty: config.LOG_FORMAT === 'pretty' };
}

let processLogger: Logger | undefined;

/** One logger per process from the environment, for apps built without one. */
export function defaultLogger(): Logger {
  processLogger ??= createLogger(loggerOptions(loadLogConfig()));
  return processLogger;
}

const LEVEL_TAGS: Record<string, string> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO ',
  warn: 'WARN ',
  error: 'ERROR',
  fatal: 'FATAL',
};

/**
 * A development format: `12:00:01.234 INFO  message key=value ...`, an error's stack on the next
 * lines. No dependency (pino-pretty would add a worker thread and a dozen packages).
 */
export function prettyDestination(out: { write(chunk: string): unknown }): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { time, level, msg, err, pid: _pid, hostname: _hostname, ...fields } = entry;
      const clock = typeof time === 'string' ? time.slice(11, 23) : '';
      const rest = Object.entries(fields)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      let text = `${clock} ${LEVEL_TAGS[String(level)] ?? String(level)} ${msg ?? ''}${rest ? ` ${rest}` : ''}\n`;
      const stack = err && typeof err === 'object' ? (err as { stack?: unknown }).stack : undefined;
      if (typeof stack === 'string') text += `${stack.replace(/^/gm, '    ')}\n`;
      out.write(text);
    },
  };
}

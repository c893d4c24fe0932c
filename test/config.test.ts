import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { startServer } from './helpers/server-process.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 4000, HOST: '127.0.0.1', WORKERS: 1, TRUST_PROXY: false, LOG_LEVEL: 'info' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('reports every invalid variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ DATABASE_URL: 'mysql://x', PORT: 'eighty', REDIS_URL: 'http://x', WORKERS: '0', TRUST_PROXY: 'yes', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['DATABASE_URL', 'PORT', 'REDIS_URL', 'WORKERS', 'TRUST_PROXY', 'LOG_LEVEL']) expect(problems).toContain(name);
  });

  it('an invalid environment stops the server before it starts, with exit code 1 and every problem printed', async () => {
    const started = startServer({ DATABASE_URL: 'mysql://x', PORT: 'eighty' }, 30_000);
    const error = await started.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/exited with 1/);
    expect(error?.message).toContain('DATABASE_URL');
    expect(error?.message).toContain('PORT');
  });
});

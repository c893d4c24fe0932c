// The logger on its own: redaction of authorization values wherever they sit, masking of anything
// shaped like an API key, the readable format, and the logging variables of the configuration.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadLogConfig } from '../../src/config.js';
import { createLogger, prettyDestination, scrubSecrets } from '../../src/logging/logger.js';
import { captureLog } from './support.js';

const KEY = `svc_live_${'k'.repeat(40)}`;

describe('createLogger', () => {
  it('redacts authorization fields at any usual depth, in either case', () => {
    const log = captureLog('info');
    log.logger.info(
      {
        authorization: KEY,
        headers: { authorization: KEY, Authorization: KEY },
        req: { headers: { authorization: `Bearer ${KEY}` } },
        request: { headers: { authorization: KEY } },
        upstream: { call: { authorization: KEY } },
        err: { config: { headers: { authorization: KEY } } },
      },
      'headers',
    );
    const entry = log.entries()[0]!;
    expect(entry.headers).toEqual({ authorization: '[redacted]', Authorization: '[redacted]' });
    expect(entry).toMatchObject({
      authorization: '[redacted]',
      req: { headers: { authorization: '[redacted]' } },
      upstream: { call: { authorization: '[redacted]' } },
    });
    expect(log.text()).not.toContain('kkkkkkkk');
  });

  it('masks key-shaped strings in messages, string fields and error stacks', () => {
    const log = captureLog('info');
    log.logger.warn({ note: `token was ${KEY}`, list: [`Bearer ${KEY}`] }, `seen ${KEY}`);
    log.logger.error({ err: new Error(`bad key ${KEY}`) }, 'failure');
    expect(log.text()).not.toContain('svc_');
    expect(log.text()).not.toContain('kkkkkkkk');
    expect(log.entries()[0]).toMatchObject({ msg: 'seen [redacted]', note: 'token was [redacted]', list: ['Bearer [redacted]'] });
    expect(log.entries()[1]!.err!.stack).toContain('bad key [redacted]');
    expect(scrubSecrets('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [redacted]');
  });

  it('respects the level and writes ISO times and level names', () => {
    const log = captureLog('info');
    log.logger.debug('hidden');
    log.logger.info('shown');
    expect(log.entries()).toEqual([
      expect.objectContaining({ level: 'info', msg: 'shown', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }),
    ]);
  });

  it('pretty: one readable line, the stack indented below', () => {
    const out: string[] = [];
    const logger = createLogger({ level: 'info', destination: prettyDestination({ write: (s: string) => out.push(s) }) });
    logger.info({ request_id: 'req_1', status: 200 }, 'request');
    logger.error({ err: new Error('broken') }, 'unexpected error');
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request request_id=req_1 status=200\n$/);
    expect(out[1]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR unexpected error\n {4}Error: broken\n {8}at /);
  });
});

describe('configuration', () => {
  it('LOG_LEVEL and LOG_FORMAT with defaults', () => {
    expect(loadLogConfig({})).toEqual({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    expect(loadLogConfig({ LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty' })).toEqual({ LOG_LEVEL: 'debug', LOG_FORMAT: 'pretty' });
    expect(() => loadLogConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
  });

  it('METRICS_TOKEN: optional, at least 16 printable characters', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token-123' }).METRICS_TOKEN).toBe('a-long-enough-token-123');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has a space in the token' })).toThrow(/METRICS_TOKEN/);
  });
});

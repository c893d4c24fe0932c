// Yoga's logger logs unexpected errors once per request: a field failing in every item of a page
// of 500 is 500 distinct errors, and gave 500 stack traces for one request.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/app-plugins.js';
import { createYogaLogger } from '../../src/observability/yoga-logger.js';
import { runWithRequest } from '../../src/request/state.js';
import { captureLog } from './support.js';

const request = (id: string) => new Request('http://localhost/graphql', { method: 'POST', headers: { 'x-request-id': id } });

/** What Yoga reports for a field that failed in item `i` of a list: a located error around its own original. */
const itemFailure = (i: number) =>
  new GraphQLError('Unexpected error.', { path: ['interactions', 'nodes', i, 'summary'], originalError: new TypeError(`failure in item ${i}`) });

describe('unexpected errors reported by Yoga', () => {
  it('500 distinct failures in one request: one error line (the first, with its stack and path), counted once', async () => {
    const log = captureLog();
    const metrics = createMetrics({ processMetrics: false });
    const logger = createYogaLogger(log.logger, metrics);
    runWithRequest(request('req-many-failures'), () => {
      for (let i = 0; i < 500; i++) logger.error(itemFailure(i));
    });
    const errors = log.entries().filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ msg: 'unexpected error', code: 'INTERNAL_ERROR', graphql_path: 'interactions.nodes.0.summary' });
    expect(errors[0]!.err!.stack).toContain('failure in item 0');
    expect(await metrics.registry.getSingleMetricAsString('api_unexpected_errors_total')).toMatch(/code="INTERNAL_ERROR"\} 1$/m);
  });

  it('each request logs its own line, even for a failure they share; outside requests, each failure once', () => {
    const log = captureLog();
    const logger = createYogaLogger(log.logger);
    const shared = itemFailure(0);
    for (const id of ['req-a', 'req-b']) {
      runWithRequest(request(id), () => {
        logger.error(shared);
        logger.error(itemFailure(1));
      });
    }
    logger.error(shared);
    logger.error(shared);
    logger.error(itemFailure(2));
    expect(log.entries().filter((e) => e.level === 'error')).toHaveLength(4);
  });
});

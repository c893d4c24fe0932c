// GraphQL over HTTP conformance: graphql-http's server audits against the app itself (in-process),
// with a valid key on every request so that each audit reaches GraphQL rather than admission.
import { serverAudits } from 'graphql-http';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';

const db = testDb();
const app = testApp(db);
let key = '';

beforeAll(async () => {
  key = await createKey(db);
});

const fetchFn = (input: RequestInfo | URL, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${key}`);
  return app.fetch(new Request(input, { ...init, headers }));
};

describe('graphql-http server audits', () => {
  for (const audit of serverAudits({ url: 'http://localhost/graphql', fetchFn })) {
    it(audit.name, async () => {
      const result = await audit.fn();
      expect(result.status, 'reason' in result ? `${result.reason} ${JSON.stringify(await result.response?.text?.())}` : '').toBe('ok');
    });
  }
});

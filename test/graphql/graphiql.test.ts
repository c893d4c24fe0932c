import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { testDb } from '../helpers/db.js';

describe('GraphiQL', () => {
  it('is served to a browser without a key, with the demo key in its headers editor', async () => {
    const app = createApp({ db: testDb(), demoKey: 'svc_test_DEMOdemoDEMOdemoDEMOdemoDEMOdemoDEMOdemo' });
    const response = await app.fetch('http://localhost/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('GraphiQL');
    expect(html).toContain('Bearer svc_test_DEMOdemoDEMOdemoDEMOdemoDEMOdemoDEMOdemo');
  });

  it('does not run a query sent without a key', async () => {
    const app = createApp({ db: testDb() });
    const response = await app.fetch('http://localhost/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
  });
});

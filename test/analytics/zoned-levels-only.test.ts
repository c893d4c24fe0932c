// Metrics in a zone whose offset is not a whole number of hours (Asia/Kathmandu +05:45,
// Asia/Kolkata +05:30, America/St_Johns -03:30, Pacific/Chatham +12:45, Australia/Adelaide +09:30)
// with a filter (clinic, channel, type, campaign) are answered from the rollup levels alone: the
// service runs here as a database role that may not read the interactions table, and every answer
// equals the one of the same service with full rights (whose figures the property test compares
// with raw SQL). Before the quarter-hour totals level, the part of each bucket edge finer than an
// hour was read from the raw table: 16 s for a year of hours in Kathmandu with channel=voice at
// 100,000 interactions. A zone of local mean time (America/New_York's -04:56:02 until 18 November 1883) still
// needs the raw table, and shows that the role does keep the service from reading it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPrismaClient } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { directionOfType } from '../../src/domain/values.js';
import { createKey, testApp } from '../helpers/app.js';
import { withFreshDatabase } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import { expectStatus, get } from '../rest/client.js';

const ZONES = ['Asia/Kathmandu', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Australia/Adelaide'] as const;
const MINUTE = 60_000;

describe('zoned metrics with a filter', () => {
  it('are answered without reading the interactions table, in every zone whose offset is a multiple of 15 minutes', { timeout: 120_000 }, async () => {
    await withFreshDatabase('zoned_levels', async (url, q) => {
      await migrate(url);
      await q.connect();
      const role = `no_raw_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const full = createPrismaClient(url, 2);
      const restrictedUrl = new URL(url);
      // A password: the embedded PostgreSQL asks for one over TCP (CI's trusts local connections).
      const password = randomUUID();
      restrictedUrl.username = role;
      restrictedUrl.password = password;
      await q.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      const restricted = createPrismaClient(restrictedUrl.toString(), 2);
      try {
        await q.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
        await q.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
        await q.query(`REVOKE SELECT ON interactions FROM ${role}`);

        const [a, b] = await Promise.all([createClinic(full, { timezone: 'Asia/Kathmandu' }), createClinic(full, { timezone: 'Asia/Kolkata' })]);
        const campaign = await createCampaign(full, a.id);
        // Rows every 7 minutes and 13 seconds over 12 days (most quarter hours of every edge hold
        // some), of both clinics, channels and several types, half of them in the campaign.
        const start = Date.UTC(2026, 2, 1);
        const types = ['INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER', 'FORM_OUTBOUND'] as const;
        await full.interaction.createMany({
          data: Array.from({ length: 2_400 }, (_, i) => {
            const type = types[i % types.length]!;
            const clinic = i % 3 === 0 ? b : a;
            const channel = type === 'APPOINTMENT_REMINDER' || i % 5 === 0 ? 'whatsapp' : 'voice';
            return {
              id: `int_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
              clinicId: clinic.id,
              campaignId: clinic === a && i % 2 === 0 ? campaign.id : null,
              channel,
              type: channel === 'whatsapp' && type === 'INBOUND' ? 'FORM_OUTBOUND' : type,
              direction: directionOfType(channel === 'whatsapp' && type === 'INBOUND' ? 'FORM_OUTBOUND' : type),
              phoneNumber: '+34 600 000 000',
              startedAt: new Date(start + i * (7 * MINUTE + 13_000)),
              durationSeconds: channel === 'voice' ? (i * 37) % 900 : null,
              outcome: i % 4 === 0 ? null : i % 4 === 1 ? 'APPOINTMENT_BOOKED' : 'NO_ANSWER',
            };
          }),
        });

        const fullApp = testApp(full);
        const restrictedApp = testApp(restricted);
        const key = await createKey(full);
        const filters = [
          `clinic_id=${a.id}`,
          'channel=voice',
          'type=CAMPAIGN_OUTBOUND',
          `campaign_id=${campaign.id}`,
          `channel=voice&clinic_id=${b.id}`,
          `campaign_id=${campaign.id}&type=APPOINTMENT_REMINDER`,
        ];
        const requests = [
          'series?granularity=hour&date_from=2026-03-02&date_to=2026-03-05',
          'series?granularity=day&date_from=2026-03-01&date_to=2026-03-12',
          'series?granularity=week&date_from=2026-03-01&date_to=2026-03-12&compare=previous_period',
          // (date-time bounds on quarter hours: a bound at 10:07 needs the raw rows of 10:00-10:07 in any zone)
          'daily?date_from=2026-03-01T10:15:00Z&date_to=2026-03-10T17:44:59.999Z',
          'summary?date_from=2026-03-02&date_to=2026-03-09&compare=previous_period',
        ];
        let nonEmpty = 0;
        for (const zone of ZONES) {
          for (const filter of filters) {
            for (const request of requests) {
              if (request.startsWith('summary') && filter.includes('type=')) continue; // (the summary has no type filter)
              const path = `/api/v1/metrics/${request}&${filter}&timezone=${zone}`;
              const expected = await get(fullApp, path, key);
              expectStatus(expected, 200);
              const actual = await get(restrictedApp, path, key);
              expect(actual.status, `${path}: ${JSON.stringify(actual.body).slice(0, 300)}`).toBe(200);
              expect(actual.body.data, path).toEqual(expected.body.data);
              if (JSON.stringify(expected.body.data).match(/"total":[1-9]/)) nonEmpty++;
            }
          }
        }
        // (the comparison means something: most answers count interactions)
        expect(nonEmpty).toBeGreaterThan(ZONES.length * filters.length * 3);

        // The control: an offset of local mean time leaves minutes under a quarter hour, read raw;
        // the role cannot, so that request fails (and the same one with full rights does not).
        const lmt = `/api/v1/metrics/series?granularity=day&date_from=1883-11-10&date_to=1883-11-14&channel=voice&timezone=America/New_York`;
        expectStatus(await get(fullApp, lmt, key), 200);
        expect((await get(restrictedApp, lmt, key)).status).toBeGreaterThanOrEqual(500);
      } finally {
        await restricted.$disconnect();
        await full.$disconnect();
        await q.query(`DROP OWNED BY ${role}`);
        await q.query(`DROP ROLE ${role}`);
      }
    });
  });
});

// Lints the served OpenAPI document with Redocly CLI's recommended rules (redocly.yaml): the
// document is built as the server builds it, written to a temporary file, and handed to
// `redocly lint`, whose exit code this script exits with. Offline: no telemetry, no update check.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/rest/openapi.js';

const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
try {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
  const result = spawnSync(path.join(root, 'node_modules/.bin/redocly'), ['lint', '--config', path.join(root, 'redocly.yaml'), file], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

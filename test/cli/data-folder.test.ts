// The CLI without DATABASE_URL uses the embedded database of its DATA_DIR. Given a data folder
// other than the server's, it makes a new, empty database there: it must say so rather than answer
// "No API keys" as if it were the server's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR } from '../../src/config.js';
import { otherDataFolders } from '../../src/db/embedded.js';
import { runCliWithEnv } from '../helpers/cli.js';

describe('the CLI on a data folder that holds no embedded database yet', () => {
  // Entered by everyone: run as root, PostgreSQL runs as the postgres user and keeps the cluster
  // here (not in the machine's shared folder), so removing the folder removes it all.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-data-folder-'));
  fs.chmodSync(dataDir, 0o755);
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('names the data folder, says the database is new and empty and how to reach the server’s; the next run says nothing of it', async () => {
    const first = await runCliWithEnv(['keys', 'list'], { DATA_DIR: dataDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `No embedded PostgreSQL cluster for the data folder ${dataDir} yet: initialising a new, empty one in ${path.join(dataDir, 'postgres')}`,
    );
    expect(first.stderr).toContain(
      `Note: this is a new, empty database (the data folder ${dataDir} had none). ` +
        `The server (\`npm start\`) uses the one of the DATA_DIR it runs with (default ${DEFAULT_DATA_DIR}), or its DATABASE_URL: run the CLI with the same.`,
    );
    expect(first.stdout).toContain('No API keys');

    const again = await runCliWithEnv(['--json', 'keys', 'list'], { DATA_DIR: dataDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('new, empty');
    expect(JSON.parse(again.stdout)).toEqual([]);
  }, 180_000);
});

describe('where the other embedded databases are', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-other-folders-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const cluster = (home: string) => {
    fs.mkdirSync(path.join(home, 'postgres'), { recursive: true });
    fs.writeFileSync(path.join(home, 'postgres', 'PG_VERSION'), '18\n');
  };

  it('lists the candidates with a cluster and the data folders of the clusters kept for root, never the folder in use', () => {
    const serverData = path.join(scratch, 'server-data');
    const empty = path.join(scratch, 'empty-data');
    const current = path.join(scratch, 'cli-data');
    const shared = path.join(scratch, 'shared');
    cluster(serverData);
    cluster(current);
    fs.mkdirSync(empty);
    // A checkout run as root from a private folder: its cluster is kept in the shared folder, which names its data folder.
    cluster(path.join(shared, 'cluster-0123456789abcdef'));
    fs.writeFileSync(path.join(shared, 'cluster-0123456789abcdef', 'data-folder.txt'), 'The embedded PostgreSQL cluster of /root/app/.data\n');

    expect(otherDataFolders(current, [serverData, empty, current], shared)).toEqual(['/root/app/.data', serverData]);
    expect(otherDataFolders(current, [], path.join(scratch, 'no-shared-folder'))).toEqual([]);
  });
});

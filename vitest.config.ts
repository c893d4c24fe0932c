import { createRequire } from 'node:module';
import os from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql@16 ships CJS (main) and ESM (module) builds without an exports map. Node, and so
    // every dependency, loads the CJS one; Vite would give our sources the ESM one, and schema
    // objects from two copies of graphql do not mix. Pin ours to what Node loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Request logs of in-process apps would drown the report; log tests use their own loggers.
    env: { LOG_LEVEL: 'silent' },
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker runs its files one after another in one module graph instead of loading the app
    // afresh for each (that was 180 of the suite's ~600 s on 2 cores). So a helper that holds a
    // resource opens it per file and closes it after the file (test/helpers/db.ts testDb) or keeps
    // one for the worker (test/rest/breakdown-support.ts), never closes it at module scope.
    isolate: false,
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, where the files
    // then run one after another while the CPU waits on PostgreSQL, child processes and timers. One
    // more worker than cores keeps the CPU busy through those waits (2 cores: 461 s with two
    // workers, 422 s with three). Each worker has a database of its own (test/helpers/db.ts), so
    // workers never see each other's rows or transactions.
    maxWorkers: os.availableParallelism() + 1,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});

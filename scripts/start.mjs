// `npm start`: compiles into dist/ when the sources changed since the last compile, then runs the
// compiled server in this very process.
//
// In this process, not a child: npm passes SIGINT and SIGTERM on to its script's process only (the
// package.json script `exec`s node, so that process is this one), and the server's own handlers
// drain, stop the embedded PostgreSQL and exit 0, which npm then exits with. A shell or a wrapper
// in between would swallow the signal or turn the clean exit into 143.
//
// Cluster workers (WORKERS > 1) run this file too; the primary has compiled already.
import cluster from 'node:cluster';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, projectRoot, staleReason } from './build.mjs';

const SIGNALS = ['SIGINT', 'SIGTERM'];

/** Compiles if needed; false when the compile failed or a signal stopped it. */
async function compileIfStale() {
  const reason = staleReason();
  if (!reason) return true;
  console.log(`Compiling into dist/ (${reason})`);
  // A stop requested now ends the compile and exits 0: nothing is running yet.
  const stop = new AbortController();
  const onSignal = (signal) => {
    console.log(`${signal} received while compiling: stopping`);
    stop.abort();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    const built = await build({ signal: stop.signal });
    if (stop.signal.aborted) process.exit(0);
    if (!built) console.error('Compiling failed; the server was not started.');
    return built;
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}

if (cluster.isWorker || (await compileIfStale())) {
  await import(pathToFileURL(path.join(projectRoot, 'dist', 'src', 'server.js')).href);
} else {
  process.exitCode = 1;
}

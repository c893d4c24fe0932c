// Compiles the project into dist/ with tsc, and tells whether dist/ is still current, so that
// `npm start` compiles only after a change (a full compile takes several seconds).
//
// dist/ is current when every file of the last compile is unchanged (size and modification time).
// That list is the compiler's own (`tsc --listFiles`: our sources, the generated Prisma client and
// every declaration file they use) plus the config files, so no list of folders is kept here. A
// new file matters only once an existing one imports it, and that one has changed.
//
// Plain JavaScript, not TypeScript: it runs before anything is compiled.
//
// `node scripts/build.mjs` compiles whatever the state of dist/ (`npm run build`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const TSCONFIG = 'tsconfig.build.json';
const distDir = path.join(projectRoot, 'dist');
/** What the last successful compile read; absent while dist/ is unknown or being rewritten. */
const manifestFile = path.join(distDir, '.build-manifest.json');

const tscScript = () => path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** The tsconfig file and those it extends, in order: they shape the output but tsc does not list them. */
function configChain(file) {
  const chain = [];
  for (let current = path.resolve(projectRoot, file); current; ) {
    chain.push(current);
    const { extends: parent } = JSON.parse(fs.readFileSync(current, 'utf8'));
    current = typeof parent === 'string' && parent.startsWith('.') ? path.resolve(path.dirname(current), parent) : undefined;
  }
  return chain;
}

const stamp = (file) => {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

/** Why dist/ must be compiled again, or undefined when it is current. */
export function staleReason() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  } catch {
    return 'dist/ has not been built by this script yet';
  }
  for (const [file, recorded] of Object.entries(manifest.files ?? {})) {
    if (stamp(file) !== recorded) return `${path.relative(projectRoot, file)} changed`;
  }
  return undefined;
}

/**
 * Runs tsc into dist/ and records what it read. Resolves with true when it compiled without errors,
 * false otherwise (tsc's messages went to stderr). `signal` aborts it (the compiler is stopped).
 */
export async function build({ signal } = {}) {
  const startedAt = Date.now();
  // Gone first: a compile that fails or is cut short leaves dist/ marked as stale.
  fs.rmSync(manifestFile, { force: true });
  // In a process group of its own: bin/tsc is a launcher whose compiler is a separate program, and
  // stopping the group stops both.
  const child = spawn(process.execPath, [tscScript(), '-p', TSCONFIG, '--listFiles', '--pretty', 'false'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const abort = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  signal?.addEventListener('abort', abort, { once: true });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status));
  }).finally(() => signal?.removeEventListener('abort', abort));
  const lines = output.split('\n');
  // --listFiles prints absolute paths; everything else on stdout is a diagnostic.
  const read = lines.filter((line) => path.isAbsolute(line));
  const diagnostics = lines.filter((line) => line && !path.isAbsolute(line));
  if (diagnostics.length) process.stderr.write(`${diagnostics.join('\n')}\n`);
  if (code !== 0 || signal?.aborted) return false;
  const files = {};
  for (const file of [...configChain(TSCONFIG), path.join(projectRoot, 'package.json'), ...read]) {
    // Changed while tsc ran: its output may predate the change, so the next start compiles again.
    files[file] = fs.statSync(file).mtimeMs >= startedAt ? 'changed during the build' : stamp(file);
  }
  fs.writeFileSync(`${manifestFile}.tmp`, JSON.stringify({ files }));
  fs.renameSync(`${manifestFile}.tmp`, manifestFile);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = (await build()) ? 0 : 1;
}

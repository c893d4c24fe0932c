// Debian's chromium for the browser tests (playwright-core drives it; no browser can be downloaded
// here). Where none is installed a test says it was skipped (`apt-get install -y chromium`; .ci/run
// installs it).
import { existsSync } from 'node:fs';

const INSTALLED = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));

/**
 * Headless, and quiet on the network: without the background-networking flags chromium keeps
 * trying Google's hosts, which this machine's closed network refuses. No sandbox: CI runs as root.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The chromium executable, or undefined after saying that `what` is skipped. */
export function chromiumFor(what: string): string | undefined {
  if (!INSTALLED) console.warn(`SKIPPED (${what}): no chromium found; install it with \`apt-get install -y chromium\`.`);
  return INSTALLED;
}

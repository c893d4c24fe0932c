// `npm ci` on a supported Node prints no engine warning: every installed package accepts every Node
// version package.json's `engines` names. npm only warns (EBADENGINE) and installs anyway, so a
// dependency that drops Node 20 would otherwise go unnoticed until it breaks at run time.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockedPackage {
  engines?: { node?: string } | string[];
  os?: string[];
  cpu?: string[];
  optional?: boolean;
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> };

/** Packages npm installs on this platform (others, e.g. another OS's binaries, are skipped by npm). */
function installedHere(entry: LockedPackage): boolean {
  const fits = (list: string[] | undefined, value: string) =>
    !list || list.includes(value) || list.every((item) => item.startsWith('!') && item !== `!${value}`);
  return fits(entry.os, process.platform) && fits(entry.cpu, process.arch);
}

describe('Node versions', () => {
  it('the running Node is one package.json names', () => {
    expect(semver.satisfies(process.version, manifest.engines.node), `${process.version} vs ${manifest.engines.node}`).toBe(true);
  });

  it('every locked package accepts every Node version package.json names', () => {
    const refusing: string[] = [];
    let checked = 0;
    for (const [location, entry] of Object.entries(lock.packages)) {
      if (location === '' || !installedHere(entry)) continue;
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!range) continue;
      checked++;
      if (!semver.subset(manifest.engines.node, range, { includePrerelease: false }))
        refusing.push(`${location.replace(/^.*node_modules\//, '')}: node ${range}`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(refusing).toEqual([]);
  });
});

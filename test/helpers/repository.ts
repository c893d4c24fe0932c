// The repository's own files, for tests that read across it (docs links, paths mentioned in text).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Files of the repository (relative paths): what git tracks or would add, else every file outside dependencies and build output. */
export function repositoryFiles(): string[] {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
    return listed.split('\0').filter((file) => file && existsSync(path.join(ROOT, file)));
  } catch {
    const skipped = new Set(['node_modules', '.git', '.data', 'dist', 'generated']);
    const walk = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
        if (skipped.has(entry.name)) return [];
        const file = path.join(dir, entry.name);
        return entry.isDirectory() ? walk(file) : [file];
      });
    return walk('');
  }
}

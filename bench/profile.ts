// Where the service's CPU time goes: a summary of a V8 CPU profile (`node --cpu-prof`) by package
// (node_modules/<package>, src/<file>, Node.js internals, garbage collection) and by function.
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function bucketOf(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1).replace(/^src\/generated\/.*/, 'src/generated (Prisma client)');
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return url.slice(bench + 1);
  return url;
}

/** Self time per package and per function, as markdown lists (the idle time left out). */
export function summarizeProfile(file: string, top = 12): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += us;
    const bucket = bucketOf(node);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const name = `${node.callFrame.functionName || '(anonymous)'} (${bucket}${node.callFrame.url ? `:${node.callFrame.lineNumber + 1}` : ''})`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const list = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `${((100 * us) / busy).toFixed(1)}% ${name}`)
      .join('; ');
  return `busy ${(busy / 1e6).toFixed(1)} s of CPU. By package: ${list(buckets)}.\n\nBy function (self time): ${list(functions)}.`;
}

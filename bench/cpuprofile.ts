/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --profile`, or any `node --cpu-prof` run):
 *   node dist/bench/cpuprofile.js FILE [FILTER_REGEX] [TOP]
 * prints self time by package/file, self time by function, and inclusive time by function (optionally only
 * functions whose "name file:line" matches FILTER_REGEX, e.g. 'src/').
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) => url.replace(/.*node_modules\//, 'nm:').replace(/^file:\/\//, '').replace(/.*\/(dist\/)/, '$1');
const frameKey = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const fileKey = (n: ProfileNode) => {
  const u = n.callFrame.url;
  if (!u) return n.callFrame.functionName || '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  return pkg ? `nm:${pkg[1]}` : shortUrl(u);
};

export function summariseProfile(file: string, filter: RegExp | null, top = 25): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfById = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) selfById.set(p.samples[i], (selfById.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  let total = 0;
  const byFile = new Map<string, number>();
  const byFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const [id, us] of selfById) {
    total += us;
    const n = byId.get(id)!;
    add(byFile, fileKey(n), us);
    add(byFn, frameKey(n), us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = frameKey(byId.get(cur)!);
      if (!seen.has(k)) {
        seen.add(k);
        add(inclusive, k, us);
      }
    }
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
      .join('\n');
  const incl = filter ? new Map([...inclusive].filter(([k]) => filter.test(k))) : inclusive;
  return [
    `${file}: ${(total / 1000).toFixed(0)} ms sampled`,
    '--- self time by package/file',
    list(byFile),
    '--- self time by function',
    list(byFn),
    `--- inclusive time by function${filter ? ` matching ${filter}` : ''}`,
    list(incl),
  ].join('\n');
}

if (require.main === module) {
  const [file, filter, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/cpuprofile.js FILE [FILTER_REGEX] [TOP]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseProfile(file, filter ? new RegExp(filter) : null, top ? Number(top) : 25)}\n`);
}

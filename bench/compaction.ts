/**
 * Compaction section of `npm run bench` (issue 3): throughput over the corpus of real MCP tool schemas
 * (schemas per second, side by side with a plain JSON.parse+stringify of the same schemas as a yardstick), and
 * the time and output size of a diamond-shaped $ref blow-up (12 levels, two refs per level; target < 100 ms).
 * Issue 16: each provider profile's throughput on the corpus's neutral compact schemas (what ingest runs after the
 * compactor), and how many of them break the profile's rule table before (neutral view) and after.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyProfile, compact, PROFILE_NAMES, profileViolations, type JsonObject, type ProfileName } from '../src/catalog/compact';

export interface CompactionFigures {
  readonly corpusSchemas: number;
  readonly schemasPerSecond: number;
  readonly copyPerSecond: number;
  readonly diamondColdMs: number;
  readonly diamondWarmMs: number;
  readonly diamondBytes: number;
  readonly diamondTruncated: boolean;
  /** issue 16, per profile: schemas/s of applyProfile over the neutral compact schemas, violations before/after */
  readonly profiles: ReadonlyArray<{ readonly profile: ProfileName; readonly schemasPerSecond: number; readonly before: number; readonly after: number }>;
}

function corpusSchemas(): unknown[] {
  const dir = join(__dirname, '..', '..', 'test', 'fixtures', 'mcp-tools');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tools: Array<{ inputSchema: unknown }> }).tools.map((t) => t.inputSchema));
}

function diamond(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = { L0: { type: 'object', properties: { leaf: { type: 'string' } } } };
  for (let i = 1; i <= levels; i++) {
    defs[`L${i}`] = { type: 'object', properties: { left: { $ref: `#/$defs/L${i - 1}` }, right: { $ref: `#/$defs/L${i - 1}` } } };
  }
  return { type: 'object', properties: { root: { $ref: `#/$defs/L${levels}` } }, $defs: defs };
}

function perSecond(fn: () => void, items: number, ms: number): number {
  const end = Date.now() + ms;
  let done = 0;
  const t0 = process.hrtime.bigint();
  while (Date.now() < end) {
    fn();
    done += items;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return done / seconds;
}

export function runCompaction(durationMs = 3000): CompactionFigures {
  const schemas = corpusSchemas();
  // Each run parses fresh copies: the compactor must not benefit from object identity.
  const texts = schemas.map((s) => JSON.stringify(s));
  const d = diamond(12);
  const c0 = process.hrtime.bigint();
  const first = compact(structuredClone(d));
  const diamondColdMs = Number(process.hrtime.bigint() - c0) / 1e6;
  const warmRuns = 20;
  const w0 = process.hrtime.bigint();
  for (let i = 0; i < warmRuns; i++) compact(structuredClone(d));
  const diamondWarmMs = Number(process.hrtime.bigint() - w0) / 1e6 / warmRuns;
  const schemasPerSecond = perSecond(() => {
    for (const t of texts) compact(JSON.parse(t));
  }, texts.length, durationMs);
  const copyPerSecond = perSecond(() => {
    for (const t of texts) JSON.stringify(JSON.parse(t));
  }, texts.length, Math.min(durationMs, 1000));
  const neutralTexts = texts.map((t) => JSON.stringify(compact(JSON.parse(t)).schema));
  const profiles = PROFILE_NAMES.map((profile) => {
    const neutral = neutralTexts.map((t) => JSON.parse(t) as JsonObject);
    const before = neutral.filter((n) => profileViolations(profile, n, profile === 'openai' ? true : undefined).length > 0).length;
    const after = neutral.filter((n) => {
      const r = applyProfile(profile, n);
      return profileViolations(profile, r.schema, r.strict).length > 0;
    }).length;
    const rate = perSecond(() => {
      for (const t of neutralTexts) applyProfile(profile, JSON.parse(t) as JsonObject);
    }, neutralTexts.length, Math.min(durationMs, 1000));
    return { profile, schemasPerSecond: rate, before, after };
  });
  return {
    profiles,
    corpusSchemas: texts.length,
    schemasPerSecond,
    copyPerSecond,
    diamondColdMs,
    diamondWarmMs,
    diamondBytes: JSON.stringify(first.schema).length,
    diamondTruncated: first.truncated,
  };
}

export function compactionTable(f: CompactionFigures): string {
  return [
    '| compaction | value |',
    '|---|---|',
    `| corpus (real MCP tool schemas) | ${f.corpusSchemas} schemas |`,
    `| throughput | ${Math.round(f.schemasPerSecond).toLocaleString('en')} schemas/s (JSON copy of the same: ${Math.round(f.copyPerSecond).toLocaleString('en')}/s, ratio ${(f.schemasPerSecond / f.copyPerSecond).toFixed(3)}) |`,
    `| diamond 12 levels × 2 refs, first call | ${f.diamondColdMs.toFixed(1)} ms (target < 100 ms) |`,
    `| diamond, warm average | ${f.diamondWarmMs.toFixed(1)} ms |`,
    `| diamond output | ${f.diamondBytes.toLocaleString('en')} bytes, truncated: ${f.diamondTruncated} |`,
    ...f.profiles.map(
      (p) => `| profile ${p.profile} (after the compactor) | ${Math.round(p.schemasPerSecond).toLocaleString('en')} schemas/s; schemas breaking its rules: ${p.before} before, ${p.after} after |`,
    ),
  ].join('\n');
}

if (require.main === module) {
  process.stdout.write(`${compactionTable(runCompaction())}\n`);
}

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Realistic tool shapes for the benchmark: the captured MCP tools/list results in test/fixtures/mcp-tools
 * (114 tools of 8 real servers), cycled and renamed to reach any count.
 *
 * Layout used everywhere: tools come in blocks of 100 (one block per tenant), 10 blocks per simulated source
 * (1,000 tools). Tool `i` of block `b` is named `b<bbbb>_<ii>_<original name>`, so the grant pattern
 * `mcp.<source>.b<bbbb>_*` matches exactly that block.
 */
export const TOOLS_PER_BLOCK = 100;
export const BLOCKS_PER_SOURCE = 10;
export const TOOLS_PER_SOURCE = TOOLS_PER_BLOCK * BLOCKS_PER_SOURCE;

/** repo root, from dist/bench (compiled) or bench (ts-node style). */
export const REPO_ROOT = join(__dirname, __dirname.includes(`${join('dist', 'bench')}`) ? '../..' : '..');

let fixtures: Array<Record<string, unknown>> | null = null;

function fixtureTools(): ReadonlyArray<Record<string, unknown>> {
  if (fixtures) return fixtures;
  const dir = join(REPO_ROOT, 'test', 'fixtures', 'mcp-tools');
  const out: Array<Record<string, unknown>> = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tools?: Array<Record<string, unknown>> };
    for (const t of doc.tools ?? []) out.push(t);
  }
  if (!out.length) throw new Error(`no fixture tools found in ${dir}`);
  fixtures = out;
  return out;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

export function sourceName(index: number): string {
  return `s${pad(index, 3)}`;
}

export function blockPrefix(block: number): string {
  return `b${pad(block, 4)}_`;
}

/** The tools of one block (fresh objects; deterministic). */
function blockTools(block: number): Array<Record<string, unknown>> {
  const fx = fixtureTools();
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < TOOLS_PER_BLOCK; i++) {
    const n = block * TOOLS_PER_BLOCK + i;
    const t = fx[n % fx.length];
    out.push({ ...t, name: `${blockPrefix(block)}${pad(i, 2)}_${String(t.name)}` });
  }
  return out;
}

/** The full listing of one simulated source: blocks [first, first + count). */
export function listingOf(firstBlock: number, blockCount: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (let b = firstBlock; b < firstBlock + blockCount; b++) out.push(...blockTools(b));
  return out;
}

/** toolId of tool i of a block served by a source. */
export function toolIdOf(source: string, block: number, i: number): string {
  const fx = fixtureTools();
  const t = fx[(block * TOOLS_PER_BLOCK + i) % fx.length];
  return `mcp.${source}.${blockPrefix(block)}${pad(i, 2)}_${String(t.name)}`;
}

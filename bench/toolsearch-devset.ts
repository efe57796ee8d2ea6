import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchDocument } from '../src/search/fields';
import { mcpToolId } from '../src/sources/mcp-tool-id';
import { REPO_ROOT } from './catalog-data';

/**
 * The LiveMCPBench development set (../shared/toolsearch/livemcpbench/, README there) as the catalog would hold it:
 * each server an MCP source named by its config key made a valid source name, each tool under its MCP toolId,
 * source = that name. Nothing else of the set's metadata (server display names, categories) is indexed, because the
 * real ingest path does not have it.
 */
export const DEVSET_DIR = process.env.TOOLSEARCH_DEVSET ?? join(REPO_ROOT, '..', 'shared', 'toolsearch', 'livemcpbench');

interface RawTool {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly parameters?: unknown;
  readonly serverKey: string;
}
interface RawQuery {
  readonly id: string;
  readonly text: string;
  readonly gold: readonly string[];
  readonly category: string;
}

export interface DevQuery {
  readonly id: string;
  readonly text: string;
  /** Gold as catalog toolIds. */
  readonly gold: ReadonlySet<string>;
  readonly category: string;
  /** 'A' (the half constants were checked on) or 'B' (held out): by a hash of the query id, not by position. */
  readonly split: 'A' | 'B';
}

export interface DevSet {
  readonly docs: readonly SearchDocument[];
  readonly queries: readonly DevQuery[];
}

/** An MCP source name (`[a-z0-9][a-z0-9-]{0,31}`) from a server's config key. */
function sourceNameOf(serverKey: string): string {
  const s = serverKey.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+/, '').slice(0, 32);
  return s || 'server';
}

function splitOf(queryId: string): 'A' | 'B' {
  return createHash('sha256').update(queryId).digest()[0] % 2 === 0 ? 'A' : 'B';
}

export function loadDevSet(dir = DEVSET_DIR): DevSet {
  const tools = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8')) as RawTool[];
  const queries = JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')) as RawQuery[];
  const idOf = new Map<string, string>();
  const docs: SearchDocument[] = tools.map((t) => {
    const source = sourceNameOf(t.serverKey);
    const toolId = mcpToolId(source, t.name);
    if (!toolId) throw new Error(`${t.id}: no toolId`);
    idOf.set(t.id, toolId);
    return { toolId, tenantId: null, name: t.name, description: t.description ?? '', inputSchema: t.parameters ?? {}, source };
  });
  if (new Set(idOf.values()).size !== docs.length) throw new Error('two dev-set tools share a toolId');
  return {
    docs,
    queries: queries.map((q) => ({
      id: q.id, text: q.text, category: q.category, split: splitOf(q.id),
      gold: new Set(q.gold.map((g) => {
        const id = idOf.get(g);
        if (!id) throw new Error(`${q.id}: gold ${g} not in tools.json`);
        return id;
      })),
    })),
  };
}

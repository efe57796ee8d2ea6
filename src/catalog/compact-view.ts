import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { COMPACTOR_VERSION, type CompactNote, compact } from './compact';

/**
 * The compact form of one input schema, computed once per schema version (issue 3): keyed by the hash of
 * the stored schema text and the compactor version, never per request. A small memo avoids compacting the
 * same schema twice while a listing is checked and then projected.
 */
export interface CompactForm {
  readonly key: string;
  readonly schemaText: string;
  readonly notes: readonly CompactNote[];
}

function compactKeyOf(inputSchemaText: string): string {
  return `${createHash('sha256').update(inputSchemaText).digest('hex').slice(0, 48)}:${COMPACTOR_VERSION}`;
}

const memo = new LRUCache<string, CompactForm>({ max: 2000 });

export function compactFor(inputSchemaText: string): CompactForm {
  const key = compactKeyOf(inputSchemaText);
  const hit = memo.get(key);
  if (hit) return hit;
  const result = compact(JSON.parse(inputSchemaText));
  const form: CompactForm = { key, schemaText: JSON.stringify(result.schema), notes: result.notes };
  memo.set(key, form);
  return form;
}

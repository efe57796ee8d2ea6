/**
 * What the search indexes of a tool, and the fields its text is split into. A pure description of the tool's text:
 * visibility is not here (the index is queried with a caller's visible set), classification is not here unless the
 * host wants it searchable (`metadata`).
 */
export interface SearchDocument {
  readonly toolId: string;
  /** null: global tool; otherwise the only tenant that may see it (ToolRecord.tenantId). Decides the partition. */
  readonly tenantId: string | null;
  readonly name: string;
  readonly title?: string | null;
  readonly description?: string | null;
  /** The input schema as JSON text (ToolRecord.inputSchemaText) or as a value. */
  readonly inputSchema?: string | unknown;
  /** Where the tool comes from: the MCP source name, `config`, `graphql` (ToolRecord.origin). */
  readonly source?: string | null;
  /** Optional host-side words (e.g. a classification or host tags), weighted like the source. */
  readonly metadata?: string | null;
}

/**
 * Fields, in packing order (index.ts packs one capped term frequency per field into 4 bits of a 32-bit word, so at
 * most 8 fields). Parameter descriptions are separate from parameter names because names are short identifiers
 * close to the tool's purpose (`city`, `start_date`) and descriptions are prose of the same length class as the
 * description itself.
 */
export const FIELDS = ['name', 'title', 'description', 'params', 'paramText', 'source', 'metadata'] as const;
export type FieldName = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

export type FieldTexts = Record<FieldName, string>;

/** Walk bounds of a hostile schema (ingest already caps it at 256 KiB and depth 64): enough for any real tool. */
const MAX_SCHEMA_PROPERTIES = 256;
const MAX_SCHEMA_NODES = 4096;

export function fieldTexts(doc: SearchDocument): FieldTexts {
  const { names, texts } = schemaWords(doc.inputSchema);
  return {
    name: doc.name ?? '',
    title: doc.title ?? '',
    description: doc.description ?? '',
    params: names.join(' '),
    paramText: texts.join(' \n '),
    source: doc.source ?? '',
    metadata: doc.metadata ?? '',
  };
}

/** Property names (every level), and their descriptions, titles and string enum values, in schema order. */
function schemaWords(schema: unknown): { names: string[]; texts: string[] } {
  const names: string[] = [];
  const texts: string[] = [];
  let root = schema;
  if (typeof schema === 'string') {
    try {
      root = JSON.parse(schema);
    } catch {
      return { names, texts };
    }
  }
  const stack: unknown[] = [root];
  let nodes = 0;
  while (stack.length && nodes++ < MAX_SCHEMA_NODES) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    const o = node as Record<string, unknown>;
    const props = o.properties;
    if (props && typeof props === 'object' && !Array.isArray(props)) {
      const entries = Object.entries(props as Record<string, unknown>);
      for (const [name] of entries) if (names.length < MAX_SCHEMA_PROPERTIES) names.push(name);
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i][1]);
    }
    if (o !== root) {
      if (typeof o.description === 'string') texts.push(o.description);
      if (typeof o.title === 'string') texts.push(o.title);
      if (Array.isArray(o.enum)) for (const v of o.enum.slice(0, 64)) if (typeof v === 'string') texts.push(v);
    }
    for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', '$defs', 'definitions']) {
      const child = o[key];
      if (child && typeof child === 'object') {
        if (key === '$defs' || key === 'definitions') stack.push(...Object.values(child as object));
        else stack.push(child);
      }
    }
  }
  return { names, texts };
}

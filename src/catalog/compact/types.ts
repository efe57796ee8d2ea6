/**
 * Public types of the compactor (design/compact-view.md §4.1, §4.2, §4.7).
 * Kept free of any framework type so the compactor stays a pure function.
 */
type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The seven JSON types (`integer` is a subset of `number`). */
export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';

export type NoteAction = 'inlined' | 'merged' | 'relaxed' | 'dropped' | 'truncated' | 'fallback';

/**
 * Machine-readable report entry (§4.7). It never goes inside the schema: `path` points into the compact
 * output, `origin` into the original document (both RFC 6901, "" = root).
 */
export interface CompactNote {
  path: string;
  origin: string;
  rule: string;
  action: NoteAction;
  text: string;
}

export interface CompactResult {
  schema: JsonObject;
  notes: CompactNote[];
  /** true when the tool-level fallback `{type:"object", properties:{}}` was returned (§4.2 step 6) */
  fallback: boolean;
  /** true when structure was cut: recursion tail, depth cap or size budget (§4.2 step 9, §4.3) */
  truncated: boolean;
}

export interface CompactOptions {
  /** how often one location may appear on a root-to-leaf path before it becomes a tail (§4.3) */
  maxRecursion: number;
  /** object/array nesting levels of the output, root = 1 (OpenAI: 10) */
  maxDepth: number;
  /** compiled schema nodes per attempt */
  maxNodes: number;
  /** serialized size of the output */
  maxBytes: number;
  /** enums with more values are dropped and described (§4.2 step 8, T43) */
  maxEnum: number;
  /** note characters per node / per tool (pitfall 27) */
  noteChars: number;
  toolNoteChars: number;
  /** formats kept as-is; any other is dropped with a note, never retyped (T34) */
  formats: readonly string[];
  /** intent inference for typeless object-only / array-only nodes (§4.1 exception 2) */
  inferTypes: boolean;
  /** `prune`: samchon-style tails (§4.1 exception 3) */
  truncation: 'permissive' | 'prune';
  /** profile for targets that reject type arrays (§4.5 step 7) */
  typeArrays: 'allow' | 'nullOnly' | 'never';
  /** input guards (§4.2 step 0) */
  maxInputBytes: number;
  maxInputNodes: number;
}

export const DEFAULT_OPTIONS: Readonly<CompactOptions> = Object.freeze({
  maxRecursion: 2,
  maxDepth: 10,
  maxNodes: 2000,
  maxBytes: 64 * 1024,
  maxEnum: 500,
  noteChars: 300,
  toolNoteChars: 4000,
  formats: Object.freeze(['date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
  inferTypes: true,
  truncation: 'permissive',
  typeArrays: 'allow',
  maxInputBytes: 1024 * 1024,
  maxInputNodes: 20_000,
});

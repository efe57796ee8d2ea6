/** Bounds on untrusted tool definitions, checked at ingest before anything is stored. */
export interface IngestBounds {
  readonly maxSchemaBytes: number;
  readonly maxSchemaDepth: number;
  readonly maxNameLength: number;
  readonly maxTitleLength: number;
  readonly maxDescriptionLength: number;
}

export const DEFAULT_INGEST_BOUNDS: IngestBounds = Object.freeze({
  maxSchemaBytes: 256 * 1024,
  maxSchemaDepth: 64,
  maxNameLength: 128,
  maxTitleLength: 256,
  maxDescriptionLength: 16 * 1024,
});

/** Depth of a JSON value (iterative: a hostile value cannot overflow the stack). */
export function jsonDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > limit) return max;
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return max;
}

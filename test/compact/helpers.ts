/**
 * Shared helpers for the compact-view tests (design/compact-view.md): an Ajv 2020 factory, canonical
 * comparison, description stripping, and locating the shared case file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft07 from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

function newAjv(): Ajv2020 {
  // strict:false as the contract says; formats on so `date-time` etc. are really checked
  const ajv = new Ajv2020({ strict: false, logger: false, allErrors: false });
  addFormats(ajv);
  return ajv;
}

let shared: Ajv2020 | undefined;
let compiled = 0;

/**
 * Compiles in Ajv 2020 (strict:false); throws on an invalid schema. Schemas with an `$id` get a fresh
 * instance (ids must not collide); others share one, renewed now and then to bound its cache.
 */
export function compileSchema(schema: unknown): ValidateFunction {
  const hasId = schema !== null && typeof schema === 'object' && '$id' in (schema as object);
  if (hasId) return newAjv().compile(schema as object);
  if (shared === undefined || ++compiled % 200 === 0) shared = newAjv();
  return shared.compile(schema as object);
}

/**
 * Compiles an ORIGINAL schema in its own dialect (draft-07 `$schema` -> Ajv's draft-07 class; draft-04/06
 * headers are dropped and read as draft-07), or returns undefined when Ajv itself rejects it.
 */
export function tryCompile(schema: unknown): ValidateFunction | undefined {
  try {
    const dialect = schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>).$schema : undefined;
    if (typeof dialect === 'string' && /draft-0[4-7]/.test(dialect)) {
      const ajv = new AjvDraft07({ strict: false, logger: false });
      addFormats(ajv);
      const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
      void _drop;
      return ajv.compile(/draft-07/.test(dialect) ? (schema as object) : rest);
    }
    return compileSchema(schema);
  } catch {
    return undefined;
  }
}

export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  const obj = value as Record<string, unknown>;
  return '{' + Object.keys(obj).sort().map((k) => JSON.stringify(k) + ':' + canonical(obj[k])).join(',') + '}';
}

/**
 * Removes `description` keywords at schema positions only (the expected outputs of the case file
 * omit descriptions; notes are asserted separately). A property NAMED description is kept.
 */
export function stripDescriptions(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === 'description' && typeof v === 'string') continue;
    if (k === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([n, s]) => [n, stripDescriptions(s)]));
    } else if (k === 'items' || k === 'additionalProperties') {
      out[k] = stripDescriptions(v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** The schema node at a compact-output pointer ("" = root), walking `properties` / `items`. */
export function nodeAt(schema: unknown, pointer: string): Record<string, unknown> | undefined {
  let cur: unknown = schema;
  if (pointer === '') return cur as Record<string, unknown>;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[token];
  }
  return cur as Record<string, unknown> | undefined;
}

/**
 * The case file: prefer the copy in test/fixtures (runs on a clone without shared/ beside it), then
 * TOOLCAT_SHARED_DIR, then walk up from here looking for shared/design/compact-cases.json.
 */
export function findCasesFile(): string {
  const candidates: string[] = [];
  for (let dir = __dirname; ; dir = dirname(dir)) {
    candidates.push(join(dir, 'test', 'fixtures', 'compact-cases.json'));
    if (dirname(dir) === dir) break;
  }
  if (process.env.TOOLCAT_SHARED_DIR) candidates.push(resolve(process.env.TOOLCAT_SHARED_DIR, 'design', 'compact-cases.json'));
  for (let dir = __dirname; ; dir = dirname(dir)) {
    candidates.push(join(dir, 'shared', 'design', 'compact-cases.json'));
    if (dirname(dir) === dir) break;
  }
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) throw new Error(`compact-cases.json not found; tried:\n${candidates.join('\n')}`);
  return found;
}

/** The shared design copy (TOOLCAT_SHARED_DIR, then walking up), if this checkout has one beside it. */
export function findSharedCasesFile(): string | undefined {
  const candidates: string[] = [];
  if (process.env.TOOLCAT_SHARED_DIR) candidates.push(resolve(process.env.TOOLCAT_SHARED_DIR, 'design', 'compact-cases.json'));
  for (let dir = __dirname; ; dir = dirname(dir)) {
    candidates.push(join(dir, 'shared', 'design', 'compact-cases.json'));
    if (dirname(dir) === dir) break;
  }
  return candidates.find((p) => existsSync(p));
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Repository root: the nearest ancestor holding test/fixtures/mcp-tools. */
export function fixturesDir(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const p = join(dir, 'test', 'fixtures', 'mcp-tools');
    if (existsSync(p)) return p;
    if (dirname(dir) === dir) throw new Error('test/fixtures/mcp-tools not found');
  }
}

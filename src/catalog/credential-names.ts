import { keywordKind } from './compact/keywords';
import { RefResolver } from './compact/ref-resolver';
import { SECRET_LIKE_NAME, STRONG_SECRET_NAME } from './credential-shape';
import type { JsonObject, JsonValue } from './descriptor';

/**
 * The name a schema literal is judged by (TC-DESC-4, issue 11 red team F1/F2): which secret-like name, if any,
 * applies at each place of a schema. One set of rules, used by the scrubber (credential-scrub.ts) and by the
 * `$ref` pre-pass below, over the compactor's keyword table (compact/keywords.ts):
 *   - `properties` key: the name of the property (replaces the inherited one);
 *   - `patternProperties` key: the regex with anchors, escapes, groups and `.*` stripped and character classes
 *     reduced to their first character (`^(?:api[_-]?key|[Tt]oken)$` → `apikey`, `Token`; the strongest
 *     alternative counts);
 *   - `$defs`/`definitions` key: the definition's name (and nothing inherited: a definition is not applied where
 *     it is written);
 *   - `dependentSchemas`/`dependencies` key (decision): the subschema applies to the same object whenever that
 *     property is present, so what it defaults or pins is offered together with the property; a secret-like key
 *     stays in force below it, through nested `properties`, as a second ("sticky") name. A neutral key adds
 *     nothing;
 *   - a node's own subschemas (`items`, `oneOf[i]`, `not`, `additionalProperties`, …) inherit its names;
 *   - a node that a `$ref` (or `$dynamicRef`, `$anchor`, `$id`-relative reference: the compactor's own resolver
 *     decides what a reference reaches) points at is also judged by the name of every place that refers to it,
 *     transitively, so `password: { $ref: "#/$defs/pw" }` judges `$defs.pw.default` as a password.
 * Of several names the strongest applies (password/key-like over token/auth-like over neutral): fail closed.
 */
export type NameRank = 0 | 1 | 2;

/** 2: password/key-like (any literal is a secret); 1: token/auth-like (a random-looking one is); 0: neutral. */
export function nameRank(name: string | null): NameRank {
  if (name === null || name === '') return 0;
  // No tail is longer than 20 characters: the last 48 decide (and keep a hostile long name cheap).
  const tail = name.length > 48 ? name.slice(-48) : name;
  return STRONG_SECRET_NAME.test(tail) ? 2 : SECRET_LIKE_NAME.test(tail) ? 1 : 0;
}

export function strongest(a: string | null, b: string | null): string | null {
  return nameRank(b) > nameRank(a) ? b : a;
}

/** The property name(s) a `patternProperties` regex stands for, reduced to the strongest one (see the header). */
function patternPropertyName(pattern: string): string | null {
  if (pattern.length > 256) pattern = pattern.slice(0, 256);
  const plain = pattern
    .replace(/\[\^?([^\]\\]|\\.)[^\]]*\]/g, (_m, first: string) => first.replace(/^\\/, '')) // [Pp] → P
    .replace(/\\([^A-Za-z0-9])/g, '$1') // \. → .
    .replace(/\\[A-Za-z]/g, '') // \d, \b, …
    .replace(/\(\?[:=!<]*/g, '(')
    .replace(/[()^$]/g, '|')
    .replace(/\.[*+?]|[*+?]|\{[0-9,]*\}/g, '');
  let best: string | null = null;
  for (const alt of plain.split('|')) {
    const name = alt.trim();
    if (name) best = strongest(best, name);
  }
  return best;
}

export interface NameContext {
  /** The property (or definition) name in force: replaced at each `properties`/`patternProperties`/`$defs` key. */
  readonly name: string | null;
  /** A secret-like `dependentSchemas`/`dependencies` key: stays in force below (see the header). */
  readonly sticky: string | null;
}

export const ROOT_CONTEXT: NameContext = { name: null, sticky: null };

export function effectiveName(ctx: NameContext): string | null {
  return strongest(ctx.name, ctx.sticky);
}

export function withReferenceName(ctx: NameContext, referenced: string | undefined): NameContext {
  return referenced === undefined || nameRank(referenced) <= nameRank(ctx.name) ? ctx : { name: referenced, sticky: ctx.sticky };
}

/** True where the child's name replaces the parent's (the boundaries of the pre-pass below). */
function isNameBoundary(mapKeyword: string): boolean {
  return mapKeyword === 'properties' || mapKeyword === 'patternProperties' || mapKeyword === '$defs' || mapKeyword === 'definitions';
}

/** The context of the subschema at `map[mapKey]` of a map keyword (`properties`, `$defs`, `dependentSchemas`, …). */
export function mapChildContext(ctx: NameContext, mapKeyword: string, mapKey: string): NameContext {
  switch (mapKeyword) {
    case 'properties':
      return { name: mapKey, sticky: ctx.sticky };
    case 'patternProperties':
      return { name: patternPropertyName(mapKey), sticky: ctx.sticky };
    case '$defs':
    case 'definitions':
      return { name: mapKey, sticky: null };
    default: // dependentSchemas, dependencies
      return nameRank(mapKey) > 0 ? { name: ctx.name, sticky: strongest(ctx.sticky, mapKey) } : ctx;
  }
}

// ---- the $ref pre-pass -----------------------------------------------------------------------------------
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const escapeToken = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Work of the last pre-pass (for the bounded-work tests): nodes visited, reference sites, name raises. */
export interface ReferenceNameWork {
  nodes: number;
  sites: number;
  raises: number;
}
const work: ReferenceNameWork = { nodes: 0, sites: 0, raises: 0 };
export function lastReferenceNameWork(): ReferenceNameWork {
  return { ...work };
}

interface Frame {
  readonly node: JsonObject;
  readonly ptr: string;
  readonly ctx: NameContext;
  /** The nearest reference target at or above this node with no name boundary in between (walk B only). */
  readonly owner: string | null;
}

/** Visits every schema object of `schema` (keyword table), iteratively, with its pointer and name context. */
function walk(schema: JsonObject, targets: ReadonlySet<string> | null, visit: (f: Frame) => void): void {
  const stack: Frame[] = [{ node: schema, ptr: '', ctx: ROOT_CONTEXT, owner: targets?.has('') ? '' : null }];
  const push = (v: unknown, ptr: string, ctx: NameContext, owner: string | null) => {
    if (isObject(v)) stack.push({ node: v, ptr, ctx, owner: targets?.has(ptr) ? ptr : owner });
  };
  while (stack.length) {
    const f = stack.pop()!;
    work.nodes++;
    visit(f);
    for (const [key, value] of Object.entries(f.node)) {
      const at = `${f.ptr}/${escapeToken(key)}`;
      const kind = keywordKind(key);
      if (kind === 'schema') push(value, at, f.ctx, f.owner);
      else if (kind === 'schemaOrArray' || kind === 'schemaArray') {
        if (Array.isArray(value)) value.forEach((v, i) => push(v, `${at}/${i}`, f.ctx, f.owner));
        else if (kind === 'schemaOrArray') push(value, at, f.ctx, f.owner);
      } else if ((kind === 'schemaMap' || kind === 'dependencies') && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) {
          if (kind === 'dependencies' && Array.isArray(sub)) continue;
          push(sub, `${at}/${escapeToken(name)}`, mapChildContext(f.ctx, key, name), isNameBoundary(key) ? null : f.owner);
        }
      }
    }
  }
}

const refOf = (node: JsonObject): string | null => (typeof node.$ref === 'string' ? node.$ref : typeof node.$dynamicRef === 'string' ? node.$dynamicRef : null);

/**
 * Pointer (RFC 6901, "" = root) → the strongest secret-like name that reaches that node through references.
 * Three linear walks at most (none without a reference): resolve the sites, record edges with their owners,
 * then raise names along the edges; a name only ever rises (at most twice per node), so the propagation is
 * linear in the number of references, whatever order or chain they form.
 */
export function referencedNames(schema: JsonObject): ReadonlyMap<string, string> {
  work.nodes = work.sites = work.raises = 0;
  const sites: Array<{ node: JsonObject; target: string }> = [];
  let resolver: RefResolver | undefined;
  walk(schema, null, (f) => {
    const ref = refOf(f.node);
    if (ref === null) return;
    resolver ??= new RefResolver(schema);
    const r = resolver.resolve(ref, f.node);
    if (r.kind === 'local') sites.push({ node: f.node, target: r.pointer });
  });
  const best = new Map<string, string>();
  if (sites.length === 0) return best;
  work.sites = sites.length;
  const targets = new Set(sites.map((s) => s.target));
  const targetOf = new Map(sites.map((s) => [s.node, s.target]));
  const edgesFrom = new Map<string, Array<{ name: string | null; to: string }>>();
  const queue: string[] = [];
  const raise = (to: string, name: string | null) => {
    if (nameRank(name) > nameRank(best.get(to) ?? null)) {
      work.raises++;
      best.set(to, name!);
      queue.push(to);
    }
  };
  walk(schema, targets, (f) => {
    const to = targetOf.get(f.node);
    if (to === undefined) return;
    const name = effectiveName(f.ctx);
    raise(to, name);
    if (f.owner !== null) {
      const list = edgesFrom.get(f.owner) ?? [];
      list.push({ name, to });
      edgesFrom.set(f.owner, list);
    }
  });
  while (queue.length) {
    const from = queue.pop()!;
    for (const e of edgesFrom.get(from) ?? []) raise(e.to, strongest(e.name, best.get(from) ?? null));
  }
  return best;
}

/** String and number leaves of a JSON value with the strongest secret-like key name above each (bounded). */
export function forEachLeaf(value: JsonValue, name: string | null, visit: (leaf: string | number, name: string | null) => boolean, limit = 10_000): boolean {
  const stack: Array<[unknown, string | null]> = [[value, name]];
  for (let n = 0; stack.length && n < limit; n++) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string' || typeof v === 'number') {
      if (visit(v, at)) return true;
    } else if (Array.isArray(v)) for (const x of v) stack.push([x, at]);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, strongest(at, k)]);
  }
  // Past the bound nothing more is read: a caller that must fail closed treats `true` as found.
  return stack.length > 0;
}

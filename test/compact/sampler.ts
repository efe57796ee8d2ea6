/**
 * Schema-guided candidate instances for the declared-superset property: random JSON values are
 * almost never valid under a rich schema, so candidates are drawn by following the ORIGINAL schema
 * (refs, branches, enums, properties). Candidates are then filtered by Ajv on the original; only
 * instances the original accepts are checked against the compact schema.
 */
type Rec = Record<string, unknown>;

const isObj = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', 'ab', 'abc', 'ba', 'x1', 'zz', '12345', '2024-01-01T00:00:00Z', 'a@b.co', 'https://x.y', 'b'];
const INTS = [-1, 0, 1, 2, 3, 4, 6, 10];
const NUMS = [-1, 0, 0.5, 1, 2.5, 3, 10];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)];
}

function resolve(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#')) return undefined;
  const frag = ref.slice(1);
  if (!frag.startsWith('/')) return findAnchor(root, frag, 0);
  let cur: unknown = root;
  for (const raw of frag.slice(1).split('/')) {
    let tok = raw;
    try {
      tok = decodeURIComponent(raw);
    } catch {
      // keep as written
    }
    tok = tok.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(tok)];
    else if (isObj(cur)) cur = cur[tok];
    else return undefined;
  }
  return cur;
}

function findAnchor(node: unknown, name: string, depth: number): unknown {
  if (depth > 8 || !isObj(node)) return undefined;
  if (node.$anchor === name) return node;
  for (const v of Object.values(node)) {
    const hit = isObj(v) ? findAnchor(v, name, depth + 1) : Array.isArray(v) ? v.map((x) => findAnchor(x, name, depth + 1)).find(Boolean) : undefined;
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function anyValue(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (r < 0.25) return pick(rnd, STRINGS);
  if (r < 0.45) return pick(rnd, NUMS);
  if (r < 0.55) return rnd() < 0.5;
  if (r < 0.62) return null;
  if (r < 0.8 || depth > 3) return {};
  if (r < 0.9) return { a: anyValue(rnd, depth + 1) };
  return [anyValue(rnd, depth + 1)];
}

/**
 * `strict`: always honour `$ref`, `const` and `enum`, so a value drawn for a declared name conforms to
 * the branch that declared it; this keeps corpus instances out of the G2 exception (§4.1), where a
 * value is valid only by accident through another, open branch.
 */
export interface SampleState {
  /** set when the depth limit forced an arbitrary value: the instance no longer follows the schema */
  cut: boolean;
}

export function sample(schema: unknown, root: unknown, rnd: () => number, depth = 0, strict = false, state: SampleState = { cut: false }): unknown {
  if (depth > 9) {
    state.cut = true;
    return anyValue(rnd, depth);
  }
  if (!isObj(schema)) return anyValue(rnd, depth);
  const s = schema;
  const p = strict ? 1 : 0.9;
  if (typeof s.$ref === "string" && rnd() < (strict ? 1 : 0.85)) return sample(resolve(root, s.$ref), root, rnd, depth + 0.25, strict, state);
  if ('const' in s && rnd() < p) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0 && rnd() < p) return pick(rnd, s.enum);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const bs = s[k];
    if (Array.isArray(bs) && bs.length > 0 && rnd() < 0.6) {
      const b = pick(rnd, bs);
      // the branch alone misses the parent's keywords; merge shallowly so both guide the sample
      // refs and branch picks add little depth: only structure should bound the instance
      return sample(isObj(b) ? { ...s, [k]: undefined, ...b, properties: { ...(s.properties as Rec), ...(b.properties as Rec) } } : b, root, rnd, depth + 0.25, strict, state);
    }
  }
  let type = s.type;
  if (Array.isArray(type)) type = pick(rnd, type);
  if (typeof type !== 'string') type = isObj(s.properties) ? 'object' : s.items !== undefined || s.prefixItems !== undefined ? 'array' : undefined;
  if (s.nullable === true && rnd() < 0.2) return null;
  switch (type) {
    case 'string':
      return pick(rnd, STRINGS);
    case 'integer':
      return pick(rnd, INTS);
    case 'number':
      return pick(rnd, NUMS);
    case 'boolean':
      return rnd() < 0.5;
    case 'null':
      return null;
    case 'array': {
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
      const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
      const n = Math.floor(rnd() * 4);
      return Array.from({ length: n }, (_, i) => sample(i < prefix.length ? prefix[i] : rest, root, rnd, depth + 1, strict));
    }
    case 'object': {
      const out: Rec = {};
      const props = isObj(s.properties) ? s.properties : {};
      const required = Array.isArray(s.required) ? s.required : [];
      const max = typeof s.maxProperties === 'number' ? s.maxProperties : Infinity;
      const p = pick(rnd, [0, 0.3, 0.7]); // vary how many optional properties a candidate carries
      for (const k of Object.keys(props)) if (required.includes(k) || rnd() < p) out[k] = sample(props[k], root, rnd, depth + 1, strict, state);
      for (const k of required) if (typeof k === 'string' && !(k in out)) out[k] = anyValue(rnd, depth + 1);
      const deps = isObj(s.dependentRequired) ? s.dependentRequired : {};
      for (const k of Object.keys(deps)) {
        const others = deps[k];
        if (k in out && Array.isArray(others)) for (const o of others) if (typeof o === 'string' && !(o in out)) out[o] = sample(props[o], root, rnd, depth + 1, strict, state);
      }
      const closed = s.additionalProperties === false || s.unevaluatedProperties === false;
      if (rnd() < 0.1 && !(strict && closed)) out.zz = sample(s.additionalProperties, root, rnd, depth + 1, strict, state);
      const pp = isObj(s.patternProperties) ? s.patternProperties['^a'] : undefined;
      if (rnd() < 0.1 && !(strict && closed && pp === undefined)) out.ab = sample(pp, root, rnd, depth + 1, strict, state);
      for (const k of Object.keys(out)) if (Object.keys(out).length > max && !required.includes(k)) delete out[k];
      return out;
    }
    default:
      return anyValue(rnd, depth);
  }
}


/**
 * Legacy/dialect normalisation on entry (design/compact-view.md §4.2 step 2, pitfall 25): draft-04
 * boolean exclusive bounds, draft-07 tuple `items` / `additionalItems`, `dependencies`, and
 * `unevaluated*: false` where nothing else evaluates. Returns a shallow copy; the input is never
 * mutated because one location can be compiled several times (refs).
 */
import { isObject, type RawObject } from './json';

const COMPOSITION = ['allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', 'if', 'dependentSchemas', 'dependencies'];

const LEGACY = ['exclusiveMinimum', 'exclusiveMaximum', 'items', 'additionalItems', 'dependencies', 'unevaluatedProperties', 'unevaluatedItems'];

export function normalizeLegacy(raw: RawObject): RawObject {
  if (!LEGACY.some((k) => raw[k] !== undefined)) return raw; // common case: nothing to rewrite
  const r = Object.assign(Object.create(null) as RawObject, raw);
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof r[flag] === 'boolean') {
      if (r[flag] === true && typeof r[bound] === 'number') {
        r[flag] = r[bound];
        delete r[bound];
      } else {
        delete r[flag];
      }
    }
  }
  if (Array.isArray(r.items)) {
    if (r.prefixItems === undefined) r.prefixItems = r.items;
    if (r.additionalItems !== undefined) r.items = r.additionalItems;
    else delete r.items;
  }
  delete r.additionalItems;
  if (isObject(r.dependencies)) {
    const req = Object.assign(Object.create(null) as RawObject, isObject(r.dependentRequired) ? r.dependentRequired : {});
    const sch = Object.assign(Object.create(null) as RawObject, isObject(r.dependentSchemas) ? r.dependentSchemas : {});
    for (const key of Object.keys(r.dependencies)) {
      const v = r.dependencies[key];
      if (Array.isArray(v)) {
        if (!(key in req)) req[key] = v;
      } else if (!(key in sch)) sch[key] = v;
    }
    if (Object.keys(req).length > 0) r.dependentRequired = req;
    if (Object.keys(sch).length > 0) r.dependentSchemas = sch;
  }
  delete r.dependencies;
  const composed = COMPOSITION.some((k) => r[k] !== undefined);
  if (r.unevaluatedProperties === false && !composed && r.additionalProperties === undefined) {
    r.additionalProperties = false;
    delete r.unevaluatedProperties;
  }
  // `contains` evaluates the items it matches, so it also blocks the rewrite
  if (r.unevaluatedItems === false && !composed && r.items === undefined && r.contains === undefined) {
    r.items = false;
    delete r.unevaluatedItems;
  }
  return r;
}

/**
 * Object keywords -> IR (design/compact-view.md §4.2 step 1, §4.6): malformed `properties` / `required`
 * are coerced (T45, T47), property maps are Maps (no `__proto__` hazard, T46), `additionalProperties: {}`
 * means absent, `propertyNames` / `unevaluatedProperties` are described.
 */
import { isObject, nonNegInt, type RawObject } from './json';
import { isWorthEmitting, type AddNote, type Mutable, type Node } from './ir';
import { summarize } from './describe';
import { TEXT } from './notes';
import { joinPointer } from './pointer';
import type { Compiler } from './context';



export function compileObjectPart(
  r: RawObject,
  out: Mutable<Node>,
  add: AddNote,
  loc: string,
  depth: number,
  canNest: boolean,
  c: Compiler,
): void {
  const { ctx } = c;
  const propsRaw = r.properties;
  if (propsRaw !== undefined && !isObject(propsRaw) && !(Array.isArray(propsRaw) && propsRaw.length === 0)) {
    add('invalid', 'relaxed', TEXT.invalidKeyword('properties'));
  }
  if (isObject(propsRaw) || Array.isArray(propsRaw)) {
    const props = new Map<string, Node>();
    if (canNest && isObject(propsRaw)) {
      for (const name of Object.keys(propsRaw)) {
        ctx.budget.addBytes(name.length + 8);
        props.set(name, c.compile(propsRaw[name], joinPointer(loc, 'properties', name), depth + 1));
      }
    }
    out.properties = props;
  }
  if (r.required !== undefined) {
    if (Array.isArray(r.required)) {
      const names = [...new Set(r.required.filter((x): x is string => typeof x === 'string'))];
      if (names.length > 0 && canNest) out.required = names;
    } else {
      add('invalid', 'relaxed', TEXT.invalidKeyword('required'), { silent: true });
    }
  }
  const ap = r.additionalProperties;
  if (ap === false) {
    // at the depth cap the declared properties are cut, so closing the object would reject them
    if (canNest || !isObject(propsRaw) || Object.keys(propsRaw).length === 0) out.additionalProperties = false;
  } else if (isObject(ap) && canNest) {
    const n = c.compile(ap, joinPointer(loc, 'additionalProperties'), depth + 1);
    if (n.never !== undefined) out.additionalProperties = false;
    else if (isWorthEmitting(n)) out.additionalProperties = n;
  }
  out.minProperties = nonNegInt(r.minProperties);
  out.maxProperties = nonNegInt(r.maxProperties);
  compilePropertyNames(r, out, add, loc, depth, c);
  if (r.unevaluatedProperties === false) add('unevaluated', 'dropped', TEXT.noOtherProperties(), { family: 'object' });
  else if (isObject(r.unevaluatedProperties) && Object.keys(r.unevaluatedProperties).length > 0 && canNest) {
    const n = c.compile(r.unevaluatedProperties, joinPointer(loc, 'unevaluatedProperties'), depth + 1);
    add('unevaluated', 'dropped', TEXT.otherProperties(summarize(n)), { family: 'object' });
  }
}

function compilePropertyNames(r: RawObject, out: Mutable<Node>, add: AddNote, loc: string, depth: number, c: Compiler): void {
  const pn = r.propertyNames;
  if (pn === undefined || pn === true) return;
  if (pn === false) {
    // no name is allowed: exactly "no properties"
    out.maxProperties = 0;
    return;
  }
  if (!isObject(pn)) return;
  const keys = Object.keys(pn).filter((k) => k !== 'description' && k !== 'title' && k !== 'type');
  if (keys.length === 1 && typeof pn.pattern === 'string') {
    add('propertyNames', 'dropped', TEXT.keysMustMatch(pn.pattern), { family: 'object' });
  } else if (keys.length > 0) {
    const n = c.compile(pn, joinPointer(loc, 'propertyNames'), depth + 1);
    add('propertyNames', 'dropped', TEXT.keysMust(summarize(n)), { family: 'object' });
  }
}

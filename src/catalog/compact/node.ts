/**
 * The recursive driver: one raw schema value at location `loc` -> IR (design/compact-view.md §4.2).
 * Order per node: coerce, legacy normalisation, `$ref` (target ∧ siblings), base keywords (children
 * first), `allOf`, then `anyOf` / `oneOf` by distribution, then the parked keywords, `not` last.
 */
import { FAMILIES } from './keywords';
import { isObject, type RawObject } from './json';
import { anyNode, hasFamily, mergeNotes, neverNode, note, normalizeTypes, tidy, type Node, type UnionKind } from './ir';
import { compileBase } from './base';
import { applyConditionals } from './conditionals';
import { intersect } from './intersect';
import { applyNot } from './negation';
import { normalizeLegacy } from './normalize';
import { TEXT } from './notes';
import { applyPatternProperties } from './pattern-props';
import { joinPointer } from './pointer';
import { budgetTail, recursionTail } from './tails';
import { union } from './union';
import { MAX_CALL_DEPTH, type CompileContext, type Compiler } from './context';
import { typesOfValues } from './types-parse';

export function createCompiler(ctx: CompileContext): Compiler {
  const compiler: Compiler = {
    ctx,
    compile: (raw, loc, depth) => compileNode(raw, loc, depth, compiler),
  };
  return compiler;
}

function compileNode(raw: unknown, loc: string, depth: number, c: Compiler): Node {
  const { ctx } = c;
  if (raw === true) return anyNode();
  if (raw === false) return neverNode('false');
  // a property whose value is the string "object" and similar garbage (T45)
  if (!isObject(raw)) return anyNode([note('invalid', 'relaxed', TEXT.invalidSubschema(), loc)]);
  const key = `${depth}|${loc}`;
  const cached = ctx.reuse(key, raw);
  if (cached !== undefined) return cached;
  if (ctx.calls >= MAX_CALL_DEPTH || !ctx.budget.takeNode()) return budgetTail(raw, loc, ctx);
  ctx.enter(loc);
  let result: Node | undefined;
  try {
    const r = normalizeLegacy(raw);
    const ref = typeof r.$ref === 'string' ? r.$ref : typeof r.$dynamicRef === 'string' ? r.$dynamicRef : undefined;
    let n: Node;
    if (ref !== undefined) {
      // pitfall 2 / T40: siblings are merged with allOf semantics; the referring site's annotations win
      const target = compileRef(ref, raw, loc, depth, c);
      const siblings = Object.assign(Object.create(null) as RawObject, r);
      delete siblings.$ref;
      delete siblings.$dynamicRef;
      n = intersect([target, compileBody(siblings, loc, depth, c)], 'ref', loc, ctx);
    } else {
      n = compileBody(r, loc, depth, c);
      if (r.$ref !== undefined) n = withNote(n, note('invalid', 'relaxed', TEXT.invalidRef(), loc));
    }
    result = finish(n, loc, ctx);
    return result;
  } finally {
    ctx.leave(loc, key, raw, result);
  }
}

function withNote(n: Node, x: ReturnType<typeof note>): Node {
  return { ...n, notes: mergeNotes(n.notes, [x]) };
}

function compileRef(ref: string, raw: RawObject, loc: string, depth: number, c: Compiler): Node {
  const { ctx } = c;
  const res = ctx.resolver.resolve(ref, raw);
  if (res.kind === 'external') return anyNode([note('ref-external', 'dropped', TEXT.externalRef(res.uri), loc)]);
  if (res.kind === 'unresolved') return anyNode([note('ref-unresolved', 'dropped', TEXT.unresolvedRef(ref), loc)]);
  // path-scoped cycle detection on canonical locations (pitfall 4, §4.3)
  ctx.dependOn(res.pointer);
  if (ctx.timesOnPath(res.pointer) >= ctx.maxRecursion) return recursionTail(res.target, res.pointer, loc, ctx);
  const target = c.compile(res.target, res.pointer, depth);
  return withNote(target, note('ref', 'inlined', TEXT.inlined(ref), loc, { silent: true }));
}

function compileBody(r: RawObject, loc: string, depth: number, c: Compiler): Node {
  const { ctx } = c;
  let n = compileBase(r, loc, depth, c);
  if (r.allOf !== undefined) {
    if (Array.isArray(r.allOf) && r.allOf.length > 0) {
      const members = r.allOf.map((s, i) => c.compile(s, joinPointer(loc, 'allOf', String(i)), depth));
      n = intersect([n, ...members], 'allOf', loc, ctx);
    } else {
      n = withNote(n, note('invalid', 'relaxed', TEXT.invalidKeyword('allOf'), loc));
    }
  }
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const branches = r[kind];
    if (branches === undefined) continue;
    if (Array.isArray(branches) && branches.length > 0) n = distribute(n, branches, kind, loc, depth, c);
    else n = withNote(n, note('invalid', 'relaxed', TEXT.invalidKeyword(kind), loc));
  }
  n = applyPatternProperties(n, r, loc, depth, c);
  n = applyConditionals(n, r, loc, depth, c);
  return applyNot(n, r.not, loc, ctx);
}

/**
 * §4.5 / §4.2 step 6: union(branches.map(b => intersect(parent∖annotations, b))). The parent's
 * description, default and notes are re-attached once to the result (T01, T36).
 */
function distribute(p: Node, branches: unknown[], kind: UnionKind, loc: string, depth: number, c: Compiler): Node {
  const { ctx } = c;
  const compiled = branches.map((b, i) => c.compile(b, joinPointer(loc, kind, String(i)), depth));
  const { description: _d, default: _f, ...rest } = p;
  void _d;
  void _f;
  const core: Node = { ...rest, notes: [] };
  const merged = union(
    compiled.map((b) => intersect([core, b], 'distribute', loc, ctx)),
    kind,
    loc,
    ctx,
  );
  if (merged.never !== undefined) return merged;
  return {
    ...merged,
    ...(p.description !== undefined ? { description: p.description } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    notes: mergeNotes(p.notes, merged.notes),
  };
}

/** Exact enum typing, then intent inference (§4.1 exception 2, T31), then tidy. */
function finish(compiled: Node, loc: string, ctx: CompileContext): Node {
  const n = compiled.origin === undefined ? { ...compiled, origin: loc } : compiled;
  if (n.never !== undefined || n.types !== undefined) return tidy(n);
  if (n.enum !== undefined) return tidy({ ...n, types: typesOfValues(n.enum) });
  if (!ctx.opts.inferTypes) return n;
  const families = FAMILIES.filter((f) => hasFamily(n, f));
  if (families.length !== 1 || (families[0] !== 'object' && families[0] !== 'array')) return n;
  const t = families[0];
  return tidy({
    ...n,
    types: normalizeTypes([t]),
    notes: mergeNotes(n.notes, [note('infer-type', 'relaxed', TEXT.typeInferred(t), loc, { silent: true })]),
  });
}

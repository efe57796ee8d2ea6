/**
 * Permissive typed tails (design/compact-view.md pitfall 6, §4.3): where structure is not expanded
 * (recursion, size budget) the node keeps only its primary type, so the compact view stays a superset.
 */
import { note, type Node } from './ir';
import { isObject } from './json';
import { TEXT } from './notes';
import { parsePointer } from './pointer';
import { tailTypes } from './types-parse';
import type { CompileContext } from './context';

function displayName(target: unknown, pointer: string): string {
  if (isObject(target) && typeof target.title === 'string' && target.title.trim() !== '') return target.title.trim();
  if (pointer === '') return 'the root schema';
  const tokens = parsePointer(pointer) ?? [];
  const parent = tokens[tokens.length - 2];
  if (parent === '$defs' || parent === 'definitions') return tokens[tokens.length - 1];
  return pointer;
}

export function recursionTail(target: unknown, targetPointer: string, loc: string, ctx: CompileContext): Node {
  ctx.truncated = true;
  const types = tailTypes(target, ctx.resolver, ctx.opts.inferTypes);
  return {
    ...(types !== undefined ? { types } : {}),
    tail: true,
    notes: [note('recursion', 'truncated', TEXT.recursive(displayName(target, targetPointer)), loc)],
  };
}

export function budgetTail(raw: unknown, loc: string, ctx: CompileContext): Node {
  ctx.truncated = true;
  ctx.budgetTails++;
  const types = tailTypes(raw, ctx.resolver, ctx.opts.inferTypes);
  return {
    ...(types !== undefined ? { types } : {}),
    tail: true,
    notes: [note('budget', 'truncated', TEXT.budget(), loc)],
  };
}

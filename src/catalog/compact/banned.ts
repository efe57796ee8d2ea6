/**
 * TC-VIEW-3 checker: JSON Pointers of every banned keyword used AS A KEYWORD in a schema position, at
 * any depth. Walks only the positions listed in keywords.ts, so a property named `not` or an `enum`
 * value `{"$ref": …}` is data (design/compact-view.md pitfall 1, case T28).
 */
import { BANNED_KEYWORDS, forEachSubschema } from './keywords';
import { joinPointer } from './pointer';

const BANNED: ReadonlySet<string> = new Set(BANNED_KEYWORDS);

/**
 * Total: never throws for any input (non-objects give [], cyclic object graphs are visited once per
 * object, walking is iterative so depth cannot overflow the stack). Order: document order.
 */
export function findBannedKeywords(schema: unknown): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const stack: Array<{ node: unknown; pointer: string }> = [{ node: schema, pointer: '' }];
  try {
    while (stack.length > 0) {
      const { node, pointer } = stack.pop()!;
      if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
      if (seen.has(node)) continue;
      seen.add(node);
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (BANNED.has(key)) found.push(joinPointer(pointer, key));
      }
      const children: Array<{ node: unknown; pointer: string }> = [];
      forEachSubschema(record, (child, suffix) => children.push({ node: child, pointer: joinPointer(pointer, ...suffix) }));
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  } catch {
    // A hostile object (throwing getter, revoked proxy) cannot be verified: report the root as unclean.
    found.push('');
  }
  // depth-first pops in key order give document order; a repeated pointer is reported once
  return [...new Set(found)];
}

/**
 * One-line summaries of IR nodes for notes ("string matching /^[0-9]{5}$/", "integer ≥ 0"). Wording is
 * fixed and deterministic (design/compact-view.md §4.7); length is capped so notes stay short.
 */
import type { Node } from './ir';
import { list, literal } from './notes';

const MAX_SUMMARY = 140;

export function summarize(n: Node, depth = 0): string {
  const text = summarizeParts(n, depth).join(', ');
  if (text === '') return 'any value';
  return text.length > MAX_SUMMARY ? text.slice(0, MAX_SUMMARY - 1) + '…' : text;
}

/** Summary without the object family (for the non-property part of a conditional arm). */
export function summarizeNonObject(n: Node): string {
  const { properties: _p, required: _r, additionalProperties: _a, ...rest } = n;
  void _p;
  void _r;
  void _a;
  const parts = summarizeParts({ ...rest, types: undefined }, 0);
  return parts.join(' ');
}

function summarizeParts(n: Node, depth: number): string[] {
  if (n.never !== undefined) return ['nothing (not allowed)'];
  const parts: string[] = [];
  if (n.types !== undefined) parts.push(n.types.join(' or '));
  if (n.enum !== undefined) parts.push(`one of ${list(n.enum.map(literal), 6)}`);
  if (n.pattern !== undefined) parts.push(`matching /${n.pattern.length > 60 ? n.pattern.slice(0, 59) + '…' : n.pattern}/`);
  if (n.format !== undefined) parts.push(`format ${n.format}`);
  if (n.minLength !== undefined) parts.push(`length ≥ ${n.minLength}`);
  if (n.maxLength !== undefined) parts.push(`length ≤ ${n.maxLength}`);
  parts.push(...numberParts(n));
  if (n.items !== undefined && depth < 2) parts.push(`items: ${summarize(n.items, depth + 1)}`);
  if (n.minItems !== undefined) parts.push(`at least ${n.minItems} items`);
  if (n.maxItems !== undefined) parts.push(`at most ${n.maxItems} items`);
  if (n.uniqueItems) parts.push('unique items');
  if (n.properties !== undefined && n.properties.size > 0) {
    const names = [...n.properties.keys()].map((k) => (n.required?.includes(k) ? `${k}*` : k));
    parts.push(`with fields ${list(names, 6)}`);
  } else if (n.required !== undefined && n.required.length > 0) {
    parts.push(`requires ${list(n.required, 6)}`);
  }
  if (n.additionalProperties === false) parts.push('no other fields');
  if (n.minProperties !== undefined) parts.push(`at least ${n.minProperties} fields`);
  if (n.maxProperties !== undefined) parts.push(`at most ${n.maxProperties} fields`);
  return parts;
}

export function numberParts(n: Node): string[] {
  const parts: string[] = [];
  if (n.minimum !== undefined) parts.push(`≥ ${n.minimum}`);
  if (n.exclusiveMinimum !== undefined) parts.push(`> ${n.exclusiveMinimum}`);
  if (n.maximum !== undefined) parts.push(`≤ ${n.maximum}`);
  if (n.exclusiveMaximum !== undefined) parts.push(`< ${n.exclusiveMaximum}`);
  if (n.multipleOf !== undefined) parts.push(`multiple of ${n.multipleOf}`);
  return parts;
}

/**
 * `clause(id, title, fn)` names a test after the spec clause it proves (clauses.md) and records that the
 * clause has a test; coverage.test.ts fails when a host-side clause has none.
 */
export const COVERED = new Set<string>();

export function clause(id: string, title: string, fn: (this: Mocha.Context) => Promise<void> | void): Mocha.Test {
  COVERED.add(id);
  return it(`${id}: ${title}`, fn);
}

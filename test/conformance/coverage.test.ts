/** Fails when a clause of the spec, host-side or consumer-side (issue 17), has no clause() test, or a test names an unknown clause. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { COVERED } from './clause';
import { CONSUMER_CLAUSES, HOST_CLAUSES } from './clauses';

const SPEC = join(__dirname, '..', '..', '..', '..', 'shared', 'spec', 'clauses.md');

describe('clause coverage', () => {
  it('every host-side clause id has at least one clause() test', () => {
    const missing = HOST_CLAUSES.filter((id) => !COVERED.has(id));
    expect(missing, `clauses without a test: ${missing.join(', ')}`).to.deep.equal([]);
  });

  it('every consumer clause id has at least one clause() test (toolcat/client, test/conformance/consumer.conformance.test.ts)', () => {
    const missing = CONSUMER_CLAUSES.filter((id) => !COVERED.has(id));
    expect(missing, `consumer clauses without a test: ${missing.join(', ')}`).to.deep.equal([]);
  });

  it('no test names a clause id that the spec does not have', () => {
    const known = new Set<string>([...HOST_CLAUSES, ...CONSUMER_CLAUSES]);
    expect([...COVERED].filter((id) => !known.has(id))).to.deep.equal([]);
  });

  it('the clause list matches ../shared/spec/clauses.md', function () {
    if (!existsSync(SPEC)) {
      // A clone without shared/ beside it cannot compare; the list above is then the reference.
      this.skip();
    }
    const ids = [...readFileSync(SPEC, 'utf8').matchAll(/^\| (TC-[A-Z]+-\d+) \|/gm)].map((m) => m[1]);
    expect(ids).to.have.members([...HOST_CLAUSES, ...CONSUMER_CLAUSES]);
  });
});

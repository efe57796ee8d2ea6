import { expect } from 'chai';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './db-errors';

describe(isDatabaseUnavailable.name, () => {
  it('recognises an unreachable or restarting database, however the driver wraps it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(isDatabaseUnavailable(refused)).to.equal(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], shutdown))).to.equal(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).to.equal(true);
    // Seen under load in test/ops/db-outage.test.ts: the connection died inside a transaction.
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).to.equal(true);
    // Its sibling, seen the same way: a query through the transaction's EntityManager (manager.query) after the
    // connection died.
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).to.equal(true);
  });
  it('does not mistake bugs or bad input for an outage', () => {
    const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' });
    expect(isDatabaseUnavailable(new QueryFailedError('SELEC 1', [], syntax))).to.equal(false);
    expect(isDatabaseUnavailable(new TypeError('cannot read properties of undefined'))).to.equal(false);
    expect(isDatabaseUnavailable(null)).to.equal(false);
  });
});

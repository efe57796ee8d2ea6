/** schema.graphql is generated from the resolvers; this fails when the committed file drifts (run `npm run schema:emit`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { printCatalogSchema } from '../../src/graphql/schema';

describe('schema.graphql', () => {
  it('equals the SDL printed from the resolvers', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', 'schema.graphql'), 'utf8');
    expect(committed, 'schema.graphql is stale: run `npm run schema:emit` and commit it').to.equal(printCatalogSchema());
  });
});

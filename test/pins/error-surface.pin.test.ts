/** Pins the error surface: the code list, the GraphQL→HTTP table, and docs/errors.md agree. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CatalogErrorCode } from '../../src/catalog/catalog.errors';
import { HTTP_STATUS_BY_CODE, statusForErrors } from '../../src/rest/http-status';
import { PUBLIC_GRAPHQL_CODES, REQUEST_ERROR_CODES } from '../../src/shared/transport-answers';

const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'errors.md'), 'utf8');
const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);

describe('error surface', () => {
  it('every CatalogErrorCode is documented in docs/errors.md, and the doc lists no unknown code', () => {
    const restOnly = ['METHOD_NOT_ALLOWED', 'BAD_REQUEST', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'];
    expect(documented.filter((c) => !restOnly.includes(c))).to.have.members(Object.values(CatalogErrorCode));
  });
  it('the codes GraphQL clients may see are the documented ones: derived from the domain list, never re-listed (issue 13)', () => {
    const restOnly = ['METHOD_NOT_ALLOWED', 'BAD_REQUEST', 'RATE_LIMITED'];
    const graphqlVisible = documented.filter((c) => !restOnly.includes(c) && c !== 'INTERNAL_SERVER_ERROR');
    expect([...PUBLIC_GRAPHQL_CODES].filter((c) => !(REQUEST_ERROR_CODES as readonly string[]).includes(c))).to.have.members(graphqlVisible);
  });
  it('the GraphQL→HTTP table is literally this', () => {
    expect(HTTP_STATUS_BY_CODE).to.deep.equal({ UNAUTHENTICATED: 401, BAD_USER_INPUT: 400, GRAPHQL_VALIDATION_FAILED: 400, GRAPHQL_PARSE_FAILED: 400, SERVICE_UNAVAILABLE: 503 });
    expect(statusForErrors(['FORBIDDEN'])).to.equal(500); // never 403 on a catalog read
    expect(statusForErrors(['INTERNAL_SERVER_ERROR'])).to.equal(500);
  });
});

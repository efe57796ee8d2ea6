import { GraphQLScalarType, Kind } from 'graphql';
import { CachedBody, StreamedBody } from '../cache/cached-body';

/**
 * The exact JSON text of a REST response body. In-process the value stays the cached Buffer wrapper (the
 * facade sends its bytes without copying or re-encoding); over HTTP it serialises as the JSON text string.
 */
export const JSONDocumentScalar = new GraphQLScalarType({
  name: 'JSONDocument',
  description: 'The exact JSON text of a catalog response body (a string on the wire).',
  serialize(value: unknown): unknown {
    if (value instanceof CachedBody) return value;
    if (value instanceof StreamedBody) return value; // in-process only: the REST facade asked for it (issue 21)
    if (typeof value === 'string') return value;
    throw new TypeError('JSONDocument must be a cached body or a string');
  },
  parseValue() {
    throw new TypeError('JSONDocument is output-only');
  },
  parseLiteral(ast) {
    throw new TypeError(`JSONDocument is output-only (got ${ast.kind === Kind.STRING ? 'a string' : ast.kind})`);
  },
});

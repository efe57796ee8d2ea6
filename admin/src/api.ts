import { print } from 'graphql';
import type { TadaDocumentNode } from 'gql.tada';
import { storedCredential } from './session';

class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly status: number,
  ) {
    super(message);
    this.name = 'GraphQLRequestError';
  }
}

/**
 * One GraphQL operation against this toolcat's public /graphql, with the signed-in credential as a bearer token.
 * The first error is thrown with its code (UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, ...) so pages can say why.
 */
export async function request<R, V>(doc: TadaDocumentNode<R, V>, variables: V): Promise<R> {
  const credential = storedCredential();
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    body: JSON.stringify({ query: print(doc), variables }),
    credentials: 'omit',
  });
  let body: { data?: R | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new GraphQLRequestError(`toolcat answered HTTP ${res.status} without a GraphQL body`, undefined, res.status);
  }
  const first = body.errors?.[0];
  if (first) throw new GraphQLRequestError(first.message, first.extensions?.code, res.status);
  if (body.data == null) throw new GraphQLRequestError('toolcat answered without data', undefined, res.status);
  return body.data;
}

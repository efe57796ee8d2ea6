/**
 * The exact bytes of a catalog response, built once. In-process (the REST facade) the Buffer is sent as is;
 * serialised to JSON (a GraphQL client over HTTP) it becomes the JSON text (`toJSON`).
 */
export class CachedBody {
  constructor(readonly bytes: Buffer) {}

  toJSON(): string {
    return this.bytes.toString('utf8');
  }

  toString(): string {
    return this.bytes.toString('utf8');
  }
}

/**
 * A list too large to be held as one Buffer (issue 21: a whole-catalog grant at 100,000 tools is ~160 MB): its exact
 * length and a source of its bytes in order, read from the cached per-descriptor bytes while it is sent. The bytes
 * are those a buffered body of the same list would hold (`CatalogCache.list`), so the ETag is the same too. Only the
 * REST facade asks for one (GraphQLContext.streamBodies); every other reader gets a CachedBody.
 */
export class StreamedBody {
  constructor(
    readonly length: number,
    /**
     * The bytes in order, a group of buffers at a time (~256 KB, written as one writev: the descriptors' own cached
     * buffers, never copied into a chunk first); throws if the catalog changed under the list (the answer is cut).
     */
    readonly chunks: () => AsyncIterable<readonly Buffer[]>,
    /** What holding this body keeps alive (the visible set it reads), for byte-bounded holders of it. */
    readonly heldBytes: number,
  ) {}

  toJSON(): string {
    throw new Error('a streamed list is sent by the REST facade only; it has no JSON text in-process');
  }
}

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

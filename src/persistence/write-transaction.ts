import type { DataSource, EntityManager } from 'typeorm';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { type ConstraintViolation, constraintViolationOf } from './constraint-errors';
import { assertNever } from '../shared/assert-never';
import { notFound } from '../catalog/admin-scope';

/**
 * What a write knows that the database error does not: the words for the race it can lose. The pre-checks
 * in each service still give these answers in the normal case; this covers what they cannot see (issue 12
 * defect 5): a name taken or a tenant deleted by another transaction between the check and the write.
 */
export interface WriteContext {
  /** CONFLICT message when the unique key this write adds is taken meanwhile, e.g. `A tenant named "x" already exists.` */
  readonly taken?: string;
  /** What a foreign key of this write refers to, for NOT_FOUND when the driver does not name it (SQLite): `tenant`. */
  readonly refersTo?: string;
  /** An upsert: when its key was inserted meanwhile, run it again (it then updates), instead of answering CONFLICT. */
  readonly upsert?: boolean;
}

/** A deadlock or a lost upsert race is retried this many times in all; then the answer is CONFLICT. */
const MAX_ATTEMPTS = 3;

/** Unique keys of the schema, for a violation outside any WriteContext (format-error.ts's backstop). */
const TAKEN_BY_TABLE: Readonly<Record<string, string>> = {
  tenant: 'A tenant with this name already exists.',
  mcp_source: 'A source with this name already exists.',
  mcp_source_secret: 'A source with this name already exists.',
  tool: 'A tool with this id was written by another change at the same time; retry.',
  tool_classification: 'This tool was classified by another change at the same time; retry.',
};

/** What each table holds, in the words of admin-scope's notFound. */
const NOUN_BY_TABLE: Readonly<Record<string, string>> = {
  tenant: 'tenant',
  principal: 'principal',
  tool_grant: 'grant',
  tool: 'tool',
  mcp_source: 'source',
};

/**
 * Every admin write runs here: one transaction, and the one mapping from database constraint violations to
 * client codes (CONFLICT, NOT_FOUND, BAD_USER_INPUT) with clear words, on SQLite and PostgreSQL alike. A
 * transaction PostgreSQL aborted to break a deadlock is run again (the default isolation is READ COMMITTED,
 * so serialization failures proper do not occur, but deadlocks between unrelated writes can).
 */
export async function writeTransaction<T>(ds: DataSource, context: WriteContext, fn: (m: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ds.transaction(fn);
    } catch (err) {
      const v = constraintViolationOf(err);
      if (!v) throw err;
      const retryable = v.kind === 'serialization' || (v.kind === 'unique' && context.upsert === true);
      if (retryable && attempt < MAX_ATTEMPTS) continue;
      throw errorForViolation(v, context, err);
    }
  }
}

/** The client error a constraint violation answers. Never carries driver text: what it says comes from the schema and the caller. */
export function errorForViolation(v: ConstraintViolation, context: WriteContext = {}, cause?: unknown): CatalogError {
  // The driver error stays the cause for debugging; nothing of it is answered or logged.
  const opts = { cause };
  switch (v.kind) {
    case 'unique':
      return new CatalogError(CatalogErrorCode.Conflict, context.taken ?? TAKEN_BY_TABLE[v.table ?? ''] ?? 'Another change wrote the same entry at the same time; retry.', opts);
    case 'foreign-key': {
      const what = NOUN_BY_TABLE[v.referenced ?? ''] ?? context.refersTo;
      return what ? new CatalogError(CatalogErrorCode.NotFound, notFound(what).message, opts) : new CatalogError(CatalogErrorCode.NotFound, 'Something this change refers to does not exist (it may have been deleted meanwhile).', opts);
    }
    case 'not-null':
      return new CatalogError(CatalogErrorCode.InvalidArgument, 'A required value is missing.', opts);
    case 'check':
      return new CatalogError(CatalogErrorCode.InvalidArgument, 'A value is outside what the catalog accepts.', opts);
    case 'too-long':
      return new CatalogError(CatalogErrorCode.InvalidArgument, 'A value is longer than the catalog stores.', opts);
    case 'bad-text':
      return new CatalogError(CatalogErrorCode.InvalidArgument, 'A value holds a character the catalog cannot store (U+0000) or is not of the form its field takes.', opts);
    case 'serialization':
      return new CatalogError(CatalogErrorCode.Conflict, 'This change collided with concurrent changes and was not applied; retry it.', opts);
    default:
      return assertNever(v.kind);
  }
}

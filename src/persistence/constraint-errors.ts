/**
 * Which database errors are the caller's input meeting a constraint, as opposed to a bug or an outage
 * (issue 12 defect 5: they were answered INTERNAL_SERVER_ERROR). This file only recognises them, on both
 * drivers; services/write-transaction.ts decides what each answers. Nothing of the driver's text is kept
 * but table names, which the schema fixes (never a value).
 *
 *  - unique:        a key another write took first (two admins creating one name at once)
 *  - foreign-key:   a row the write refers to does not exist (never did, or was deleted meanwhile)
 *  - not-null, check, too-long, bad-text: a value the schema cannot store (PostgreSQL refuses U+0000 in text and
 *                   strings over a varchar's length; SQLite stores both)
 *  - serialization: PostgreSQL aborted the transaction to break a deadlock (or a serialization conflict); running
 *                   it again is safe and normally succeeds
 */
type ViolationKind = 'unique' | 'foreign-key' | 'not-null' | 'check' | 'too-long' | 'bad-text' | 'serialization';

export interface ConstraintViolation {
  readonly kind: ViolationKind;
  /** The table written, when the driver says (PostgreSQL always; SQLite for unique and not-null). */
  readonly table: string | null;
  /** For a foreign key: the table referred to, when the driver says (PostgreSQL only). */
  readonly referenced: string | null;
}

/** PostgreSQL SQLSTATEs (Appendix A of its manual). */
const PG_KINDS: Readonly<Record<string, ViolationKind>> = {
  '23505': 'unique',
  '23503': 'foreign-key',
  '23502': 'not-null',
  '23514': 'check',
  '22001': 'too-long', // string_data_right_truncation: longer than varchar(n)
  '22021': 'bad-text', // character_not_in_repertoire: U+0000 in text
  '22P02': 'bad-text', // invalid_text_representation: e.g. 'abc' for an integer or uuid column
  '22003': 'too-long', // numeric_value_out_of_range
  '40001': 'serialization',
  '40P01': 'serialization', // deadlock_detected
};

/** better-sqlite3 extended result codes. */
const SQLITE_KINDS: Readonly<Record<string, ViolationKind>> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign-key',
  SQLITE_CONSTRAINT_NOTNULL: 'not-null',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_TOOBIG: 'too-long',
  SQLITE_MISMATCH: 'bad-text',
};

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The violation `err` reports, or null when it is something else. TypeORM wraps driver errors in a
 * QueryFailedError (the driver's own error in `driverError`, its fields copied on top); causes are followed too.
 */
export function constraintViolationOf(err: unknown): ConstraintViolation | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const x = e as { code?: unknown; message?: unknown; table?: unknown; detail?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof x.code === 'string') {
      const pg = PG_KINDS[x.code];
      if (pg) return { kind: pg, table: identifier(x.table), referenced: pg === 'foreign-key' ? identifier(match(x.detail, /is not present in table "([^"]+)"/)) : null };
      const lite = SQLITE_KINDS[x.code];
      // "UNIQUE constraint failed: tenant.name", "NOT NULL constraint failed: tool.name"; a foreign key names nothing.
      if (lite) return { kind: lite, table: identifier(match(x.message, /constraint failed: ([a-z_][a-z0-9_]*)\./)), referenced: null };
    }
    e = x.driverError ?? x.cause;
  }
  return null;
}

function match(text: unknown, re: RegExp): string | null {
  return typeof text === 'string' ? (re.exec(text)?.[1] ?? null) : null;
}

/** Only schema identifiers pass (a table name is never user text, but the field comes from a driver). */
function identifier(v: unknown): string | null {
  return typeof v === 'string' && IDENTIFIER.test(v) ? v : null;
}

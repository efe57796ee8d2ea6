/**
 * The CLI's exit codes (issue 19, docs/operators.md "Exit codes"). This module imports nothing: main.ts uses it
 * for every error, and `--help` must not load what a command does not need. Errors are recognised by name, not
 * instanceof, for the same reason.
 */
export const EXIT = {
  ok: 0,
  /** Something failed that is not one of the cases below (a sync that failed, an unexpected error). */
  failed: 1,
  /** The command line: unknown command or option, missing or conflicting flags, an invalid value. */
  usage: 2,
  /** The environment or the config file is invalid. */
  config: 3,
  /** What the command names does not exist. */
  notFound: 4,
  /** It exists already, or the config file conflicts with what the API owns or with another applied file. */
  conflict: 5,
  /** The database is unreachable or has pending migrations. */
  database: 6,
} as const;

/** An error of the command line itself (conflicting flags and the like): exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function exitCodeOf(err: unknown): number {
  const e = err as { name?: string; code?: string; message?: string } | null;
  switch (e?.name) {
    case 'UsageError':
      return EXIT.usage;
    case 'ConfigError':
    case 'ConfigFileError':
      return EXIT.config;
    case 'OtherConfigAppliedError':
      return EXIT.conflict;
    case 'PendingMigrationsError':
      return EXIT.database;
    case 'CatalogError':
      if (e.code === 'NOT_FOUND') return EXIT.notFound;
      if (e.code === 'CONFLICT') return EXIT.conflict;
      if (e.code === 'BAD_USER_INPUT' || e.code === 'CEILING_EXCEEDED') return EXIT.usage;
      return EXIT.failed;
  }
  const code = e?.code ?? '';
  if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|28P01|3D000|SQLITE_CANTOPEN)$/.test(code)) return EXIT.database;
  return EXIT.failed;
}

/** One line: a multi-line message (a config error lists each problem on a line) folded as "head: a; b". */
export function oneLine(err: unknown): string {
  const [head, ...rest] = (err instanceof Error ? err.message : String(err)).split('\n').map((l) => l.trim().replace(/^- /, '')).filter(Boolean);
  return rest.length ? `${head} ${rest.join('; ')}` : (head ?? 'unknown error');
}

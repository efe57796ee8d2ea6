import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Secrets never reach a log line: known secret fields are redacted as well. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'toolcat' },
    redact: { paths: ['apiKey', 'key', 'authorization', 'req.headers.authorization', '*.apiKey'], censor: '[redacted]' },
  });
}

import pino, { type Logger } from 'pino';
import { currentRequestId } from '../ops/request-scope';

export type { Logger };

/**
 * Structured JSON logs. Every line written while a request is served carries its requestId (mixin).
 * Secrets never reach a log line: callers log places and kinds, not values, and known secret fields are
 * redacted as a second line of defence.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'toolcat' },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
    redact: { paths: ['apiKey', 'key', 'authorization', 'req.headers.authorization', 'req.headers.cookie', '*.apiKey', 'env', 'headers'], censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, for log lines written anywhere below it (pino mixin adds its id to every line). */
const storage = new AsyncLocalStorage<{ requestId: string }>();

export function runInRequest<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

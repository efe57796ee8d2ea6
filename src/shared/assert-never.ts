/** Exhaustive-switch helper: a new union member without a case fails to compile. */
export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${String(x)}`);
}

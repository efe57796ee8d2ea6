/** ISO-8601 timestamps as stored (text, identical on both drivers). */
export function nowIso(): string {
  return new Date().toISOString();
}

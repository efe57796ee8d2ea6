/** The path and query of a request target (`req.url`), split at the first `?`; neither is decoded. */
export function splitTarget(url: string | undefined): { path: string; query: string | null } {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: null } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

import { redactCredentials } from '../../catalog/credentials';

/**
 * Error text from a transport can quote URLs, headers or a server's stderr. Before it is stored, shown to
 * admins or logged: the source's own secret values (literal and resolved `fromEnv`, see secretValues) and
 * anything credential-shaped are redacted, URL query strings and userinfo removed, the length bounded.
 */
export function sanitizeError(err: unknown, knownSecrets: readonly string[] = []): string {
  let text = err instanceof Error ? err.message : String(err);
  // Longest first, so a secret that contains another is replaced whole.
  for (const s of [...knownSecrets].sort((a, b) => b.length - a.length)) if (s.length >= 4) text = text.split(s).join('[redacted]');
  text = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1').replace(/(\bhttps?:\/\/[^\s?#]*)\?[^\s#]*/gi, '$1?[redacted]');
  text = redactCredentials(text);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

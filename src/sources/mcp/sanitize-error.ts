import { redactCredentials } from '../../catalog/credentials';

/**
 * Error text from a transport can quote URLs, headers or a server's stderr. Before it is stored, shown to
 * admins or logged: credentials are redacted, URL query strings and userinfo removed, the length bounded.
 */
export function sanitizeError(err: unknown, knownSecrets: readonly string[] = []): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const s of knownSecrets) if (s.length >= 4) text = text.split(s).join('[redacted]');
  text = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1').replace(/(\bhttps?:\/\/[^\s?#]*)\?[^\s#]*/gi, '$1?[redacted]');
  text = redactCredentials(text);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

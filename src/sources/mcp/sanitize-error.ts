import { redactCredentials } from '../../catalog/credentials';
import { redactSecretForms } from './secret-forms';

/**
 * Error text from a transport can quote URLs, headers or a server's stderr. Before it is stored, shown to
 * admins or logged: the source's own secret values (literal and resolved `fromEnv`, see secretValues) and
 * anything credential-shaped are redacted, URL query strings and userinfo removed, the length bounded.
 */
export function sanitizeError(err: unknown, knownSecrets: readonly string[] = []): string {
  // Every shape and every piece of the source's own secrets (secret-forms.ts): an encoded echo, or one cut at the edge
  // of the transport's bounded stderr tail, is still the secret (issue 11, red-team follow-up F3).
  let text = redactSecretForms(err instanceof Error ? err.message : String(err), knownSecrets.filter((s) => s.length >= 4));
  text = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1').replace(/(\bhttps?:\/\/[^\s?#]*)\?[^\s#]*/gi, '$1?[redacted]');
  text = redactCredentials(text);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

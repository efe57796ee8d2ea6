/**
 * Credential detection (TC-DESC-4). Recognises the common token formats by shape; the names of the kinds
 * (never the matched text) are what callers log. Issue 5 extends the corpus; the rule stays: a descriptor
 * never carries anything that matches here.
 */
interface CredentialRule {
  readonly kind: string;
  readonly re: RegExp;
}

const RULES: readonly CredentialRule[] = [
  { kind: 'pem-private-key', re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/ },
  { kind: 'aws-access-key-id', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { kind: 'gitlab-token', re: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { kind: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'slack-webhook', re: /hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/ },
  { kind: 'stripe-key', re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { kind: 'openai-style-key', re: /\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}/ },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}/ },
  { kind: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'bearer-value', re: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i },
  { kind: 'basic-auth-value', re: /\bBasic\s+[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])/ },
  { kind: 'url-userinfo', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i },
  {
    kind: 'url-secret-parameter',
    re: /[?&](?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature|x-amz-signature)=[^&\s#]{8,}/i,
  },
  {
    kind: 'assigned-secret',
    re: /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|client[_-]?secret|private[_-]?key)\s*[:=]\s*["']?[^\s"',;]{8,}/i,
  },
];

/** Property names under which a literal value is treated as a secret (issue 2: "secret-like names"). */
export const SECRET_LIKE_NAME = /(?:^|[_-]|[a-z](?=[A-Z]))(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|credentials?|private[_-]?key|auth(?:orization)?)$/i;

/** The kinds of credential found in `text` (empty when none). Bounded: text is cut at 64 KiB. */
export function findCredentialKinds(text: string): string[] {
  const sample = text.length > 65536 ? text.slice(0, 65536) : text;
  return RULES.filter((r) => r.re.test(sample)).map((r) => r.kind);
}

export function containsCredential(text: string): boolean {
  return findCredentialKinds(text).length > 0;
}

/** Replaces every credential-shaped run in `text` with `[redacted]`. */
export function redactCredentials(text: string): string {
  let out = text;
  for (const r of RULES) out = out.replace(new RegExp(r.re.source, r.re.flags.includes('g') ? r.re.flags : `${r.re.flags}g`), '[redacted]');
  return out;
}

/** A literal value (default/example) under a secret-like property name: treated as a credential if non-trivial. */
export function isSecretLikeLiteral(propertyName: string, value: unknown): boolean {
  return SECRET_LIKE_NAME.test(propertyName) && typeof value === 'string' && value.length >= 6;
}

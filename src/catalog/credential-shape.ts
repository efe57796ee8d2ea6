/**
 * What makes a value look like a secret, independent of any token format: placeholders (which are not
 * secrets), randomness, and secret-like property names. Used by the rules (credential-rules.ts) and by the
 * schema scrubber's literal checks (credential-scrub.ts).
 *
 * Placeholders are not credentials (decision): "YOUR_API_KEY", "<token>", "${TOKEN}", "xxxx", "****", "[redacted]"
 * mark where a secret goes and carry none, so they are neither redacted nor a reason to refuse a tool. Well-known
 * default passwords ("changeme", "password") are *not* placeholders: a tool that advertises one as its default is
 * probably advertising the real one.
 */
const PLACEHOLDER_SHAPE =
  /^(?:<[^<>]*>|\{\{[^{}]*\}\}|\$\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[sd]|%\([^()]*\)s|\[[^[\]]*\]|(.)\1*)$/;
const PLACEHOLDER_WORD =
  /your[_ .-]?(?:own[_ .-]?)?(?:api[_ .-]?|access[_ .-]?|secret[_ .-]?|auth[_ .-]?)?(?:key|token|secret|pass)|placeholder|redacted|example|sample|dummy|replace[_ .-]?me|(?:insert|goes|put|paste|key|token|secret|password)[_ .-]?here|xxxx|\*\*\*|\.\.\.|\u2026|process\.env|os\.environ|getenv/i;
const NON_VALUE = /^(?:true|false|null|none|nil|undefined|required|optional|string|number|boolean|integer|object|array|empty|unset|hidden)$/i;

/** A value that marks where a secret would go ("YOUR_API_KEY", "<token>", "${X}", "xxxx") rather than being one. */
export function isPlaceholderValue(value: string): boolean {
  const v = value.trim();
  return v.length === 0 || PLACEHOLDER_SHAPE.test(v) || PLACEHOLDER_WORD.test(v) || NON_VALUE.test(v);
}

const COUNTS = new Uint32Array(65536);
/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  for (let i = 0; i < s.length; i++) COUNTS[s.charCodeAt(i)]++;
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    const n = COUNTS[s.charCodeAt(i)];
    if (n === 0) continue; // already counted
    h -= (n / s.length) * Math.log2(n / s.length);
    COUNTS[s.charCodeAt(i)] = 0;
  }
  return h;
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;

/**
 * Random-looking: long enough, not a placeholder, has a digit or random-looking case (both upper→upper and
 * lower→upper steps; camelCase words have almost no upper→upper), and an entropy of at least 70% of what a
 * random string of that length and alphabet reaches.
 */
export function looksRandom(value: string, minLength = 16): boolean {
  if (value.length < minLength || value.length > 4096) return false;
  let digits = 0;
  let upUp = 0;
  let lowUp = 0;
  let hex = true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const p = i > 0 ? value.charCodeAt(i - 1) : 0;
    if (c >= 48 && c <= 57) digits++;
    else if (!((c >= 97 && c <= 102) || (c >= 65 && c <= 70) || c === 45)) hex = false;
    if (isUpper(c) && isUpper(p)) upUp++;
    if (isUpper(c) && isLower(p)) lowUp++;
  }
  if (digits === 0 && (upUp < value.length / 10 || lowUp < value.length / 10)) return false;
  return shannonEntropy(value) >= 0.7 * Math.log2(Math.min(value.length, hex ? 16 : 64)) && !isPlaceholderValue(value);
}

// ---- secret-like names ----------------------------------------------------------------------------------
/**
 * Name tails that make any non-trivial value a secret; the rest need a random-looking value. Words of a tail are
 * matched with or without a separator and each in lower, Capitalised or UPPER case, so `passWord`, `pass_word`
 * and `PASSWORD` are all `pass word`. Strong tails also match their plural (`passwords`, `apiKeys`: a list of
 * them); weak ones do not, since `max_tokens` or `auths` name counts and settings far more often than secrets.
 */
const STRONG_TAILS = ['pass word', 'passwd', 'pass phrase', 'pwd', 'pass', 'secret', 'api key', 'access key', 'secret key', 'private key'];
const WEAK_TAILS = [
  'token', 'credential', 'credentials', 'auth', 'authorization', 'signing key', 'master key', 'account key',
  'encryption key', 'shared key', 'storage key', 'session key', 'connection string',
];
const cased = (w: string) => `(?:${w}|${w[0].toUpperCase()}${w.slice(1)}|${w.toUpperCase()})`;
const alternation = (tails: readonly string[]) => tails.map((t) => t.split(' ').map(cased).join('[_. -]?')).join('|');
// A word starts at the beginning, after a non-letter, or at a camelCase hump; the tail ends the name.
const WORD_START = '(?:^|(?<=[^A-Za-z])|(?<=[a-z])(?=[A-Z]))';

/** Password- and key-like names: any non-trivial literal under one is a secret. */
export const STRONG_SECRET_NAME = new RegExp(`${WORD_START}(?:${alternation(STRONG_TAILS)})(?:s|S)?$`);

/** Property names under which a literal value is treated as a secret (apiKey, DB_PASSWORD, x-auth-token, …). */
export const SECRET_LIKE_NAME = new RegExp(`${WORD_START}(?:(?:${alternation(STRONG_TAILS)})(?:s|S)?|${alternation(WEAK_TAILS)})$`);

const literalText = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : null;

/** A literal value (default/example) under a secret-like property name: treated as a credential if non-trivial. */
export function isSecretLikeLiteral(propertyName: string, value: unknown): boolean {
  if (!SECRET_LIKE_NAME.test(propertyName)) return false;
  const text = literalText(value);
  return text !== null && text.trim().length >= 6 && !isPlaceholderValue(text);
}

/**
 * A `const`/`enum` value under a secret-like name that is a credential (and so refuses the tool). Stricter than
 * isSecretLikeLiteral, because refusing a tool costs more than dropping an example: under a strong
 * (password/key-like) name any non-trivial, non-placeholder literal counts, since a schema that pins a password
 * to fixed values publishes them; under a weak name (token, auth, credential…) only a random-looking one does,
 * so `auth: { enum: ["none", "basic", "oauth2"] }` is vocabulary and stays.
 */
export function isSecretLikeConstraint(propertyName: string, value: unknown): boolean {
  const text = literalText(value);
  if (text === null || !SECRET_LIKE_NAME.test(propertyName)) return false;
  return STRONG_SECRET_NAME.test(propertyName) ? isSecretLikeLiteral(propertyName, value) : looksRandom(text.trim());
}

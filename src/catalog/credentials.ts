/**
 * Credential detection (TC-DESC-4). Recognises the common token formats by shape, plus high-entropy values
 * assigned to secret-like names; the names of the kinds (never the matched text) are what callers log. The rule
 * stays: a descriptor never carries anything that matches here.
 *
 * Linear time on hostile input (issue 5): every pattern is either fixed-length, ends in its only unbounded run,
 * or starts with a look-behind that pins the start to the beginning of a maximal run of the following class, so
 * two attempts never rescan the same run. A rule that can reject a match (`judge`) never swallows another
 * candidate of the same rule. PEM bodies and assigned values are scanned by hand with a bound.
 *
 * Placeholders are not credentials (decision): "YOUR_API_KEY", "<token>", "${TOKEN}", "xxxx", "****", "[redacted]"
 * mark where a secret goes and carry none, so they are neither redacted nor a reason to refuse a tool. Well-known
 * default passwords ("changeme", "password") are *not* placeholders: a tool that advertises one as its default is
 * probably advertising the real one. Fixed-format tokens (AKIA…, ghp_…) count even when they look fake.
 */
interface Hit {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

interface CredentialRule {
  readonly kind: string;
  /** Global. See the header for the shapes allowed. */
  readonly re: RegExp;
  /** Decides on a candidate: the hit (possibly narrowed or widened) or null. */
  readonly judge?: (m: RegExpExecArray, text: string) => Hit | null;
}

const B64URL = 'A-Za-z0-9_-';
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
/** Name tails that make any non-trivial value a secret; the rest need a random-looking value. */
const STRONG_TAILS = ['password', 'passwd', 'passphrase', 'pwd', 'pass', 'secret', 'apikey', 'api key', 'access key', 'secret key', 'private key'];
const WEAK_TAILS = [
  'token', 'credential', 'credentials', 'auth', 'authorization', 'signing key', 'master key', 'account key',
  'encryption key', 'shared key', 'storage key', 'session key', 'connection string',
];
const cased = (w: string) => `(?:${w}|${w[0].toUpperCase()}${w.slice(1)}|${w.toUpperCase()})`;
const tailsPattern = (tails: readonly string[]) =>
  // A word starts at the beginning, after a non-letter, or at a camelCase hump; the tail ends the name.
  new RegExp(`(?:^|(?<=[^A-Za-z])|(?<=[a-z])(?=[A-Z]))(?:${tails.map((t) => t.split(' ').map(cased).join('[_. -]?')).join('|')})$`);
const STRONG_NAME = tailsPattern(STRONG_TAILS);

/** Property names under which a literal value is treated as a secret (apiKey, DB_PASSWORD, x-auth-token, …). */
export const SECRET_LIKE_NAME = tailsPattern([...STRONG_TAILS, ...WEAK_TAILS]);

// ---- hand-scanned parts -----------------------------------------------------------------------------------
const PEM_CHAR = /[A-Za-z0-9+/=\s\\:,.-]/;
/** Extends a PEM header to the end of its body and END line (or the first character a PEM body cannot hold). */
function pemEnd(text: string, from: number): number {
  const limit = Math.min(text.length, from + 65536);
  let i = from;
  while (i < limit) {
    if (text.startsWith('-----END', i)) {
      const close = text.slice(i + 8, i + 88).indexOf('-----');
      return close === -1 ? i + 8 : i + 8 + close + 5;
    }
    if (text.startsWith('-----BEGIN', i) || !PEM_CHAR.test(text[i])) return i;
    i++;
  }
  return i;
}

const UNQUOTED_VALUE = /[^\s"'`,;&<>()[\]{}:=]{0,1024}={0,6}/y; // sticky: one bounded native scan

/** The value after `name=` / `"name": `: quoted up to its quote, else up to a delimiter; bounded. */
function valueAt(text: string, from: number): { start: number; end: number; quoted: boolean } {
  const q = text[from];
  const opened = q === '"' || q === "'" || q === '`';
  if (opened) {
    // Scans at most to the next quote: the opening quote of the next candidate, so scans never overlap.
    const close = text.indexOf(q, from + 1);
    if (close !== -1 && close - from <= 1025) return { start: from + 1, end: close, quoted: true };
  }
  const start = opened ? from + 1 : from;
  UNQUOTED_VALUE.lastIndex = start;
  UNQUOTED_VALUE.exec(text);
  return { start, end: UNQUOTED_VALUE.lastIndex, quoted: false };
}

function judgeAssignment(m: RegExpExecArray, text: string): Hit | null {
  // No tail is longer than 20 characters, so the last 32 decide exactly (and keep a hostile long name cheap).
  const name = m[1].length > 32 ? m[1].slice(-32) : m[1];
  if (!SECRET_LIKE_NAME.test(name)) return null;
  const { start, end, quoted } = valueAt(text, m.index + m[0].length);
  if (start >= end) return null;
  const value = text.slice(start, end);
  // `password: required` in prose is not a secret; `password=…`, a quoted value or a non-word value is.
  const definite = m[3] !== ':' || quoted || /[^A-Za-z]/.test(value);
  if (STRONG_NAME.test(name) && value.length >= 8 && definite && !isPlaceholderValue(value)) return { kind: 'assigned-secret', start, end };
  return looksRandom(value) ? { kind: 'high-entropy-secret', start, end } : null;
}

const onlyGroup = (kind: string, g: number, check: (s: string) => boolean) => (m: RegExpExecArray): Hit | null => {
  const s = m[g];
  if (s === undefined || !check(s)) return null;
  const start = m.index + m[0].lastIndexOf(s);
  return { kind, start, end: start + s.length };
};

function decodesToUserPass(b64: string): boolean {
  const decoded = Buffer.from(b64, 'base64').toString('latin1');
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

// ---- the rules --------------------------------------------------------------------------------------------
const RULES: readonly CredentialRule[] = [
  { kind: 'pem-private-key', re: /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g, judge: (m, t) => ({ kind: 'pem-private-key', start: m.index, end: pemEnd(t, m.index + m[0].length) }) },
  // GCP service-account JSON: only the values go, so the redacted file stays valid JSON.
  { kind: 'gcp-service-account-key', re: /"private_key(?:_id)?"\s{0,8}:\s{0,8}"(?:(-----BEGIN)|([0-9a-f]{40})")/g, judge: (m, t) => {
    const end = m.index + m[0].length;
    return m[1] ? { kind: 'gcp-service-account-key', start: end - 10, end: pemEnd(t, end) } : { kind: 'gcp-service-account-key', start: end - 41, end: end - 1 };
  } },
  { kind: 'aws-access-key-id', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'aws-secret-access-key', re: /secret[_.-]?access[_.-]?key["']?\s{0,8}[:=]\s{0,8}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi, judge: onlyGroup('aws-secret-access-key', 1, () => true) },
  { kind: 'azure-storage-key', re: /\b(?:AccountKey|SharedAccessKey)\s{0,4}=\s{0,4}([A-Za-z0-9+/]{20,}={0,2})/gi, judge: onlyGroup('azure-storage-key', 1, () => true) },
  { kind: 'azure-client-secret', re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'gitlab-token', re: /\bgl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|soat|agent|ffct)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', re: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})/g },
  { kind: 'slack-webhook', re: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/]{20,}/g },
  { kind: 'discord-webhook', re: /discord(?:app)?\.com\/api\/webhooks\/[0-9]{5,30}\/[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe-key', re: /\b(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})/g },
  // A known prefix decides; a bare `sk-` needs an alphanumeric random body (so `sk-learn-…` is not a key).
  { kind: 'openai-style-key', re: /\bsk-(?:(?:proj|svcacct|admin|live|ant)-[A-Za-z0-9_-]{20,}|([A-Za-z0-9]{20,}))/g, judge: (m) => (m[1] === undefined || looksRandom(m[1], 20) ? { kind: 'openai-style-key', start: m.index, end: m.index + m[0].length } : null) },
  { kind: 'anthropic-key', re: /\bsk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}/g },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'google-oauth-token', re: /\b(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g },
  { kind: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'pypi-token', re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'huggingface-token', re: /\bhf_[A-Za-z0-9]{34,}/g },
  { kind: 'twilio-api-key', re: /\bSK[0-9a-fA-F]{32}\b/g },
  { kind: 'sendgrid-key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  { kind: 'mailchimp-key', re: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g },
  { kind: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: 'jwt', re: new RegExp(`(?<![${B64URL}])eyJ[${B64URL}]{8,}\\.eyJ[${B64URL}]{8,}\\.[${B64URL}]{8,}`, 'g') },
  { kind: 'bearer-value', re: /\bBearer\s{1,8}([A-Za-z0-9._~+/-]{16,}=*)/gi, judge: onlyGroup('bearer-value', 1, (s) => looksRandom(s.replace(/=+$/, ''))) },
  { kind: 'basic-auth-value', re: /\bBasic\s{1,8}([A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])/g, judge: onlyGroup('basic-auth-value', 1, decodesToUserPass) },
  // `scheme://user:password@`: the user part cannot hold ':' or '/', so it never spans another candidate.
  { kind: 'url-userinfo', re: /:\/\/[^\s/:@]{0,256}:([^\s/@]{1,256})@/g, judge: (m) => (isPlaceholderValue(m[1]) ? null : { kind: 'url-userinfo', start: m.index + 3, end: m.index + m[0].length - 1 }) },
  {
    kind: 'url-secret-parameter',
    re: /[?&](?:api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|private[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature|x-amz-signature|x-amz-security-token|code[_-]?verifier)=([^&\s#?]{8,})/gi,
    judge: onlyGroup('url-secret-parameter', 1, (s) => !isPlaceholderValue(s) && !(s.length < 16 && /^[a-z]+$/i.test(s))),
  },
  // name, closing quote, separator: the value is read by hand (judgeAssignment) so a rejected name never hides the next one.
  { kind: 'assigned-secret', re: /(?<![A-Za-z0-9_.$-])((?:[A-Za-z_][A-Za-z0-9_.-]*)?(?:pass(?:word|wd|phrase)?|pwd|secret|key|token|credentials?|auth|authorization|string))(["']?)[ \t]{0,8}(:=|[:=])[ \t]{0,8}(?=["'`]|[^\s"'`,;&<>()[\]{}:=]{8})/gi, judge: judgeAssignment },
];

function scanRule(rule: CredentialRule, text: string, onHit: (h: Hit) => boolean): void {
  const re = new RegExp(rule.re.source, rule.re.flags);
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const hit = rule.judge ? rule.judge(m, text) : { kind: rule.kind, start: m.index, end: m.index + m[0].length };
    if (hit && onHit(hit)) return;
    // A hit may extend past the match (PEM bodies): resume after it. Never stand still on an empty match.
    re.lastIndex = Math.max(hit ? hit.end : 0, m.index + Math.max(1, m[0].length));
  }
}

/** The kinds of credential found in `text` (empty when none). Linear in the length of `text`; all of it is read. */
export function findCredentialKinds(text: string): string[] {
  const kinds = new Set<string>();
  for (const r of RULES) {
    // One hit settles a rule (the assignment rule reports the first of its two kinds it meets).
    scanRule(r, text, (h) => (kinds.add(h.kind), true));
  }
  return [...kinds];
}

export function containsCredential(text: string): boolean {
  for (const r of RULES) {
    let found = false;
    scanRule(r, text, () => (found = true));
    if (found) return true;
  }
  return false;
}

/** Replaces every credential-shaped run in `text` with `[redacted]` (only the value where a name or scheme precedes it). */
export function redactCredentials(text: string): string {
  let out = text;
  // Spans are merged and replaced together; a second pass covers what the first one rejoined. Fail closed.
  for (let pass = 0; pass < 3; pass++) {
    // Overlapping spans of different rules merge through a difference array: linear, no sort of many hits.
    const depth = new Int32Array(out.length + 1);
    let found = false;
    for (const r of RULES)
      scanRule(r, out, (h) => {
        if (h.end > h.start) (depth[h.start]++, depth[h.end]--, (found = true));
        return false;
      });
    if (!found) return out;
    const parts: string[] = [];
    let open = 0;
    let from = 0;
    for (let i = 0; i <= out.length; i++) {
      if (depth[i] === 0) continue;
      const wasOpen = open > 0;
      open += depth[i];
      if (!wasOpen && open > 0) parts.push(out.slice(from, i), '[redacted]');
      else if (wasOpen && open === 0) from = i;
    }
    parts.push(out.slice(from));
    out = parts.join('');
  }
  return containsCredential(out) ? '[redacted]' : out;
}

/** A literal value (default/example) under a secret-like property name: treated as a credential if non-trivial. */
export function isSecretLikeLiteral(propertyName: string, value: unknown): boolean {
  if (!SECRET_LIKE_NAME.test(propertyName)) return false;
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : null;
  return text !== null && text.trim().length >= 6 && !isPlaceholderValue(text);
}

/**
 * The credential rules: token formats by shape, plus values assigned to secret-like names. A rule reports hits
 * (kind and span); credentials.ts runs every rule over every decoded view of a text (credential-decode.ts).
 *
 * Linear time on hostile input (issue 5): every pattern is either fixed-length, starts with a literal prefix and
 * ends in its only unbounded run, or starts with a look-behind that pins the start to the beginning of a maximal
 * run of the following class, so two attempts never rescan the same run. A rule that can reject a match (`judge`)
 * never swallows another candidate of the same rule. PEM bodies, URL authorities and assigned values are scanned
 * by hand with a bound.
 *
 * Glued tokens (issue 11): a fixed prefix counts wherever it starts, also right after a letter, digit or `_`
 * (`use xghp_…`, `id1AKIA…`, `backup_AKIA…_2024`), and a fixed-length token counts even when more of its alphabet
 * follows; failing closed costs a redaction, missing costs a leak. Where the prefix is short enough to occur
 * inside ordinary words (`sk_test_`, `hf_`, `ico-`) a glued match needs a random-looking body, and an AWS key id
 * glued on either side needs a digit in its body (all-caps words like `…ASIAPACIFICDATACENTER` have none).
 */
import { judgePemBody, pemEnd } from './credential-pem';
import { PORTED_RULES } from './credential-rules-ported';
import { STRONG_SECRET_NAME, SECRET_LIKE_NAME, isPlaceholderValue, looksRandom } from './credential-shape';

export interface Hit {
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

export interface CredentialRule {
  readonly kind: string;
  /** Global. See the header for the shapes allowed. */
  readonly re: RegExp;
  /** Decides on a candidate: the hit (possibly narrowed or widened) or null. */
  readonly judge?: (m: RegExpExecArray, text: string) => Hit | null;
  /**
   * At least one of these occurs in any match, so a text holding none is skipped without running the regex (a
   * substring search is far cheaper, and most texts hold few of the prefixes). `ci`: they are lower case and
   * looked for in the lower-cased text.
   */
  readonly keywords?: readonly string[];
  readonly ci?: boolean;
  /** A token format keyed on a word (not on punctuation): the only rules run over the ROT13 view. */
  readonly tokenFormat?: boolean;
}

const B64URL = 'A-Za-z0-9_-';
const WORDISH = /[A-Za-z0-9_]/;
const gluedBefore = (text: string, at: number) => at > 0 && WORDISH.test(text[at - 1]);

/** A match whose prefix is glued to a preceding word char must have a random-looking rest. */
const gluedRandom = (kind: string, prefixLength: number) => (m: RegExpExecArray, text: string): Hit | null =>
  gluedBefore(text, m.index) && !looksRandom(m[0].slice(prefixLength), Math.min(16, m[0].length - prefixLength)) ? null : { kind, start: m.index, end: m.index + m[0].length };

// ---- hand-scanned parts -----------------------------------------------------------------------------------
/** Characters that end a URL authority (WHATWG: `/ ? # \`), plus whitespace and quotes, which end the URL in text. */
const AUTHORITY_END = /[\s/?#\\"'`]/;

/**
 * `scheme://user:password@host`: the userinfo ends at the authority's LAST `@` (as URL parsers read it), so a
 * password holding `@` goes whole. The authority scan stops at the first `/`, and every candidate starts with
 * `://`, so two scans never overlap.
 */
function judgeUserinfo(m: RegExpExecArray, text: string): Hit | null {
  const start = m.index + 3;
  const limit = Math.min(text.length, start + 1024);
  let lastAt = -1;
  let colon = -1;
  for (let i = start; i < limit && !AUTHORITY_END.test(text[i]); i++) {
    if (text[i] === '@') lastAt = i;
    else if (text[i] === ':' && colon === -1) colon = i;
  }
  if (lastAt === -1 || colon === -1 || colon > lastAt) return null;
  const password = text.slice(colon + 1, lastAt);
  return password.length === 0 || isPlaceholderValue(password) ? null : { kind: 'url-userinfo', start, end: lastAt };
}

/**
 * `redis:password@host`, `postgres:user:password@host`: a database or mail URL written without `//` (red team F7).
 * Only the schemes listed in the rule (never `mailto:`, `http:`, `ssh:`), so `mailto:a@b` stays. The userinfo runs to
 * the authority's last `@`; without a `:` in it the whole of it is taken as the password (fail closed).
 */
function judgeBareUserinfo(m: RegExpExecArray, text: string): Hit | null {
  const start = m.index + m[0].length;
  const limit = Math.min(text.length, start + 1024);
  let lastAt = -1;
  let colon = -1;
  for (let i = start; i < limit && !AUTHORITY_END.test(text[i]); i++) {
    if (text[i] === '@') lastAt = i;
    else if (text[i] === ':' && colon === -1 && lastAt === -1) colon = i;
  }
  if (lastAt === -1) return null;
  const password = text.slice(colon === -1 ? start : colon + 1, lastAt);
  return password.length < 4 || isPlaceholderValue(password) ? null : { kind: 'url-userinfo', start, end: lastAt };
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
  return judgeNamedValue(m[1], m[3] !== ':', m, text);
}

/**
 * A command-line flag and its value as the next word (`--api-key AbCd…`, red team F4): judged like `name: value`
 * (a quoted or non-word value), so `--auth basic` and `use --token to` stay.
 */
function judgeFlag(m: RegExpExecArray, text: string): Hit | null {
  return judgeNamedValue(m[1], false, m, text);
}

function judgeNamedValue(rawName: string, assigned: boolean, m: RegExpExecArray, text: string): Hit | null {
  // A flag's dashes are not part of its name. No tail is longer than 20 characters, so the last 32 decide exactly
  // (and keep a hostile long name cheap).
  const bare = rawName.replace(/^-+/, '');
  const name = bare.length > 32 ? bare.slice(-32) : bare;
  if (!SECRET_LIKE_NAME.test(name)) return null;
  const { start, end, quoted } = valueAt(text, m.index + m[0].length);
  if (start >= end) return null;
  const value = text.slice(start, end);
  // `password: required` in prose is not a secret; `password=…`, a quoted value or a non-word value is.
  const definite = assigned || quoted || /[^A-Za-z]/.test(value);
  if (STRONG_SECRET_NAME.test(name) && value.length >= 8 && definite && !isPlaceholderValue(value)) return { kind: 'assigned-secret', start, end };
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

/**
 * A bare AWS secret access key: exactly 40 base64 characters, standing alone, with upper, lower and digits, few
 * `/`/`+` (paths have many) and the class changes of random text (a run of words or one camelCase name has few).
 */
function isBareAwsSecret(s: string): boolean {
  let upper = 0;
  let lower = 0;
  let digit = 0;
  let symbols = 0;
  let changes = 0;
  let prev = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const cls = c >= 65 && c <= 90 ? 0 : c >= 97 && c <= 122 ? 1 : c >= 48 && c <= 57 ? 2 : 3;
    [upper, lower, digit, symbols] = [upper + +(cls === 0), lower + +(cls === 1), digit + +(cls === 2), symbols + +(cls === 3)];
    if (prev !== -1 && cls !== prev) changes++;
    prev = cls;
  }
  return upper >= 3 && lower >= 3 && digit >= 1 && symbols <= 5 && changes >= 12 && looksRandom(s, 40);
}

/** An AWS key id glued on either side needs a digit in its body (see the header). */
function judgeAwsKeyId(m: RegExpExecArray, text: string): Hit | null {
  const glued = gluedBefore(text, m.index) || /[A-Z0-9]/.test(text[m.index + 20] ?? '');
  return glued && !/[0-9]/.test(m[0].slice(4)) ? null : { kind: 'aws-access-key-id', start: m.index, end: m.index + 20 };
}

// ---- the rules --------------------------------------------------------------------------------------------
const OWN_RULES: readonly CredentialRule[] = [
  { kind: 'pem-private-key', keywords: ['-----BEGIN'], re: /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g, judge: (m, t) => ({ kind: 'pem-private-key', start: m.index, end: pemEnd(t, m.index + m[0].length) }) },
  // A DER private key's base64 always starts with 'M' (0x30); 16 characters decode its first 12 bytes.
  { kind: 'pem-private-key', re: /(?<![A-Za-z0-9+/=])(?:M[A-Za-z0-9+/]{15}|b3BlbnNzaC1rZXktdjE)/g, judge: judgePemBody },
  // GCP service-account JSON: only the values go, so the redacted file stays valid JSON.
  { kind: 'gcp-service-account-key', keywords: ['"private_key'], re: /"private_key(?:_id)?"\s{0,8}:\s{0,8}"(?:(-----BEGIN)|([0-9a-f]{40})")/g, judge: (m, t) => {
    const end = m.index + m[0].length;
    return m[1] ? { kind: 'gcp-service-account-key', start: end - 10, end: pemEnd(t, end) } : { kind: 'gcp-service-account-key', start: end - 41, end: end - 1 };
  } },
  { kind: 'aws-access-key-id', keywords: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], re: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}/g, judge: judgeAwsKeyId },
  { kind: 'aws-secret-access-key', keywords: ['secret'], ci: true, re: /secret[_.-]?access[_.-]?key["']?\s{0,8}[:=]\s{0,8}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi, judge: onlyGroup('aws-secret-access-key', 1, () => true) },
  { kind: 'aws-secret-access-key', re: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g, judge: onlyGroup('aws-secret-access-key', 0, isBareAwsSecret) },
  { kind: 'azure-storage-key', keywords: ['accountkey', 'sharedaccesskey'], ci: true, re: /\b(?:AccountKey|SharedAccessKey)\s{0,4}=\s{0,4}([A-Za-z0-9+/]{20,}={0,2})/gi, judge: onlyGroup('azure-storage-key', 1, () => true) },
  { kind: 'azure-client-secret', keywords: ['Q~'], re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g },
  // toolcat's own API keys (src/tenancy/api-key.ts: `tc_` + 43 base64url characters). Missing until the issue 19
  // red team found a caller's key passed upstream in a tracestate member; `tc_` is short, so glued needs a random body.
  { kind: 'toolcat-api-key', keywords: ['tc_'], re: /tc_[A-Za-z0-9_-]{43}/g, judge: (m, t) => gluedRandom('toolcat-api-key', 3)(m, t) },
  { kind: 'github-token', keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], re: /(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'gitlab-token', keywords: ['gl'], re: /gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|soat|agent|ffct)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', keywords: ['xox', 'xapp-'], re: /(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})/g },
  { kind: 'slack-webhook', keywords: ['hooks.slack.com/'], re: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/]{20,}/g },
  { kind: 'discord-webhook', keywords: ['.com/api/webhooks/'], re: /discord(?:app)?\.com\/api\/webhooks\/[0-9]{5,30}\/[A-Za-z0-9_-]{20,}/g },
  { kind: 'stripe-key', keywords: ['_live_', '_test_', '_prod_', 'whsec_'], re: /(?:(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})/g, judge: (m, t) => gluedRandom('stripe-key', m[0].indexOf('_', 3) + 1)(m, t) },
  // A known prefix decides; a bare `sk-` needs an alphanumeric random body (so `sk-learn-…` is not a key).
  { kind: 'openai-style-key', keywords: ['sk-'], re: /sk-(?:(?:proj|svcacct|admin|live|ant)-([A-Za-z0-9_-]{20,})|([A-Za-z0-9]{20,}))/g, judge: (m, t) => {
    // A bare `sk-` glued to a word is too common in prose (`task-…`, `risk-…`) to count; a named one needs a random body.
    const glued = gluedBefore(t, m.index);
    const ok = m[2] !== undefined ? !glued && looksRandom(m[2], 20) : !glued || looksRandom(m[1], 20);
    return ok ? { kind: 'openai-style-key', start: m.index, end: m.index + m[0].length } : null;
  } },
  { kind: 'anthropic-key', keywords: ['sk-ant-'], re: /sk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}/g },
  { kind: 'google-api-key', keywords: ['AIza'], re: /AIza[0-9A-Za-z_-]{35}/g },
  { kind: 'google-oauth-token', keywords: ['ya29.', 'GOCSPX-'], re: /(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g },
  { kind: 'npm-token', keywords: ['npm_'], re: /npm_[A-Za-z0-9]{36}/g },
  { kind: 'pypi-token', keywords: ['pypi-AgE'], re: /pypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'huggingface-token', keywords: ['hf_'], re: /hf_[A-Za-z0-9]{34,}/g, judge: gluedRandom('huggingface-token', 3) },
  { kind: 'twilio-api-key', keywords: ['SK'], re: /\bSK[0-9a-fA-F]{32}\b/g },
  { kind: 'sendgrid-key', keywords: ['SG.'], re: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g },
  { kind: 'mailchimp-key', keywords: ['-us'], re: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g },
  { kind: 'digitalocean-token', keywords: ['_v1_'], re: /do[opr]_v1_[a-f0-9]{64}/g },
  // The start is pinned to a base64url run (linear time); up to 64 characters glued before `eyJ` are skipped.
  { kind: 'jwt', keywords: ['eyJ'], re: new RegExp(`(?<![${B64URL}])[${B64URL}]{0,64}?(eyJ[${B64URL}]{8,}\\.eyJ[${B64URL}]{8,}\\.[${B64URL}]{8,})`, 'g'), judge: onlyGroup('jwt', 1, () => true) },
  { kind: 'bearer-value', keywords: ['bearer'], ci: true, re: /\bBearer\s{1,8}([A-Za-z0-9._~+/-]{16,}=*)/gi, judge: onlyGroup('bearer-value', 1, (s) => looksRandom(s.replace(/=+$/, ''))) },
  { kind: 'basic-auth-value', keywords: ['Basic'], re: /\bBasic\s{1,8}([A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])/g, judge: onlyGroup('basic-auth-value', 1, decodesToUserPass) },
  { kind: 'url-userinfo', keywords: ['://'], re: /:\/\//g, judge: judgeUserinfo },
  {
    kind: 'url-secret-parameter',
    keywords: ['='],
    re: /[?&](?:api[_-]?key|apikey|key|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|private[_-]?token|token|secret|client[_-]?secret|password|passwd|sig|signature|x-amz-signature|x-amz-security-token|code[_-]?verifier)=([^&\s#?]{8,})/gi,
    judge: onlyGroup('url-secret-parameter', 1, (s) => !isPlaceholderValue(s) && !(s.length < 16 && /^[a-z]+$/i.test(s))),
  },
  // name (a flag's `-`/`--` included), closing quote, separator: the value is read by hand (judgeAssignment) so a
  // rejected name never hides the next one.
  { kind: 'assigned-secret', keywords: [':', '='], re: /(?<![A-Za-z0-9_.$-])(-{0,2}(?:[A-Za-z_][A-Za-z0-9_.-]*)?(?:pass(?:word|wd|phrase)?s?|pwd|secrets?|keys?|tokens?|credentials?|auth|authorization|string))(["']?)[ \t]{0,8}(:=|[:=])[ \t]{0,8}(?=["'`]|[^\s"'`,;&<>()[\]{}:=]{8})/gi, judge: judgeAssignment },
  // `--api-key AbCd…`: a flag, then its value as the next word (the `=` form is the rule above).
  { kind: 'assigned-secret', keywords: ['-'], re: /(?<![A-Za-z0-9_.$-])--?([A-Za-z][A-Za-z0-9_.-]{0,63})[ \t]{1,4}(?=["'`]|[^\s"'`,;&<>()[\]{}:=-][^\s"'`,;&<>()[\]{}:=]{7})/g, judge: judgeFlag },
  {
    kind: 'url-userinfo',
    keywords: ['@'],
    re: /(?<![A-Za-z0-9+.-])(?:rediss?|postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|amqps?|mssql|sqlserver|kafka|nats|memcached|s?ftp|smtps?|imaps?|ldaps?):(?!\/\/)/gi,
    judge: judgeBareUserinfo,
  },
];

export const RULES: readonly CredentialRule[] = [
  ...OWN_RULES,
  ...PORTED_RULES.map((r): CredentialRule => ({ kind: r.kind, re: r.re, keywords: r.keywords, ...(r.glued === undefined ? {} : { judge: gluedRandom(r.kind, r.glued) }) })),
].map((r) => ({ ...r, tokenFormat: r.keywords?.some((k) => /[A-Za-z]/.test(k)) ?? false }));

/**
 * Runs one rule over `text`; `onHit` returns true to stop. The rule's own RegExp is reused (its lastIndex reset
 * here): scans never nest, since neither judges nor callers' onHit start another one.
 */
export function scanRule(rule: CredentialRule, text: string, onHit: (h: Hit) => boolean): void {
  const re = rule.re;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const hit = rule.judge ? rule.judge(m, text) : { kind: rule.kind, start: m.index, end: m.index + m[0].length };
    if (hit && onHit(hit)) return;
    // A hit may extend past the match (PEM bodies): resume after it. Never stand still on an empty match.
    re.lastIndex = Math.max(hit ? hit.end : 0, m.index + Math.max(1, m[0].length));
  }
}

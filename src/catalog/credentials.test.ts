/**
 * Pins credential detection (TC-DESC-4, issue 5): a corpus of credential shapes (positives) that must be found
 * and fully redacted, look-alikes that must pass (near-miss negatives), the placeholder decision, the
 * secret-like name rules, and linear time on hostile megabyte inputs.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import {
  SECRET_LIKE_NAME, containsCredential, findCredentialKinds, isPlaceholderValue, isSecretLikeConstraint, isSecretLikeLiteral, lastDecodeWork, looksRandom,
  redactCredentials, shannonEntropy,
} from './credentials';

/** Deterministic filler in a given alphabet (the corpus must not depend on Math.random). */
function rnd(n: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', seed = n): string {
  let s = '';
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0; // xorshift32
    s += alphabet[x % alphabet.length];
  }
  return s;
}
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const PEM_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC';
const GCP_JSON = JSON.stringify({ type: 'service_account', project_id: 'p', private_key_id: rnd(40, HEX), private_key: `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----\n`, client_email: 'a@p.iam.gserviceaccount.com' });

/** [kind, text, secret part that must not survive redaction (defaults to the whole text)] */
const POSITIVES: Array<[string, string, string?]> = [
  // The original corpus.
  ['pem-private-key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow...'],
  ['pem-private-key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
  ['aws-access-key-id', 'key AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE'],
  ['github-token', 'ghp_' + 'a'.repeat(36)],
  // toolcat's own API keys (issue 19 red team: one reached an upstream inside a tracestate member).
  ['toolcat-api-key', 'tracestate k=tc_3aVyiW1REOG3jr1_W1FwXvIHjtbmoWPlDAak-brx31M', 'tc_3aVyiW1REOG3jr1_W1FwXvIHjtbmoWPlDAak-brx31M'],
  ['github-token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
  ['gitlab-token', 'glpat-abcdefghijklmnopqrst'],
  ['slack-token', 'xoxb-1234567890-abcdefghij'],
  ['slack-webhook', 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX', 'T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX'],
  ['stripe-key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ['openai-style-key', 'sk-proj-abcdefghijklmnopqrstuvwxyz012345'],
  ['google-api-key', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['bearer-value', 'Authorization: Bearer abcdef0123456789abcdef', 'abcdef0123456789abcdef'],
  ['basic-auth-value', 'Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==', 'dXNlcjpwYXNzd29yZDEyMw=='],
  ['url-userinfo', 'postgres://admin:s3cretpass@db.internal:5432/app', 's3cretpass'],
  ['url-secret-parameter', 'https://api.example.com/v1?api_key=abcd1234efgh5678', 'abcd1234efgh5678'],
  ['assigned-secret', 'password=hunter2hunter2', 'hunter2hunter2'],
  ['assigned-secret', 'client_secret: "abcdefgh12345"', 'abcdefgh12345'],
  // PEM bodies go with their header, also inside JSON (GCP service-account files).
  ['pem-private-key', `-----BEGIN EC PRIVATE KEY-----\n${PEM_BODY}\n-----END EC PRIVATE KEY-----`],
  ['pem-private-key', `key: -----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n${PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY----- ok`, PEM_BODY],
  ['pem-private-key', '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF'],
  ['gcp-service-account-key', GCP_JSON, PEM_BODY],
  ['pem-private-key', GCP_JSON, PEM_BODY],
  // Cloud.
  ['aws-access-key-id', 'aws_access_key_id = ASIAY34FZKBOKMUTVV7A', 'ASIAY34FZKBOKMUTVV7A'],
  ['aws-secret-access-key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['aws-secret-access-key', `{"SecretAccessKey": "${rnd(40, B64)}"}`, rnd(40, B64)],
  ['azure-storage-key', `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${rnd(86, B64)}==;EndpointSuffix=core.windows.net`, rnd(86, B64)],
  ['azure-storage-key', `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${rnd(43, B64)}=`, rnd(43, B64)],
  ['url-secret-parameter', 'https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&se=2030-01-01&sig=AbCdEf0123456789%2BXyZ%3D', 'AbCdEf0123456789'],
  ['azure-client-secret', `Abc8Q~${rnd(34, URLSAFE.replace('-', '.'))}`],
  ['google-oauth-token', `ya29.${rnd(60, URLSAFE)}`],
  ['google-oauth-token', `client secret GOCSPX-${rnd(28, URLSAFE)}`, rnd(28, URLSAFE)],
  // SaaS tokens.
  ['github-token', `gho_${rnd(36)}`],
  ['github-token', `ghs_${rnd(36)}`],
  ['gitlab-token', `glrt-${rnd(20)}`],
  ['gitlab-token', `gldt-${rnd(24)}`],
  ['slack-token', `xoxp-1234567890-1234567890-${rnd(24)}`],
  ['slack-token', `xapp-1-A0123456789-1234567890123-${rnd(32, HEX)}`],
  ['slack-token', `xoxe.xoxp-1-${rnd(40)}`, rnd(40)],
  ['slack-webhook', `https://hooks.slack.com/workflows/T000/A000/1234/${rnd(24)}`, rnd(24)],
  ['discord-webhook', `https://discord.com/api/webhooks/123456789012345678/${rnd(68, URLSAFE)}`, rnd(68, URLSAFE)],
  ['stripe-key', `rk_live_${rnd(24)}`],
  ['stripe-key', `whsec_${rnd(32)}`],
  ['openai-style-key', `sk-svcacct-${rnd(60, URLSAFE)}`],
  ['openai-style-key', `OPENAI_API_KEY=sk-${rnd(48)}`, rnd(48)],
  ['anthropic-key', `sk-ant-api03-${rnd(93, URLSAFE)}AA`],
  ['npm-token', `npm_${rnd(36)}`],
  ['pypi-token', `pypi-AgEIcHlwaS5vcmc${rnd(60, URLSAFE)}`],
  ['huggingface-token', `hf_${rnd(34)}`],
  ['twilio-api-key', `SK${rnd(32, HEX)}`],
  ['sendgrid-key', `SG.${rnd(22, URLSAFE)}.${rnd(43, URLSAFE)}`],
  ['mailchimp-key', `${rnd(32, HEX)}-us14`],
  ['digitalocean-token', `dop_v1_${rnd(64, HEX)}`],
  ['jwt', 'token eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL2lkcCJ9.c2lnbmF0dXJlX2J5dGVzX2hlcmVfb2s', 'c2lnbmF0dXJlX2J5dGVzX2hlcmVfb2s'],
  // Header values, URLs.
  ['bearer-value', `authorization: bearer ${rnd(40, URLSAFE)}`, rnd(40, URLSAFE)],
  ['url-userinfo', 'mongodb+srv://app:Zx9pw1q7@cluster0.mongodb.net/db', 'Zx9pw1q7'],
  ['url-userinfo', 'redis://:s3cretpass@cache:6379/0', 's3cretpass'],
  ['url-secret-parameter', `https://gitlab.example.com/api/v4/projects?private_token=${rnd(20)}`, rnd(20)],
  ['url-secret-parameter', `https://s3.amazonaws.com/b/k?X-Amz-Signature=${rnd(64, HEX)}`, rnd(64, HEX)],
  ['url-secret-parameter', `https://example.com/cb#x?access_token=${rnd(30)}&state=1`, rnd(30)],
  // Assignments: any non-placeholder value under a password-like name; random values under token-like names.
  ['assigned-secret', 'DB_PASSWORD=hunter2hunter2', 'hunter2hunter2'],
  ['assigned-secret', 'spring.datasource.password: s3cr3t!pass', 's3cr3t!pass'],
  ['assigned-secret', '{"password": "letmeinplease"}', 'letmeinplease'],
  ['assigned-secret', "export API_KEY='q8Xk2LmP9zR4'", 'q8Xk2LmP9zR4'],
  ['assigned-secret', 'secret := "abc12345xyz"', 'abc12345xyz'],
  ['assigned-secret', 'password=changeme', 'changeme'],
  ['high-entropy-secret', `"access_token": "${rnd(32, HEX)}"`, rnd(32, HEX)],
  ['high-entropy-secret', 'X-Auth-Token: 7c9e6679-7425-40de-944b-e07fc1f90ae7', '7c9e6679-7425-40de-944b-e07fc1f90ae7'],
  ['high-entropy-secret', `TWILIO_AUTH_TOKEN=${rnd(32, HEX)}`, rnd(32, HEX)],
  ['high-entropy-secret', '//registry.npmjs.org/:_authToken=7c9e6679-7425-40de-944b-e07fc1f90ae7', '7c9e6679-7425-40de-944b-e07fc1f90ae7'],
  ['high-entropy-secret', `sessionToken="${rnd(120, B64)}"`, rnd(120, B64)],
  ['high-entropy-secret', `{"refreshToken":"${rnd(40, URLSAFE)}"}`, rnd(40, URLSAFE)],
];

// Issue 11: glued, encoded and prefix-less forms. Keys are generated here (never stored in the repository).
const GHP = `ghp_${rnd(36, undefined, 1101)}`;
const AKIA = `AKIA${rnd(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 1102).replace(/^(.)/, '7')}`;
const der = (k: ReturnType<typeof generateKeyPairSync>['privateKey'], type: 'pkcs8' | 'pkcs1' | 'sec1', cipher?: string) =>
  k.export({ type, format: 'der', ...(cipher ? { cipher, passphrase: 'pw' } : {}) } as never).toString('base64');
const EC = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const RSA_PKCS1 = der(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, 'pkcs1');
const PEM_BODIES: Array<[string, string]> = [
  ['EC PKCS#8', der(EC, 'pkcs8')],
  ['EC SEC1', der(EC, 'sec1')],
  ['encrypted PKCS#8', der(EC, 'pkcs8', 'aes-256-cbc')],
  ['Ed25519 PKCS#8', der(generateKeyPairSync('ed25519').privateKey, 'pkcs8')],
];
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzK9mP2qR7s';
const pct = (t: string) => [...Buffer.from(t)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
POSITIVES.push(
  ['github-token', `use x${GHP} here`, GHP],
  ['aws-access-key-id', `id1${AKIA}`, AKIA],
  ['aws-access-key-id', `backup_${AKIA}_2024`, AKIA],
  ['aws-access-key-id', `${AKIA}XYZ`, AKIA],
  ['stripe-key', `mysk_live_${rnd(24, undefined, 1103)}`, rnd(24, undefined, 1103)],
  ['slack-token', 'tokenxoxb-1234567890-abcdefghij', 'xoxb-1234567890-abcdefghij'],
  ['jwt', 'tokeneyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'dozjgNryP4J3jVmNHl0w5N'],
  ['sendgrid-key', `backup_SG.${rnd(22, URLSAFE, 1104)}.${rnd(43, URLSAFE, 1105)}_2024`, rnd(43, URLSAFE, 1105)],
  ['github-token', `a ${pct(GHP)} b`, GHP.slice(4)],
  ['github-token', `a ${pct(pct(GHP))} b`, pct(GHP.slice(4, 20))],
  ['github-token', GHP.replace('_', '%5F'), GHP.slice(4)],
  ['github-token', `k ${Buffer.from(`GITHUB_TOKEN=${GHP}`).toString('base64')} k`, Buffer.from(`GITHUB_TOKEN=${GHP}`).toString('base64').slice(8, 40)],
  ['github-token', `k x${Buffer.from(GHP).toString('base64url')} k`, Buffer.from(GHP).toString('base64url').slice(8)],
  ['github-token', `k ${Buffer.from(Buffer.from(GHP).toString('base64')).toString('base64')} k`, Buffer.from(GHP).toString('base64').slice(8, 30)],
  ['github-token', `k ${Buffer.from(GHP).toString('hex')} k`, Buffer.from(GHP).toString('hex').slice(8)],
  ['github-token', `k ${[...GHP].reverse().join('')} k`, [...GHP.slice(4)].reverse().join('')],
  ['github-token', `k ${GHP.replace(/(.{3})/g, '$1\u200b')} k`, GHP.slice(4, 7)],
  ['github-token', `k ${GHP.replace(/(.{4})/g, '$1\u00ad').replace(/(.{9})/g, '$1\u2060\ufeff')} k`, GHP.slice(8, 12)],
  ['github-token', `k ${GHP.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))} k`, String.fromCharCode(GHP.charCodeAt(10) + 0xfee0)],
  ['github-token', `token = "${GHP.slice(0, 20)}" + "${GHP.slice(20)}"`, GHP.slice(20)],
  ['github-token', [...GHP].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''), '\\u0067'],
  ['github-token', [...GHP].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''), '&#x67;'],
  ['aws-secret-access-key', `key ${AWS_SECRET} here`, AWS_SECRET],
  ['aws-secret-access-key', `{"aws_key": "${AWS_SECRET}"}`, AWS_SECRET],
  ...PEM_BODIES.map(([label, body]): [string, string, string] => ['pem-private-key', `${label}: ${body.replace(/(.{64})/g, '$1\n')}\nend`, body.slice(-20)]),
  ['pem-private-key', `key: "${RSA_PKCS1.replace(/(.{64})/g, '$1\\n')}"`, RSA_PKCS1.slice(300, 330)],
  ['pem-private-key', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDcVfxQpVPXJ+ohXa1cH+KQhr1ahXQI5KgW3FwPg8mE4wAAAJg=', 'QyNTUxOQAAACDcVfxQpVPXJ'],
  ['url-userinfo', 'postgres://admin:p@ss@db.internal/app', 'p@ss'],
  ['url-userinfo', 'redis://default:s3cr3t@with@at@cache:6379/0', 's3cr3t@with@at'],
  ['shopify-token', `shpat_${rnd(32, HEX, 1106)}`],
  ['linear-api-key', `lin_api_${rnd(40, undefined, 1107)}`],
  ['notion-api-token', `ntn_${rnd(11, '0123456789', 1108)}${rnd(35, undefined, 1109)}`],
  ['vault-token', `hvs.${rnd(96, URLSAFE, 1110)}`],
  ['telegram-bot-token', `bot 123456789:AA${rnd(33, URLSAFE, 1111)} ok`, rnd(33, URLSAFE, 1111)],
  ['age-secret-key', `AGE-SECRET-KEY-1${rnd(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 1112)}`],
);

const NEGATIVES = [
  // The original corpus.
  'Use a Bearer token from your settings page.',
  'The password field must be at least 8 characters.',
  'https://example.com/docs?page=2&sort=asc',
  'https://user@example.com/path',
  'sk-short',
  'The key AKIA is a prefix used by AWS.',
  'eyJ is how base64 JSON starts',
  'Returns a token that expires in one hour.',
  'api_key: the key to use (see docs)',
  'ghp_ tokens are GitHub personal access tokens',
  'ssh://git@github.com/org/repo.git',
  'Basic usage: call it with a query.',
  // Prefix look-alikes.
  'Wraps sk-learn-compatible-estimators-and-pipelines for tabular data.',
  'The task-force-assignment-tracker syncs tickets.',
  'ghp_short, xoxb-short, AIzaShort, glpat-short, npm_short, hf_short',
  // `tc_` inside a long snake_case identifier is not a key.
  'Reads etc_configuration_files_from_the_system_directory_for_the_app.',
  'SKU1234 and SKIP-THIS-ONE',
  '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----',
  '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa',
  // Twilio account SIDs identify, they do not authenticate (decision: not a credential).
  `Account AC${rnd(32, HEX)} sends the message.`,
  // Identifiers under non-secret names: UUIDs, commit SHAs, integrity hashes.
  '"id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301"',
  'request_id=7c9e6679-7425-40de-944b-e07fc1f90ae7',
  `commit: ${rnd(40, HEX)}`,
  `"integrity": "sha512-${rnd(86, B64)}=="`,
  'etag: "W/\\"5f8d0e7a1c2b3d4e\\""',
  // Placeholders (decision: not credentials).
  'api_key: YOUR_API_KEY',
  'Authorization: Bearer ${ACCESS_TOKEN}',
  'Authorization: Bearer <token>',
  'password=<password>',
  'password: ********',
  'token=xxxxxxxxxxxxxxxxxxxxxxxx',
  'DB_PASSWORD=${DB_PASSWORD}',
  'client_secret: {{ client_secret }}',
  '"apiKey": "your-api-key-here"',
  'postgres://user:<password>@localhost:5432/db',
  'postgres://${PGUSER}:${PGPASSWORD}@db/app',
  'https://api.example.com/v1?api_key=YOUR_API_KEY',
  'secret=[redacted] and Bearer [redacted]',
  // Prose and names that only look like assignments.
  'password: required',
  'max_tokens: 4096000000000000 and token_count=12345678901234567',
  'secretName: my-app-config-name',
  '"tokenizer": "cl100k_base_tokenizer_v2"',
  'Bearer authentication-scheme-description',
  'Basic dGhpcyBpcyBub3QgYSBwYWlyIGF0IGFsbA==',
  'http://[::1]:8080/path and https://example.com:8443/a@b',
  'https://example.com/search?q=token&page=2&key=value',
  'Passwords must contain: uppercase, lowercase, digits.',
  'The default password is changeme.',
  // Issue 11 near misses: public keys and certificates without their headers, glued look-alikes, decodable prose.
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQAB',
  'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0',
  'MCowBQYDK2VwAyEAlEKmTi86vnVnv++5NLt+T/1vxcywMWyNuGwTT7ebPOk=',
  'mask_test_environmentsuitex and the risk-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d model',
  'Regions: EASTASIAPACIFICDATACENTERS, NORTHAMERICA',
  'Encoded greeting: dGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxs (base64) and 68656c6c6f20776f726c642c2068656c6c6f (hex).',
  `sha256 ${rnd(64, HEX, 1113)} and ${rnd(44, B64, 1114)}`,
  'modelcontextprotocol/Servers/v2/README1 and getUserAccountSettingsForOrganization2024',
  '.desrever si ecnetnes sihT and ｈｅｌｌｏ　ｗｏｒｌｄ (fullwidth)',
  'https://example.com/search?q=hello%20world%21&page=2 and https://user@example.com:8443/a@b',
  'contact: admin@example.com, ops@example.com; "a" + "b" + "c"',
  'Use the ntn_ prefix, hvs. tokens, pplx- keys, shpat_ tokens and lin_api_ keys.',
];

describe(findCredentialKinds.name, () => {
  for (const [kind, text, secret] of POSITIVES) {
    it(`finds ${kind} in ${JSON.stringify(text.slice(0, 48))}`, () => {
      expect(findCredentialKinds(text)).to.include(kind);
      expect(containsCredential(text)).to.equal(true);
      const redacted = redactCredentials(text);
      expect(findCredentialKinds(redacted), 'redaction removes it').to.deep.equal([]);
      expect(redacted).to.include('[redacted]');
      expect(redacted, 'the secret part is gone').not.to.include(secret ?? text);
    });
  }
  for (const text of NEGATIVES) {
    it(`does not flag the near miss ${JSON.stringify(text.slice(0, 60))}`, () => {
      expect(findCredentialKinds(text)).to.deep.equal([]);
      expect(containsCredential(text)).to.equal(false);
      expect(redactCredentials(text)).to.equal(text);
    });
  }

  it('keeps the text around a redaction and only removes the value where a name or scheme precedes it', () => {
    expect(redactCredentials('a password=hunter2hunter2 b')).to.equal('a password=[redacted] b');
    expect(redactCredentials('see postgres://admin:s3cretpass@db/x now')).to.equal('see postgres://[redacted]@db/x now');
    expect(redactCredentials(`one ghp_${rnd(36)} two xoxb-1234567890-abcdefghij three`)).to.equal('one [redacted] two [redacted] three');
  });

  it('keeps a GCP service-account file valid JSON, with the key material gone', () => {
    const redacted = JSON.parse(redactCredentials(GCP_JSON)) as Record<string, string>;
    expect(redacted.private_key).to.equal('[redacted]');
    expect(redacted.private_key_id).to.equal('[redacted]');
    expect(redacted.client_email).to.equal('a@p.iam.gserviceaccount.com');
  });

  it('reads all of a long text (a credential past 64 KiB is still found)', () => {
    const text = `${'lorem ipsum '.repeat(10_000)} ghp_${rnd(36)}`;
    expect(text.length).to.be.greaterThan(100_000);
    expect(findCredentialKinds(text)).to.deep.equal(['github-token']);
    expect(redactCredentials(text)).not.to.include('ghp_');
  });

  it('redaction always yields credential-free text and is idempotent, whatever the mix (property)', () => {
    const pieces = [...POSITIVES.map((p) => p[1]), ...NEGATIVES, ' ', '=', ':', '"', '\n', 'password', '://', '@', '?token=', 'Bearer ', '-----END PRIVATE KEY-----'];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 12 })), { maxLength: 12 }), (parts) => {
        const redacted = redactCredentials(parts.join(''));
        expect(findCredentialKinds(redacted)).to.deep.equal([]);
        expect(redactCredentials(redacted)).to.equal(redacted);
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  it('scans hostile 1 MiB inputs in linear time (no catastrophic backtracking)', function () {
    // No wall-clock assertion (a loaded CI machine is slow, not wrong): quadratic behaviour on 1 MiB takes minutes per
    // input, far past this bound, while linear takes tens of milliseconds. The bounded work of the decoders is
    // counted, not timed, in the next describe.
    this.timeout(60_000);
    const MiB = 1 << 20;
    const fill = (s: string) => s.repeat(Math.ceil(MiB / s.length)).slice(0, MiB);
    const hostile = ['a', 'a.', 'a-', 'eyJa-', 'eyJa.', 'sk-', '://a:', '-----BEGIN PRIVATE KEY-----', 'password=', 'AccountKey=' + 'a'.repeat(20), '?token=' + 'aB3'.repeat(7), '"a": "', 'Bearer ' + 'a1'.repeat(9) + ' ',
      // Issue 11: headerless PEM bodies, glued prefixes, URL authorities with many '@', escapes, invisibles.
      'MIIEvQIBADANBgkq ', 'b3BlbnNzaC1rZXktdjE\n', 'xghp_', 'AKIA', 'a://b:c@', '%25', 'a\u200b', 'ｇ', 'eyJ' + 'a'.repeat(70)];
    for (const h of hostile) {
      const s = fill(h);
      expect(findCredentialKinds(s), `${JSON.stringify(h)} repeated to 1 MiB`).to.be.an('array');
      expect(redactCredentials(s)).to.be.a('string');
    }
  });
});

describe('decoding before matching: bounded work on hostile input (issue 11)', () => {
  const MiB = 1 << 20;
  const fill = (t: string) => t.repeat(Math.ceil(MiB / t.length)).slice(0, MiB);
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  const prose = fill('lorem ipsum dolor sit amet, ');
  const base32 = (t: string) => {
    const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const bits = [...Buffer.from(t)].map((x) => x.toString(2).padStart(8, '0')).join('');
    let out = '';
    for (let i = 0; i < bits.length; i += 5) out += A[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
    return out;
  };
  const hostile: Array<[string, string]> = [
    ['base64 of prose', b64(prose).slice(0, MiB)],
    ['base64 of base64 of base64 of prose', b64(b64(b64(prose))).slice(0, MiB)],
    ['hex of prose', Buffer.from(prose).toString('hex').slice(0, MiB)],
    ['many short printable base64 runs', fill(`${b64('lorem ipsum dolor sit')} `)],
    ['many short misaligned base64 runs', fill(`${rnd(21, B64, 1201)} `)],
    ['binary base64', fill(rnd(4096, B64, 1202))],
    ['percent-encoded invisibles', fill('%41%e2%80%8b')],
    ['fullwidth', fill('ｇｈｐ＿ａ')],
    ['expanding compatibility characters', fill('\ufdfa\u3371')],
    ['zero-width interleaved', fill('a\u200b')],
    ['character references', fill('&#x67;&#104;')],
    ['quoted concatenation', fill('"a" + "b" + ')],
    // Issue 11 red team: the views added for F7 (separated hex, base32, base64 backwards, look-alikes, joins,
    // ROT13, degrouping, repeated unescaping).
    ['hex bytes with colons of prose', [...Buffer.from(prose.slice(0, MiB / 3))].map((b) => b.toString(16).padStart(2, '0')).join(':').slice(0, MiB)],
    ['0x byte array of prose', [...Buffer.from(prose.slice(0, MiB / 5))].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(',').slice(0, MiB)],
    ['base32 of prose', base32(prose).slice(0, MiB)],
    ['base32-alphabet noise', fill(rnd(4096, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 1401))],
    ['many short base32-alphabet runs', fill(`${rnd(24, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 1404)} `)],
    ['base64 of prose written backwards', [...b64(prose)].reverse().join('').slice(0, MiB)],
    ['random chunks split by dashes', fill(`${rnd(6, undefined, 1402)}-`)],
    ['random letters spelled out', fill(`${rnd(64, undefined, 1403).split('').join(' ')} `)],
    ['quoted pieces with commas', fill('"ab","cd",')],
    ['deep percent-encoding', fill('%252525')],
    ['Cyrillic prose', fill('раскрытие данных ')],
    ['ROT13 prefixes', fill('tuc_ nxvn yberz ')],
  ];
  for (const [label, text] of hostile) {
    it(`${label} (1 MiB): a bounded amount of decoding, views and attempts`, () => {
      expect(containsCredential(text)).to.equal(false);
      const w = lastDecodeWork();
      // The bounds of credential-decode.ts: views at most 4x a level's input, at most 4 levels, 6 attempts per 20-character run (10 per 24).
      expect(w.attempts, 'decode attempts').to.be.at.most(text.length / 2);
      expect(w.bytes, 'decoded bytes').to.be.at.most(4 * text.length);
      expect(w.viewChars, 'characters of all views').to.be.at.most(16 * text.length);
      expect(redactCredentials(text)).to.equal(text);
    });
  }

  it('still reads all of it: a token encoded after 1 MiB of base64 noise is found', () => {
    const text = `${fill(`${rnd(21, B64, 1203)} `)} ${b64(`token=${GHP}`)}`;
    expect(findCredentialKinds(text)).to.include('github-token');
    expect(redactCredentials(text)).not.to.include(b64(`token=${GHP}`));
  });
});

describe('placeholders, randomness and secret-like names', () => {
  it('treats placeholders as non-credentials', () => {
    for (const v of ['YOUR_API_KEY', '<token>', '${TOKEN}', '{{ secret }}', '$API_KEY', 'xxxx', '********', '[redacted]', 'your-token-here', '%s', 'required', ''])
      expect(isPlaceholderValue(v), v).to.equal(true);
    for (const v of ['changeme', 'hunter2hunter2', 'password', rnd(32)]) expect(isPlaceholderValue(v), v).to.equal(false);
  });

  it('measures entropy and randomness', () => {
    expect(shannonEntropy('aaaa')).to.equal(0);
    expect(shannonEntropy('abcd')).to.equal(2);
    expect(looksRandom(rnd(32))).to.equal(true);
    expect(looksRandom(rnd(40, HEX))).to.equal(true);
    expect(looksRandom('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).to.equal(true);
    expect(looksRandom(rnd(32, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')), 'letters only').to.equal(true);
    for (const v of ['configuration_value_for_service', 'ThisIsAnOrdinaryCamelCaseName', 'aaaaaaaaaaaaaaaa1', 'short1', 'abababababababababab12']) expect(looksRandom(v), v).to.equal(false);
  });

  const names: Array<[string, boolean]> = [
    ['apiKey', true], ['API_KEY', true], ['x-api-key', true], ['password', true], ['DB_PASSWORD', true], ['clientSecret', true],
    ['accessToken', true], ['aws_secret_access_key', true], ['connectionString', true], ['Authorization', true], ['credentials', true],
    ['bypass', false], ['secretName', false], ['max_tokens', false], ['tokenType', false], ['passwordMinLength', false], ['compass', false], ['keyboard', false],
    // Issue 11: a camelCase hump inside the word, and plurals of the strong (password/key-like) names only.
    ['passWord', true], ['PassWord', true], ['db_password', true], ['passwords', true], ['PASSWORDS', true], ['apiKeys', true], ['secrets', true],
    ['tokens', false], ['auths', false], ['passwordPolicy', false], ['bypasses', false], ['auth_type', false],
  ];
  for (const [name, secret] of names) it(`SECRET_LIKE_NAME: ${name} → ${secret}`, () => expect(SECRET_LIKE_NAME.test(name)).to.equal(secret));

  it('isSecretLikeLiteral: a non-trivial, non-placeholder literal under a secret-like name', () => {
    expect(isSecretLikeLiteral('password', 'opensesame1')).to.equal(true);
    expect(isSecretLikeLiteral('apiKey', 'changeme')).to.equal(true);
    expect(isSecretLikeLiteral('pin_password', 12345678)).to.equal(true);
    expect(isSecretLikeLiteral('password', 'abc')).to.equal(false);
    expect(isSecretLikeLiteral('apiKey', 'YOUR_API_KEY')).to.equal(false);
    expect(isSecretLikeLiteral('apiKey', '<api key>')).to.equal(false);
    expect(isSecretLikeLiteral('name', 'hunter2hunter2')).to.equal(false);
    expect(isSecretLikeLiteral('token', { nested: 'object' })).to.equal(false);
  });

  it('isSecretLikeConstraint: any literal under a password/key-like name, only a random one under a token/auth-like name', () => {
    expect(isSecretLikeConstraint('password', 'letmeinplease')).to.equal(true);
    expect(isSecretLikeConstraint('passWord', 'hunter2hunter2')).to.equal(true);
    expect(isSecretLikeConstraint('db_password', 12345678)).to.equal(true);
    expect(isSecretLikeConstraint('token', rnd(32, undefined, 1204))).to.equal(true);
    expect(isSecretLikeConstraint('password', '<password>')).to.equal(false);
    expect(isSecretLikeConstraint('password', 'abc')).to.equal(false);
    for (const v of ['none', 'basic', 'oauth2', 'bearer', 'client_credentials']) expect(isSecretLikeConstraint('auth', v), v).to.equal(false);
    expect(isSecretLikeConstraint('auth_type', rnd(32, undefined, 1205)), 'not a secret-like name').to.equal(false);
  });
});

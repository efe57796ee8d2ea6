/**
 * Pins credential detection (TC-DESC-4, issue 5): a corpus of credential shapes (positives) that must be found
 * and fully redacted, look-alikes that must pass (near-miss negatives), the placeholder decision, the
 * secret-like name rules, and linear time on hostile megabyte inputs.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  SECRET_LIKE_NAME, containsCredential, findCredentialKinds, isPlaceholderValue, isSecretLikeLiteral, looksRandom, redactCredentials, shannonEntropy,
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
    this.timeout(20_000);
    const MiB = 1 << 20;
    const fill = (s: string) => s.repeat(Math.ceil(MiB / s.length)).slice(0, MiB);
    const hostile = ['a', 'a.', 'a-', 'eyJa-', 'eyJa.', 'sk-', '://a:', '-----BEGIN PRIVATE KEY-----', 'password=', 'AccountKey=' + 'a'.repeat(20), '?token=' + 'aB3'.repeat(7), '"a": "', 'Bearer ' + 'a1'.repeat(9) + ' '];
    for (const h of hostile) {
      const s = fill(h);
      const started = process.hrtime.bigint();
      findCredentialKinds(s);
      redactCredentials(s);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Quadratic behaviour on 1 MiB takes minutes; linear takes tens of milliseconds. The bound leaves room for slow CI.
      expect(ms, `${JSON.stringify(h)} repeated to 1 MiB`).to.be.lessThan(1500);
    }
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
});

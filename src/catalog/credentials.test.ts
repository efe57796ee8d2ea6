/** A corpus of credential shapes (positives) and look-alikes that must pass (near-miss negatives). */
import { expect } from 'chai';
import { findCredentialKinds, redactCredentials } from './credentials';

const POSITIVES: Array<[string, string]> = [
  ['pem-private-key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow...'],
  ['pem-private-key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
  ['aws-access-key-id', 'key AKIAIOSFODNN7EXAMPLE here'],
  ['github-token', 'ghp_' + 'a'.repeat(36)],
  ['github-token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
  ['gitlab-token', 'glpat-abcdefghijklmnopqrst'],
  ['slack-token', 'xoxb-1234567890-abcdefghij'],
  ['slack-webhook', 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX'],
  ['stripe-key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ['openai-style-key', 'sk-proj-abcdefghijklmnopqrstuvwxyz012345'],
  ['google-api-key', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['bearer-value', 'Authorization: Bearer abcdef0123456789abcdef'],
  ['basic-auth-value', 'Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=='],
  ['url-userinfo', 'postgres://admin:s3cretpass@db.internal:5432/app'],
  ['url-secret-parameter', 'https://api.example.com/v1?api_key=abcd1234efgh5678'],
  ['assigned-secret', 'password=hunter2hunter2'],
  ['assigned-secret', 'client_secret: "abcdefgh12345"'],
];

const NEGATIVES = [
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
];

describe(findCredentialKinds.name, () => {
  for (const [kind, text] of POSITIVES) {
    it(`finds ${kind} in ${JSON.stringify(text.slice(0, 40))}`, () => {
      expect(findCredentialKinds(text)).to.include(kind);
      expect(findCredentialKinds(redactCredentials(text)), 'redaction removes it').to.deep.equal([]);
    });
  }
  for (const text of NEGATIVES) {
    it(`does not flag the near miss ${JSON.stringify(text)}`, () => expect(findCredentialKinds(text)).to.deep.equal([]));
  }
  it('is bounded on huge input', () => {
    const huge = 'a'.repeat(5_000_000);
    expect(findCredentialKinds(huge)).to.deep.equal([]);
  });
});

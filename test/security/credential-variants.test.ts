/**
 * Issue 11, defect 2 ("Credentials survive into descriptors"): one test per variant class the issue names, each
 * through the real path of an MCP listing (buildSnapshot → gate → withDecision → serialized views). A variant
 * passes when the tool is refused, or is served with a finding and none of the credential recoverable from the
 * served bytes (test/security/credential-forms.ts decodes them independently). The far side is pinned too:
 * secret-like names whose enum values are vocabulary, and placeholders, are served unchanged.
 */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { AWS_SECRET, CORPUS_SEED, leakIn, rnd, serve } from './credential-forms';

const TITLE = 'issue 11 defect 2: credentials survive into descriptors —';
const GHP = `ghp_${rnd(36, undefined, 101)}`;
const AKIA = `AKIA${rnd(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 102)}`;
const STRIPE = `sk_live_${rnd(24, undefined, 103)}`;
const tool = (extra: Record<string, unknown>) => ({ name: 'probe', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, ...extra });
const schemaTool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'probe', inputSchema: { type: 'object', properties, ...extra } });
const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const rsaBody = () => generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'der' }).toString('base64');

type Expect = 'refused' | 'removed' | 'redacted';
interface Variant {
  readonly label: string;
  readonly raw: () => Record<string, unknown>;
  /** A part of the secret that must not be recoverable from any served view. */
  readonly core: string;
  /** The text as placed (must not be served as is either). */
  readonly placed: string;
  readonly expect: Expect;
}

const v = (label: string, expectOutcome: Expect, core: string, placed: string, raw: () => Record<string, unknown>): Variant => ({ label, expect: expectOutcome, core, placed, raw });
const d = (label: string, placed: string, core: string) => v(label, 'redacted', core, placed, () => tool({ description: `Connects the client. ${placed} is used for it.` }));
const PASS = `Hunter2-${rnd(10, undefined, 104)}`;
const PASS_CORE = PASS.slice(8);
const PEM_LINES = (() => {
  const b = rsaBody();
  return { body: b.replace(/(.{64})/g, '$1\n'), core: b.slice(400, 424) };
})();

const VARIANTS: Variant[] = [
  // Tokens glued to a preceding letter, digit or '_'.
  d('a GitHub token glued to a preceding letter ("use xghp_…")', `use x${GHP}`, GHP.slice(20, 32)),
  d('an AWS key id glued to a preceding digit ("id1AKIA…")', `id1${AKIA}`, AKIA.slice(6, 18)),
  d('an AWS key id between underscores ("backup_AKIA…_2024")', `backup_${AKIA}_2024`, AKIA.slice(6, 18)),
  d('a Stripe live key glued to a preceding word', `mysk${STRIPE.slice(2)}`, STRIPE.slice(12, 24)),
  v('a GitHub token glued to a letter in the title', 'redacted', GHP.slice(20, 32), `tokenx${GHP}`, () => tool({ title: `Probe tokenx${GHP}` })),
  // Encoded forms.
  d('a percent-encoded token', pct(GHP), GHP.slice(20, 32)),
  d('a token with only its underscore percent-encoded', GHP.replace('_', '%5F'), GHP.slice(20, 32)),
  d('a base64-wrapped NAME=token ("R0lUSFVCX1RPS0VOPWdocF8…")', Buffer.from(`GITHUB_TOKEN=${GHP}`).toString('base64'), GHP.slice(20, 32)),
  d('a base64url-wrapped token', Buffer.from(`token: ${STRIPE}`).toString('base64url'), STRIPE.slice(12, 24)),
  d('a hex-encoded token', Buffer.from(GHP).toString('hex'), GHP.slice(20, 32)),
  d('a reversed token', [...GHP].reverse().join(''), [...GHP.slice(20, 32)].reverse().join('')),
  d('a zero-width-space-split token', GHP.replace(/(.{3})/g, '$1\u200b'), GHP.slice(20, 32)),
  d('a token split by soft hyphens and word joiners', GHP.replace(/(.{4})/g, '$1\u00ad').replace(/(.{9})/g, '$1\u2060'), GHP.slice(20, 32)),
  d('a fullwidth token', fullwidth(GHP), GHP.slice(20, 32)),
  // Shapes without a prefix.
  d('a bare AWS secret access key', AWS_SECRET, AWS_SECRET.slice(14, 26)),
  v('a PEM body without its header (multi-line RSA key)', 'redacted', PEM_LINES.core, PEM_LINES.body.slice(0, 64), () => tool({ description: `Key material:\n${PEM_LINES.body}\nKeep it safe.` })),
  d('a URL whose password holds "@" ("postgres://admin:p@ss@db.internal")', `postgres://admin:${PASS.replace('-', '@')}@db.internal/app`, PASS_CORE),
  // Literals under secret-like names that the README says are removed, or that make the tool refused.
  v('a default inside draft-07 dependencies (schema form)', 'removed', PASS_CORE, PASS, () =>
    schemaTool({ mode: { type: 'string' } }, { dependencies: { mode: { properties: { password: { type: 'string', default: PASS } } } } })),
  v('an x-example under password', 'removed', PASS_CORE, PASS, () => schemaTool({ password: { type: 'string', 'x-example': PASS } })),
  v('an x-default under api_key', 'removed', PASS_CORE, PASS, () => schemaTool({ api_key: { type: 'string', 'x-default': PASS } })),
  v('a default under passWord (camelCase inside the word)', 'removed', PASS_CORE, PASS, () => schemaTool({ passWord: { type: 'string', default: PASS } })),
  v('an array default under passwords', 'removed', PASS_CORE, PASS, () => schemaTool({ passwords: { type: 'array', items: { type: 'string' }, default: [PASS, 'x'] } })),
  v('a const under password', 'refused', PASS_CORE, PASS, () => schemaTool({ password: { type: 'string', const: PASS } })),
  v('an enum under db_password', 'refused', PASS_CORE, PASS, () => schemaTool({ db_password: { type: 'string', enum: [PASS, 'other-one-2'] } })),
  v('a oneOf[].const under password', 'refused', PASS_CORE, PASS, () => schemaTool({ password: { oneOf: [{ const: PASS }, { const: 'n0t-this-one' }] } })),
  v('a const under passWord', 'refused', PASS_CORE, PASS, () => schemaTool({ passWord: { type: 'string', const: PASS } })),
  v('an encoded token in an x-* key of a neutral property', 'removed', GHP.slice(20, 32), pct(GHP), () => schemaTool({ q: { type: 'string', 'x-hint': pct(GHP) } })),
  v('a base64 token as a neutral default', 'removed', GHP.slice(20, 32), Buffer.from(GHP).toString('base64'), () => schemaTool({ q: { type: 'string', default: Buffer.from(GHP).toString('base64') } })),
  v('a fullwidth token as an enum value', 'refused', GHP.slice(20, 32), fullwidth(GHP), () => schemaTool({ q: { type: 'string', enum: ['a', fullwidth(GHP)] } })),
  v('a glued token in the tool name', 'refused', AKIA.slice(6, 18), `backup_${AKIA}_2024`, () => tool({ name: `backup_${AKIA}_2024` })),
];

describe(`${TITLE} each variant class (seed ${CORPUS_SEED})`, () => {
  const failed: string[] = [];
  after(() => console.log(`      credential variants: ${VARIANTS.length - failed.length} of ${VARIANTS.length} kept out of every view${failed.length ? `; failing: ${failed.join('; ')}` : ''}`));

  for (const variant of VARIANTS) {
    it(`${TITLE} ${variant.label}`, () => {
      try {
        const out = serve(variant.raw());
        const leak = leakIn(out.views, variant.core, variant.placed);
        expect(leak, 'nothing recoverable from the served views').to.equal(null);
        if (variant.expect === 'refused') {
          expect(out.refused, 'the tool is refused').to.match(/credential material/);
        } else {
          expect(out.refused, 'the tool is served').to.equal(null);
          expect(out.findings.map((f) => f.action), 'the gate reports what it did').to.include(variant.expect);
          expect(JSON.stringify(out.findings)).not.to.include(variant.core);
        }
      } catch (err) {
        failed.push(variant.label);
        throw err;
      }
    });
  }
});

describe(`${TITLE} the far side: what is not a credential stays`, () => {
  const keep = (label: string, raw: Record<string, unknown>) =>
    it(`${TITLE} ${label} is served unchanged`, () => {
      const out = serve(raw);
      expect(out.refused).to.equal(null);
      expect(out.findings).to.deep.equal([]);
      expect(JSON.parse(out.views[0]).inputSchema).to.deep.equal(raw.inputSchema);
    });
  keep('an enum of auth schemes under auth_type', schemaTool({ auth_type: { type: 'string', enum: ['none', 'basic', 'oauth', 'bearer'] } }));
  keep('an enum of auth schemes under auth (a secret-like name, vocabulary values)', schemaTool({ auth: { type: 'string', enum: ['none', 'basic', 'oauth2', 'bearer'] } }));
  keep('a placeholder const under password', schemaTool({ password: { type: 'string', const: '<password>' } }));
  keep('a placeholder x-example under apiKey', schemaTool({ apiKey: { type: 'string', 'x-example': 'YOUR_API_KEY' } }));
  keep('an array of names under dependencies (dependentRequired form)', schemaTool({ user: { type: 'string' }, password: { type: 'string' } }, { dependencies: { user: ['password'] } }));
  keep('a token-type enum under token_type', schemaTool({ token_type: { type: 'string', enum: ['access_token', 'refresh_token'] } }));
});

/**
 * Issue 11 defect 2, the red-team pass after the first fix (/work/redteam: gate-probe*.js, cred-probe.js,
 * e2e-creds.js, misc-probe.js). One test per finding, each through the real listing path (buildSnapshot → gate →
 * withDecision → serialized views, test/security/credential-forms.ts) or the exported helper the finding names,
 * with the far side pinned where a rule could over-reach.
 */
import { expect } from 'chai';
import { CatalogError } from '../../src/catalog/catalog.errors';
import { scrubCompactView } from '../../src/catalog/credential-compact-scan';
import { lastReferenceNameWork } from '../../src/catalog/credential-names';
import { type CredentialFinding, scrubSchema } from '../../src/catalog/credential-scrub';
import { redactArgs, redactJson } from '../../src/catalog/credential-redaction';
import { containsCredential, findCredentialKinds, redactCredentials } from '../../src/catalog/credentials';
import { gateTool } from '../../src/catalog/ingest';
import { leakIn, rnd, serve } from './credential-forms';

const PW = 'Sup3rS3cretPassw0rd';
const CORE = 'S3cretPassw0rd';
const GHP = `ghp_${rnd(36, undefined, 1301)}`;
const RANDOM = 'k9Fz2QmX7pL4vR8tY3wN6bH1';

const schemaTool = (inputSchema: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'probe', description: 'd', inputSchema, ...extra });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

/** Served with a removal (or redaction) and nothing recoverable; or refused for credential material. */
function expectRemoved(raw: Record<string, unknown>, core = CORE, action: 'removed' | 'redacted' = 'removed'): ReturnType<typeof serve> {
  const out = serve(raw);
  expect(out.refused, 'served').to.equal(null);
  expect(leakIn(out.views, core, core), 'nothing recoverable from the served views').to.equal(null);
  expect(out.findings.map((f) => f.action), JSON.stringify(out.findings)).to.include(action);
  return out;
}
function expectRefused(raw: Record<string, unknown>, reason: RegExp = /credential material/): void {
  const out = serve(raw);
  expect(out.refused, 'refused').to.match(reason);
}
function expectUnchanged(raw: Record<string, unknown>): void {
  const out = serve(raw);
  expect(out.refused, 'served').to.equal(null);
  expect(out.findings).to.deep.equal([]);
  expect(JSON.parse(out.views[0]).inputSchema).to.deep.equal(raw.inputSchema);
}
const gate = (def: Record<string, unknown>) => gateTool({ source: 'mcp', origin: 'rt', toolId: 'mcp.rt.t', name: 't', description: 'd', inputSchema: { type: 'object' }, ...def } as never);

describe('issue 11 red team: credentials survive into descriptors (second pass)', () => {
  describe('F1: literals reached through $ref, in both views', () => {
    it('issue 11 red team F1: a password default reached through $ref is removed from its $defs entry, in both views', () => {
      const out = expectRemoved(schemaTool(obj({ password: { $ref: '#/$defs/pw' } }, { $defs: { pw: { type: 'string', default: PW } } })));
      expect(out.findings.map((f) => f.path)).to.include('/inputSchema/$defs/pw/default');
      expect(JSON.parse(out.views[1]).inputSchema.properties.password).to.deep.equal({ type: 'string' });
    });
    it('issue 11 red team F1: a const or enum reached through $ref refuses the tool', () => {
      expectRefused(schemaTool(obj({ password: { $ref: '#/$defs/pw' } }, { $defs: { pw: { type: 'string', const: PW } } })));
      expectRefused(schemaTool(obj({ apiKey: { $ref: '#/definitions/k' } }, { definitions: { k: { enum: [PW, 'other-value-2'] } } })));
    });
    it('issue 11 red team F1: through allOf, a chain of $defs listed in reverse order, an $anchor and a property pointer', () => {
      expectRemoved(schemaTool(obj({ apiKey: { allOf: [{ $ref: '#/definitions/k' }] } }, { definitions: { k: { type: 'string', examples: [PW] } } })));
      expectRemoved(schemaTool(obj({ password: { $ref: '#/$defs/a' } }, { $defs: { c: { type: 'string', default: PW }, b: { $ref: '#/$defs/c' }, a: { oneOf: [{ $ref: '#/$defs/b' }] } } })));
      expectRemoved(schemaTool(obj({ password: { $ref: '#pw' } }, { $defs: { x: { $anchor: 'pw', type: 'string', default: PW } } })));
      expectRemoved(schemaTool(obj({ other: { type: 'string', default: PW }, password: { $ref: '#/properties/other' } })));
    });
    it('issue 11 red team F1: outputSchema (never compacted): a $ref-hidden default is removed, a $ref-hidden const refuses', () => {
      const g = gate({ outputSchema: obj({ password: { $ref: '#/$defs/p' } }, { $defs: { p: { type: 'string', default: PW } } }) });
      expect(g.unclassified.outputSchemaText).not.to.include(PW);
      expect(g.findings.map((f) => f.path)).to.include('/outputSchema/$defs/p/default');
      expect(() => gate({ outputSchema: obj({ password: { $ref: '#/$defs/p' } }, { $defs: { p: { const: PW } } }) })).to.throw(CatalogError, /credential material/);
    });
    it('issue 11 red team F1: the compact form is scanned as served; a literal found only there refuses the tool (fail closed)', () => {
      const scan = scrubCompactView;
      const findings: CredentialFinding[] = [];
      expect(() => scan(JSON.stringify(obj({ password: { type: 'string', default: PW } })), findings)).to.throw(CatalogError, /compact view/);
      expect(() => scan(JSON.stringify(obj({ password: { type: 'string', enum: [PW] } })), findings)).to.throw(CatalogError, /compact view/);
      const clean = JSON.stringify(obj({ password: { type: 'string', description: 'The account password.' } }));
      expect(scan(clean, findings)).to.equal(clean);
      expect(findings).to.deep.equal([]);
    });
    it('issue 11 red team F1: the far side — a $ref under a neutral name and vocabulary through $ref stay', () => {
      expectUnchanged(schemaTool(obj({ mode: { $ref: '#/$defs/m' } }, { $defs: { m: { type: 'string', default: 'interactive' } } })));
      expectUnchanged(schemaTool(obj({ auth: { $ref: '#/$defs/a' } }, { $defs: { a: { type: 'string', enum: ['none', 'basic', 'oauth2'] } } })));
    });
  });

  describe('F2: other literals under secret-like names', () => {
    it('issue 11 red team F2: a literal pattern under password refuses like a const; a real pattern stays', () => {
      expectRefused(schemaTool(obj({ password: { type: 'string', pattern: `^${PW}$` } })));
      expectRefused(schemaTool(obj({ apiKey: { type: 'string', pattern: `^(?:${PW}|other-val-9)$` } })));
      expectUnchanged(schemaTool(obj({ password: { type: 'string', pattern: '^(?=.*[A-Z])(?=.*\\d).{12,}$' } })));
    });
    it('issue 11 red team F2: a title or description under a secret-like name holding a random-looking value or the literal is redacted', () => {
      const out = expectRemoved(schemaTool(obj({ password: { type: 'string', title: PW } })), CORE, 'redacted');
      expect(out.views.join('')).not.to.include(PW);
      expectRemoved(schemaTool(obj({ apiKey: { type: 'string', description: `Use ${RANDOM} for the sandbox.` } })), RANDOM, 'redacted');
      expectRemoved(schemaTool(obj({ password: { type: 'string', default: PW, description: `Defaults to ${PW}.` } })));
      expectUnchanged(schemaTool(obj({ password: { type: 'string', title: 'Password', description: 'The account password (at least 12 characters).' } })));
    });
    it('issue 11 red team F2: unknown keywords are annotations: placeholder/defaultValue under password are removed', () => {
      expectRemoved(schemaTool(obj({ password: { type: 'string', placeholder: PW } })));
      expectRemoved(schemaTool(obj({ password: { type: 'string', defaultValue: PW } })));
      expectRemoved(schemaTool(obj({ q: { type: 'string', hint: GHP } })), GHP.slice(10, 30));
      expectUnchanged(schemaTool(obj({ q: { type: 'string', placeholder: 'Search terms' }, password: { type: 'string', placeholder: 'your password' } })));
    });
    it('issue 11 red team F2: object- and array-valued defaults under a secret-like name are walked to their leaves', () => {
      expectRemoved(schemaTool(obj({ password: { type: 'object', default: { value: PW } } })));
      expectRemoved(schemaTool(obj({ conf: { type: 'object', 'x-defaults': { apiKey: 'S3cr3t7x' } } })), 'S3cr3t7x');
      expectRemoved(schemaTool(obj({ secrets: { type: 'array', default: [{ v: [PW] }] } })));
    });
    it('issue 11 red team F2: patternProperties keys name their literals (anchors and escapes stripped)', () => {
      expectRemoved(schemaTool(obj({}, { patternProperties: { '^password$': { type: 'string', default: PW } } })));
      expectRemoved(schemaTool(obj({}, { patternProperties: { '^(?:api[_-]?key|[Tt]oken)$': { type: 'string', default: PW } } })));
      expectRefused(schemaTool(obj({}, { patternProperties: { '^db\\.password$': { const: PW } } })));
    });
    it('issue 11 red team F2: a dependentSchemas/dependencies key that is secret-like judges every literal of its subschema', () => {
      const out = expectRemoved(schemaTool(obj({ password: { type: 'string' } }, { dependentSchemas: { password: { properties: { x: { default: PW } } } } })));
      expect(JSON.parse(out.views[1]).inputSchema.properties.x ?? {}).not.to.have.property('default');
      expectRemoved(schemaTool(obj({ token: { type: 'string' } }, { dependencies: { token: { properties: { y: { examples: [RANDOM] } } } } })), RANDOM);
      expectUnchanged(schemaTool(obj({ mode: { type: 'string' } }, { dependentSchemas: { mode: { properties: { x: { default: 'verbose-mode' } } } } })));
    });
    it('issue 11 red team F2: a secret-like x-* keyword with an object value is removed (README: literals under a secret-like x-* name)', () => {
      const g = gate({ inputSchema: { type: 'object', 'x-api-key': { v: PW } } });
      expect(g.unclassified.inputSchemaText).not.to.include(PW);
      expect(g.findings.map((f) => f.action)).to.include('removed');
    });
  });

  describe('F4: command-line flags', () => {
    it('issue 11 red team F4: --password=, --api-key=, --token= and "--api-key <value>" are detected and only the value goes', () => {
      for (const [text, secret] of [
        [`--password=${PW}`, PW],
        [`run --api-key=${PW}9 now`, `${PW}9`],
        [`--token=${RANDOM}`, RANDOM],
        ['--api-key AbCdEf123456XyZ', 'AbCdEf123456XyZ'],
        [`-p 5432 --client-secret "${PW}"`, PW],
      ]) {
        expect(containsCredential(text), text).to.equal(true);
        const r = redactCredentials(text);
        expect(r, text).not.to.include(secret);
        expect(r, text).to.match(/^(?:run )?(?:-p 5432 )?--[a-z-]+[= ]"?\[redacted\]/);
      }
      for (const text of ['--token-type bearer', '--password-file /run/secrets/db', '--api-key YOUR_API_KEY', '--token $TOKEN', 'use --token to pass it', '--verbose --auth basic'])
        expect(findCredentialKinds(text), text).to.deep.equal([]);
    });
    it('issue 11 red team F4: redactArgs redacts the value argument after a secret-like flag', () => {
      expect(redactArgs(['serve', '--api-key', 'AbCdEf12', '--port', '8080'])).to.deep.equal(['serve', '--api-key', '[redacted]', '--port', '8080']);
      expect(redactArgs(['--password', 'hunter2hunter2', '--token=short-tok', '-e', `API_KEY=${PW}`, GHP])).to.deep.equal(['--password', '[redacted]', '--token=[redacted]', '-e', 'API_KEY=[redacted]', '[redacted]']);
      // -p is a port for ssh/psql/docker: not a secret-like flag; a placeholder stays; the next flag is not a value.
      expect(redactArgs(['-p', '5432', '--token', '${TOKEN}', '--secret', '--verbose'])).to.deep.equal(['-p', '5432', '--token', '${TOKEN}', '--secret', '--verbose']);
      expect(redactArgs(['node', 'server.js', '--config', 'prod.json'])).to.deep.equal(['node', 'server.js', '--config', 'prod.json']);
    });
  });

  describe('F5: admin-field and log redaction', () => {
    it('issue 11 red team F5: the nearest secret-like ancestor name judges everything below it (arrays and objects)', () => {
      const input = { name: 'direct', inputSchema: obj({ password: { type: 'string', default: PW, description: 'The account password' } }), _meta: { apiKeys: ['MyS3cretKeyValue'], auth: { password: { value: 'AnotherS3cretVal' } } } };
      const out = redactJson(input);
      expect(out.redacted).to.equal(true);
      const text = JSON.stringify(out.value);
      for (const s of [PW, 'MyS3cretKeyValue', 'AnotherS3cretVal']) expect(text).not.to.include(s);
      const v = out.value as typeof input;
      expect(v.inputSchema.properties.password).to.deep.equal({ type: 'string', default: '[redacted]', description: 'The account password' });
      expect(v._meta.apiKeys).to.deep.equal(['[redacted]']);
    });
    it('issue 11 red team F5: inside an inputSchema, a literal a secret-like property reaches through $ref is redacted too; neutral values stay', () => {
      const raw = { name: 'login', inputSchema: obj({ password: { $ref: '#/$defs/pw' }, mode: { $ref: '#/$defs/m' } }, { $defs: { pw: { type: 'string', const: PW }, m: { type: 'string', default: 'interactive' } } }) };
      const out = redactJson(raw);
      expect(JSON.stringify(out.value)).not.to.include(PW);
      expect(JSON.stringify(out.value)).to.include('interactive');
      const clean = { name: 'x', inputSchema: obj({ token: { type: 'string', description: 'An access token' } }), _meta: { auth: { type: 'oauth' } } };
      expect(redactJson(clean)).to.deep.equal({ value: clean, redacted: false });
    });
  });

  describe('F6: compact joins', () => {
    it('issue 11 red team F6: descriptions the compactor joins are scanned as served ("Authorization: Bearer" + value, "password:" + value)', () => {
      for (const [p, value] of [
        [{ allOf: [{ type: 'string', description: 'Send header Authorization: Bearer' }, { description: RANDOM }] }, RANDOM],
        [{ allOf: [{ type: 'string', description: 'Use password:' }, { description: PW }] }, PW],
        [{ oneOf: [{ type: 'string', description: 'token=' }, { type: 'number', description: `${RANDOM}zz` }] }, RANDOM],
        [{ allOf: [{ type: 'string', description: 'Use password:' }, { description: 'hunter2hunter2' }] }, 'hunter2hunter2'],
      ] as const) {
        const out = serve(schemaTool(obj({ p })));
        expect(out.refused).to.equal(null);
        for (const view of out.views) expect(containsCredential(view), view).to.equal(false);
        expect(out.views[1], 'compact view').not.to.include(value);
      }
    });
    it('issue 11 red team F6: a join no half of which is suspect on its own is redacted in the compact view by its scan', () => {
      const out = serve(schemaTool(obj({ p: { allOf: [{ type: 'string', description: 'Use password:' }, { description: 'hunter2hunter2' }] } })));
      expect(out.findings.filter((f) => f.path.startsWith('/compact/')), JSON.stringify(out.findings)).to.deep.equal([
        { path: '/compact/inputSchema/properties/p/description', kinds: ['assigned-secret'], action: 'redacted' },
      ]);
      expect(JSON.parse(out.views[1]).inputSchema.properties.p.description).to.match(/password: ?\[redacted\]/);
      // The standard view keeps both halves (neither is a credential): the compactor's join is what the scan judged.
      expect(JSON.parse(out.views[0]).inputSchema.properties.p.allOf[1].description).to.equal('hunter2hunter2');
    });
    it('issue 11 red team F6: the far side — a description that is one URL, identifier or placeholder stays', () => {
      expectUnchanged(schemaTool(obj({ a: { type: 'string', description: 'https://docs.example.com/v2/reference/Search2024' }, b: { type: 'string', description: 'getUserAccountSettingsForOrganization' }, c: { type: 'string', description: 'YOUR_API_KEY_GOES_HERE' } })));
    });
  });

  describe('F7: detector misses', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.charCodeAt(0) - (c <= 'Z' ? 65 : 97) + 13) % 26) + (c <= 'Z' ? 65 : 97)));
    const base32 = (s: string) => {
      const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      let bits = '';
      for (const b of Buffer.from(s)) bits += b.toString(2).padStart(8, '0');
      let o = '';
      for (let i = 0; i < bits.length; i += 5) o += A[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
      return o;
    };
    const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const hexBytes = (s: string) => [...Buffer.from(s)].map((b) => b.toString(16).padStart(2, '0'));
    const CASES: Array<[string, string]> = [
      ['hex with colons', hexBytes(GHP).join(':')],
      ['hex with spaces', hexBytes(GHP).join(' ')],
      ['hex 0x byte array', hexBytes(GHP).map((h) => `0x${h}`).join(',')],
      ['percent-encoded four times', pct(pct(pct(GHP))).replace(/%/g, '%25')],
      ['rot13', rot13(GHP)],
      ['base32', base32(GHP)],
      ['base64 written backwards', [...b64(GHP)].reverse().join('')],
      ['base64 nested three deep', b64(b64(b64(GHP)))],
      ['a Cyrillic р in the prefix', GHP.replace('p', '\u0440')],
      ['a Greek ο and Cyrillic а in a body', `xoxb-1234567890-${rnd(24, undefined, 1302)}`.replace('o', '\u03bf').replace(/a/g, '\u0430')],
      ['body split with dashes', GHP.slice(0, 4) + GHP.slice(4).match(/.{6}/g)!.join('-')],
      ['spaced letters', GHP.split('').join(' ')],
      ['C-style "a" "b" join', `"${GHP.slice(0, 12)}" "${GHP.slice(12)}"`],
      ['[...].join("")', `["${GHP.slice(0, 12)}","${GHP.slice(12)}"].join("")`],
      ['Atlassian ATATT3', `ATATT3${rnd(186, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-=', 1303)}`],
      ['Sourcegraph sgp_', `sgp_${rnd(16, '0123456789abcdef', 1304)}_${rnd(40, '0123456789abcdef', 1305)}`],
      ['xAI xai-', `xai-${rnd(80, undefined, 1306)}`],
      ['Docker dckr_pat_', `dckr_pat_${rnd(27, undefined, 1307)}`],
      ['Groq gsk_', `gsk_${rnd(52, undefined, 1308)}`],
      ['LangSmith lsv2_pt_', `lsv2_pt_${rnd(32, '0123456789abcdef', 1309)}_${rnd(10, '0123456789abcdef', 1310)}`],
      ['Mapbox secret sk.eyJ', `sk.eyJ1IjoibWFwYm94dXNlciIsImEiOiJjazl6eHl6In0.${rnd(22, undefined, 1311)}`],
      ['redis:pass@host without //', 'redis:Sup3rS3cret@cache.internal:6379'],
    ];
    for (const [label, text] of CASES) {
      it(`issue 11 red team F7: ${label} is detected and redacted`, () => {
        expect(containsCredential(text), JSON.stringify(text.slice(0, 80))).to.equal(true);
        const r = redactCredentials(`before ${text} after`);
        expect(containsCredential(r), r.slice(0, 120)).to.equal(false);
        expect(r).to.match(/^before .*\[redacted\].* after$/s);
      });
    }
    it('issue 11 red team F7: a token split across two enum values refuses the tool', () => {
      expectRefused(schemaTool(obj({ a: { type: 'string', enum: [GHP.slice(0, 14), GHP.slice(14)] } })));
      expectRefused(schemaTool(obj({ a: { oneOf: [{ const: GHP.slice(0, 14) }, { const: GHP.slice(14) }] } })));
    });
    it('issue 11 red team F7: the far side — ordinary prose, identifiers, Cyrillic and MAC/UUID lists stay', () => {
      for (const text of [
        'Returns up to 100 results per page sorted by date, newest first (max 1000).',
        'Имя пользователя и адрес электронной почты; Ελληνικά κείμενα',
        'MACs 00:1a:2b:3c:4d:5e, 00:1a:2b:3c:4d:5f and 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
        'use "owner" "repo" and ["read","write","admin"].join(",")',
        'modelcontextprotocol-server-github-v2-2024-11-05-release-candidate',
        'EASTASIAPACIFICDATACENTERS NORTHAMERICASOUTHWESTREGION',
        'mailto:support@example.com and contact: admin@example.com, ssh git@github.com:org/repo.git',
      ])
        expect(findCredentialKinds(text), text).to.deep.equal([]);
    });
  });

  describe('bounded work on hostile schemas (the reference pre-pass and the compact scan): counted, not timed', () => {
    const nodesOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Object.values(v).reduce((n: number, x) => n + nodesOf(x), 0) : 0);
    it('issue 11 red team F1: a chain of 2000 definitions listed in reverse order: two walks and at most two raises per target', () => {
      const N = 2000;
      const $defs: Record<string, unknown> = {};
      for (let i = N - 1; i >= 0; i--) $defs[`d${i}`] = i === N - 1 ? { type: 'string', default: PW } : { $ref: `#/$defs/d${i + 1}` };
      const schema = obj({ password: { $ref: '#/$defs/d0' } }, { $defs });
      const findings: CredentialFinding[] = [];
      const out = scrubSchema(schema as never, '/inputSchema', findings);
      expect(JSON.stringify(out)).not.to.include(PW);
      expect(findings.map((f) => f.path)).to.deep.equal([`/inputSchema/$defs/d${N - 1}/default`]);
      const w = lastReferenceNameWork();
      expect(w.sites).to.equal(N);
      expect(w.nodes, 'schema objects visited').to.be.at.most(2 * nodesOf(schema));
      expect(w.raises, 'name raises').to.be.at.most(2 * N);
    });
    it('issue 11 red team F1: a diamond (1000 properties × one definition that refers to 1000 more) stays linear in the references', () => {
      const $defs: Record<string, unknown> = { hub: { anyOf: Array.from({ length: 1000 }, (_, i) => ({ $ref: `#/$defs/leaf${i}` })) } };
      for (let i = 0; i < 1000; i++) $defs[`leaf${i}`] = { type: 'string', examples: [`v${i}`] };
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 1000; i++) properties[i % 2 ? `apiKey${i}` : `field${i}`] = { $ref: '#/$defs/hub' };
      const schema = obj(properties, { $defs });
      scrubSchema(schema as never, '/inputSchema', []);
      const w = lastReferenceNameWork();
      expect(w.sites).to.equal(2000);
      expect(w.nodes).to.be.at.most(2 * nodesOf(schema));
      expect(w.raises, 'each target is raised at most twice').to.be.at.most(2 * 1001);
    });
    it('issue 11 red team F1: the compact scan is one walk of the compact text (no reference is left to resolve there)', () => {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < 3000; i++) properties[`p${i}`] = { type: 'string', description: `Field number ${i}.` };
      const text = JSON.stringify(obj(properties));
      expect(scrubCompactView(text, [])).to.equal(text);
      expect(lastReferenceNameWork()).to.deep.equal({ nodes: 3001, sites: 0, raises: 0 });
    });
  });

  describe('F11: typeless roots that cannot be objects', () => {
    for (const [label, inputSchema] of [
      ['a $ref to a string schema', { $ref: '#/$defs/s', $defs: { s: { type: 'string' } } }],
      ['an enum of numbers', { enum: [1, 2] }],
      ['a const string', { const: 'x' }],
      ['a oneOf of string and number', { oneOf: [{ type: 'string' }, { type: 'number' }] }],
      ['an allOf of string and number (unsatisfiable)', { allOf: [{ type: 'string' }, { type: 'number' }] }],
    ] as const) {
      it(`issue 11 red team F11: ${label} is refused, not repaired`, () => {
        expect(() => gate({ inputSchema })).to.throw(CatalogError, /inputSchema must describe an object \(/);
      });
    }
    it('issue 11 red team F11: roots that can accept an object keep the repair and its note', () => {
      for (const inputSchema of [{}, { $schema: 'http://json-schema.org/draft-07/schema#' }, { properties: { a: { type: 'string' } } }, { anyOf: [{ type: 'object' }, { type: 'string' }] }, { $ref: '#/$defs/o', $defs: { o: { type: 'object' } } }]) {
        const g = gate({ inputSchema });
        expect(JSON.parse(g.unclassified.inputSchemaText).type).to.equal('object');
        expect(JSON.parse(g.unclassified.ingestNotesText).map((n: { rule: string }) => n.rule)).to.deep.equal(['root-type-missing']);
      }
    });
  });
});

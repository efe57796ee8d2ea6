/**
 * The hostile inputs of hostile-input.test.ts, as exact request bytes. Generated parts use fast-check with a
 * fixed seed (reproducible); counts are fixed, so the suite's size and run time are bounded.
 */
import fc from 'fast-check';
import { type RawOutcome, httpRequest } from './raw-http';

export interface HostileInput {
  readonly category: 'path' | 'query' | 'header' | 'body' | 'graphql' | 'raw';
  readonly label: string;
  readonly data: Buffer | Buffer[];
  /** true: send FIN after writing, for requests that are incomplete on purpose (see rawExchange). */
  readonly halfClose?: boolean;
  /** A further pin for this input; the common checks (no 5xx, no leak, no hang) apply to every input. */
  readonly check?: (o: RawOutcome) => void;
}

export interface Keys {
  readonly me: string;
  readonly admin: string;
  /** The ETag of `me`'s GET /tools. */
  readonly etag: string;
}

export const SEED = 20_260_501;
const sample = <T>(arb: fc.Arbitrary<T>, n: number): T[] => fc.sample(arb, { numRuns: n, seed: SEED });
const pctAll = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const auth = (key: string) => ['Authorization', `Bearer ${key}`] as const;
const gqlPost = (key: string, body: string | Buffer, type = 'application/json', extra: Array<readonly [string, string]> = []) =>
  httpRequest('POST', '/graphql', [auth(key), ['Content-Type', type], ...extra], body);
const deep = (open: string, inner: string, close: string, n: number) => `${open.repeat(n)}${inner}${close.repeat(n)}`;

export function paths(k: Keys): HostileInput[] {
  const prefixes = ['/tools/', '/tools', '/', '/capabilities/', '/graphql/', '//tools/', '/tools/ext.calculator/'];
  const badPct = fc.constantFrom('%', '%G1', '%E0%A4', '%C0%AF', '%ED%A0%80', '%00', '%FF', '%2', '%%', '%F0%9F%92', '%2F', '%5C', '%2e%2e');
  const segment = fc.constantFrom('.', '..', '%2e', '%2e%2e', '', 'tools', 'ext.calculator', 'ext.zz_secret_other', '\\', ';x', 'ext.*');
  const tail = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => Buffer.from(s, 'utf8')), // raw UTF-8 bytes, controls included
    fc.string({ unit: 'binary', maxLength: 60 }).map((s) => Buffer.from(pctAll(s))), // every byte percent-encoded
    fc.array(fc.oneof(badPct, fc.string({ unit: 'grapheme-ascii', maxLength: 4 })), { maxLength: 12 }).map((a) => Buffer.from(a.join(''))),
    fc.array(segment, { maxLength: 8 }).map((a) => Buffer.from(a.join('/'))),
    fc.integer({ min: 900, max: 20_000 }).map((n) => Buffer.from(n % 2 ? 'a'.repeat(n) : '%41'.repeat(Math.floor(n / 3)))),
  );
  const generated = sample(fc.tuple(fc.constantFrom(...prefixes), tail), 400).map(([p, t]) => ({
    category: 'path' as const,
    label: `path ${p}${t.toString('latin1').slice(0, 40)}`,
    data: httpRequest('GET', Buffer.concat([Buffer.from(p), t]), [auth(k.me)]),
  }));
  return [
    ...generated,
    { category: 'path', label: 'another tenant\'s tool by id', data: httpRequest('GET', '/tools/ext.zz_secret_other', [auth(k.me)]), check: (o) => expectStatus(o, 404) },
    { category: 'path', label: 'another tenant\'s MCP tool by id', data: httpRequest('GET', '/tools/mcp.othersrc.secret_op', [auth(k.me)]), check: (o) => expectStatus(o, 404) },
    { category: 'path', label: 'toolId of 1,025 characters', data: httpRequest('GET', `/tools/${'a'.repeat(1025)}`, [auth(k.me)]), check: (o) => expectStatus(o, 400) },
    { category: 'path', label: 'bad percent-encoding', data: httpRequest('GET', '/tools/%E0%A4%A', [auth(k.me)]), check: (o) => expectStatus(o, 400) },
    { category: 'path', label: 'path of 100 KB', data: httpRequest('GET', `/tools/${'b'.repeat(100_000)}`, [auth(k.me)]) },
  ];
}

export function queries(k: Keys): HostileInput[] {
  const q = (label: string, target: string, check?: HostileInput['check']): HostileInput => ({ category: 'query', label, data: httpRequest('GET', target, [auth(k.me)]), check });
  const key = fc.oneof(fc.constantFrom('view', 'view[]', 'view[a]', '__proto__', 'constructor[prototype][x]', 'a[b][c]', ''), fc.string({ unit: 'binary', maxLength: 12 }).map(pctAll));
  const value = fc.oneof(fc.constantFrom('compact', 'standard', '', '%', '%ZZ', 'compact%00'), fc.string({ unit: 'binary', maxLength: 30 }).map(pctAll));
  const generated = sample(fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 30 }), 150).map((pairs, i) =>
    q(`generated query ${i}`, `${i % 3 === 0 ? '/tools/ext.calculator' : '/tools'}?${pairs.map(([a, b]) => `${a}=${b}`).join('&')}`));
  return [
    ...generated,
    q('repeated view keys', '/tools?view=compact&view=standard', (o) => expectStatus(o, 200)),
    q('nested a[b][c]', '/tools?a[b][c]=1&view[a][b][c]=compact', (o) => expectStatus(o, 200)),
    q('1000-deep nesting', `/tools?${'a['.repeat(1000)}=1`),
    q('prototype pollution keys', '/tools?__proto__[view]=compact&constructor[prototype][view]=compact', (o) => expectStatus(o, 200)),
    q('10k parameters (over the header limit)', `/tools?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')}`),
    q('3000 parameters (under it)', `/tools?${'a=1&'.repeat(3000)}`),
    q('huge view value', `/tools?view=${'x'.repeat(15_000)}`),
    q('huge NUL value', `/capabilities?x=${'%00'.repeat(4000)}`),
    q('empty pieces', '/tools?&&&=&=&view'),
    q('fragment in the target', '/tools?view=compact#frag'),
  ];
}

export function headers(k: Keys): HostileInput[] {
  const h = (label: string, hs: Array<readonly [string, string | Buffer]>, check?: HostileInput['check'], target = '/tools'): HostileInput =>
    ({ category: 'header', label, data: httpRequest('GET', target, hs), check });
  const inm = (label: string, v: string | Buffer, check?: HostileInput['check']) => h(`If-None-Match ${label}`, [auth(k.me), ['If-None-Match', v]], check);
  const schemes = sample(fc.tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Digest', 'Token', 'Bearer:', 'Negotiate', ''), fc.constantFrom(' ', '  ', '\t', ''), fc.constantFrom(k.me, 'tc_', `${k.me}=`, `"${k.me}"`, `${k.me},x`, 'eyJ.eyJ.', '')), 60);
  return [
    ...schemes.map(([s, sp, v], i) => h(`Authorization scheme ${i} ${s}`, [['Authorization', `${s}${sp}${v}`]])),
    h('lower-case scheme works', [['Authorization', `bearer ${k.me}`]], (o) => expectStatus(o, 200)),
    ...[8_000, 8_300, 15_000, 17_000, 70_000].map((n) => h(`Authorization of ${n} bytes`, [['Authorization', `Bearer ${'A'.repeat(n)}`]])),
    h('Authorization UTF-8 bytes', [['Authorization', Buffer.from('Bearer ключ-🔑', 'utf8')]]),
    h('Authorization latin1 bytes', [['Authorization', Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xfe, 0xe9])]]),
    h('Authorization with NUL', [['Authorization', Buffer.from(`Bearer ${k.me}\u0000x`)]]),
    h('Authorization with a bare CR', [['Authorization', Buffer.from(`Bearer ${k.me}\rX-Evil: 1`)]]),
    h('duplicate Authorization (valid first)', [auth(k.me), auth('tc_wrong')]),
    h('duplicate Authorization (invalid first)', [auth('tc_wrong'), auth(k.me)]),
    h('duplicate Authorization (two valid principals)', [auth(k.admin), auth(k.me)]),
    inm('*', '*', (o) => expectStatus(o, 304)),
    inm('the real ETag', k.etag, (o) => expectStatus(o, 304)),
    inm('1500 ETags', Array.from({ length: 1500 }, (_, i) => `"e${i}"`).join(', ')),
    inm('2500 weak ETags (over the limit)', Array.from({ length: 2500 }, (_, i) => `W/"${i}"`).join(',')),
    inm('unterminated quote', '"abc'),
    inm('lone quote', '"'),
    inm('commas only', ', , , ,'),
    inm('15 KB ETag', `"${'e'.repeat(15_000)}"`),
    inm('non-ASCII bytes', Buffer.from([0x22, 0xc3, 0xa9, 0xff, 0x22])),
    inm('real ETag inside garbage', `garbage, ${k.etag}x, W/${k.etag}`),
    h('hostile X-Request-Id is not echoed', [auth(k.me), ['X-Request-Id', '<script>alert(1)</script>']], (o) => {
      if (o.headers['x-request-id'] === '<script>alert(1)</script>') throw new Error('X-Request-Id echoed');
    }),
    h('X-Request-Id of 5 KB', [auth(k.me), ['X-Request-Id', 'r'.repeat(5000)]]),
    h('no Host header', [auth(k.me)], undefined, '/tools'),
    h('two Host headers', [['Host', 'a.example'], ['Host', 'b.example'], auth(k.me)]),
    h('Host with non-ASCII', [['Host', Buffer.from('ex\xe4mple', 'latin1')], auth(k.me)]),
    h('1800 small headers', [auth(k.me), ...Array.from({ length: 1800 }, (_, i) => [`X-${i}`, '1'] as const)]),
    h('two different Content-Lengths on GET', [auth(k.me), ['Content-Length', '1'], ['Content-Length', '2']]),
    h('Content-Length and Transfer-Encoding', [auth(k.me), ['Content-Length', '3'], ['Transfer-Encoding', 'chunked']]),
    h('negative Content-Length', [auth(k.me), ['Content-Length', '-1']]),
    h('huge Content-Length, no body', [auth(k.me), ['Content-Length', '99999999999999999999']]),
    h('space before colon', [auth(k.me), ['X-Odd ', 'x']]),
    h('obs-fold continuation', [auth(k.me), ['X-Fold', 'a\r\n  b']]),
    h('Accept monster', [auth(k.me), ['Accept', Array.from({ length: 1000 }, (_, i) => `a/b${i};q=0.${i % 10}`).join(',')]]),
    h('Cookie of 14 KB', [auth(k.me), ['Cookie', `c=${'x'.repeat(14_000)}`]]),
  ].map((x) => ({ ...x, data: x.label === 'no Host header' ? httpRequest('GET', '/tools', [auth(k.me)], undefined, { host: false }) : x.data }));
}

export function bodies(k: Keys): HostileInput[] {
  const g = (label: string, body: string | Buffer, type?: string, key = k.me, extra: Array<readonly [string, string]> = []): HostileInput => ({ category: 'graphql', label, data: gqlPost(key, body, type, extra) });
  const op = (query: string, variables?: unknown) => JSON.stringify({ query, variables });
  const aliases = Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ');
  let fragments = 'fragment F0 on Query { __typename }';
  for (let i = 1; i <= 40; i++) fragments += ` fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`;
  const generatedJson = sample(fc.oneof(fc.json({ depthSize: 'medium' }), fc.string({ unit: 'binary', maxLength: 200 })), 120);
  return [
    ...generatedJson.map((s, i) => g(`generated body ${i}`, s)),
    ...['{', '{"query": }', 'nul', '"string"', '123', 'true', '{"query": "{ me { name } }"', '\ufeff{"query":"{ me { name } }"}', '{"query":"{ me { name } }"} trailing'].map((b) => g(`invalid JSON ${b.slice(0, 12)}`, b)),
    g('invalid UTF-8 in a JSON string', Buffer.concat([Buffer.from('{"query":"{ me { name } } #'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('"}')])),
    g('lone surrogate escape', '{"query":"{ tool(toolId: \\"\\ud800\\") { __typename } }"}'),
    g('JSON nested 10k levels (arrays)', deep('[', '1', ']', 10_000)),
    g('JSON nested 10k levels (objects)', deep('{"a":', '1', '}', 10_000)),
    g('JSON nested 200k levels (arrays)', deep('[', '', ']', 200_000)),
    g('variables nested 10k levels', `{"query":"{ me { name } }","variables":{"v":${deep('{"a":', '1', '}', 10_000)}}}`),
    g('huge array in a JSON variable (agent: FORBIDDEN after coercion)', op('mutation($v: JSON!) { upsertHostExtension(input: { name: "zz_huge", safetyTier: "pure", replayPolicy: "deterministic", egress: "none", inputSchema: $v }) { toolId } }', { v: { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } })),
    g('variable object with 50k keys', op('{ me { name } }', Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])))),
    g('deep selection (2000 levels)', op(`{ me ${'{ me '.repeat(2000)}${'} '.repeat(2000)}}`)),
    g('deep selection (3000 levels, over the token limit)', op(`{ ${'me { '.repeat(3000)}name${' }'.repeat(3000)} }`)),
    g('1000 aliases', op(`{ ${aliases} }`)),
    g('2400 repeated fields (field-merge work)', op(`{ ${'__typename '.repeat(2400)}}`)),
    g('fragment bomb (2^40 expansion)', op(`{ ...F40 } ${fragments}`)),
    g('1000 directives on one field', op(`{ __typename ${'@include(if: true) '.repeat(1000)}}`)),
    g('500 KB string argument', op(`{ tool(toolId: "${'a'.repeat(500_000)}") { __typename } }`)),
    g('introspection cycle', op('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }')),
    g('30 aliased full __schema', op(`{ ${Array.from({ length: 30 }, (_, i) => `s${i}: __schema { types { name fields { name args { name } } } }`).join(' ')} }`)),
    g('empty batch', '[]'),
    g('batch of 1000', JSON.stringify(Array.from({ length: 1000 }, () => ({ query: '{ me { name } }' })))),
    g('batch of one', JSON.stringify([{ query: '{ me { name } }' }])),
    g('text/plain', op('{ me { name } }'), 'text/plain'),
    g('form-urlencoded', 'query=%7B%20me%20%7B%20name%20%7D%20%7D', 'application/x-www-form-urlencoded'),
    g('multipart', '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":"{ me { name } }"}\r\n--x--', 'multipart/form-data; boundary=x'),
    g('application/graphql', '{ me { name } }', 'application/graphql'),
    g('UTF-16 charset', Buffer.from(op('{ me { name } }'), 'utf16le'), 'application/json; charset=utf-16'),
    g('unknown charset', op('{ me { name } }'), 'application/json; charset=klingon'),
    { ...g('gzip that is not gzip', 'not gzip at all', 'application/json', k.me, [['Content-Encoding', 'gzip']]), check: (o) => expectStatus(o, 400) },
    g('APQ: hash that does not match the query (POST)', JSON.stringify({ query: '{ me { name } }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } })),
    g('APQ: unknown hash alone', JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } })),
    g('unknown content-encoding', op('{ me { name } }'), 'application/json', k.me, [['Content-Encoding', 'zstd-x']]),
    // Built as text: JSON.stringify of a 5000-deep object would overflow this process's own stack.
    g('admin: inputSchema nested 5000 levels', `{"query":"mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }","variables":{"i":` +
      `{"name":"zz_hostile_deep","description":"x","safetyTier":"pure","replayPolicy":"deterministic","egress":"none","inputSchema":` +
      `${deep('{"type":"object","properties":{"a":', '{"type":"string"}', '}}', 5000)}}}}`, 'application/json', k.admin),
    // Issue 12 defect 5: these answered HTTP 200 with INTERNAL_SERVER_ERROR and logged an error-level stack trace.
    { category: 'graphql', label: 'anonymous subscription', data: httpRequest('POST', '/graphql', [['Content-Type', 'application/json']], op('subscription { tools { toolId } }')), check: (o) => expectCode(o, 401, 'UNAUTHENTICATED') },
    { ...g('agent subscription', op('subscription S { anything }')), check: (o) => expectCode(o, 400, 'GRAPHQL_VALIDATION_FAILED') },
    ...['not-a-uuid', '6f1c1a4e-0000-4000-8000-000000000000', 'x'.repeat(300)].map((tenantId) => ({
      ...g(`admin: upsertHostExtension for tenant ${tenantId.slice(0, 12)}`, op('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', { i: { name: 'zz_no_tenant', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object' }, tenantId } }), 'application/json', k.admin),
      check: (o: RawOutcome) => expectCode(o, 200, 'NOT_FOUND'),
    })),
    { ...g('admin: U+0000 in a description', op('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', { i: { name: 'zz_nul', description: 'a\u0000b', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object' } } }), 'application/json', k.admin), check: (o) => expectCode(o, 200, 'BAD_USER_INPUT') },
    { category: 'body', label: 'POST /tools with garbage', data: httpRequest('POST', '/tools', [auth(k.me), ['Content-Type', 'application/json']], '{"toolId":'), check: (o) => expectStatus(o, 405) },
    { category: 'body', label: 'GET /tools with a body', data: httpRequest('GET', '/tools', [auth(k.me), ['Content-Type', 'application/json']], '{"view":"compact"}') },
    ...([
      ['GET /graphql without preflight', '{ me { name } }', false],
      ['GET /graphql with preflight', '{ me { name } }', true],
      ['GET /graphql mutation (must not run)', 'mutation { createTenant(name: "get-made") { id } }', true],
      ['GET /graphql with invalid variables', '{ me { name } }&variables=notjson', true],
      ['APQ: hash that does not match the query (GET)', '{ me { name } }&extensions={"persistedQuery":{"version":1,"sha256Hash":"abc"}}', true],
    ] as const).map(([label, q, preflight]) => ({
      category: 'graphql' as const,
      label,
      data: httpRequest('GET', `/graphql?query=${encodeURI(q)}`, [auth(k.admin), ...(preflight ? [['apollo-require-preflight', 'true'] as const] : [])]),
    })),
  ];
}

export function malformed(k: Keys): HostileInput[] {
  // Binary noise and cut-off requests are judged at end of input, so they half-close; complete ones do not.
  const r = (label: string, data: Buffer | string | Buffer[], halfClose = false): HostileInput => ({ category: 'raw', label, data: Array.isArray(data) ? data : [Buffer.from(data as string, 'latin1')], halfClose });
  const chunked = (label: string, chunks: string, cut = false) => r(label, [httpRequest('POST', '/graphql', [auth(k.me), ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']]), Buffer.from(chunks, 'latin1')], cut);
  const te = (v: string) => r(`Transfer-Encoding: ${v}`, [httpRequest('POST', '/graphql', [auth(k.me), ['Content-Type', 'application/json'], ['Transfer-Encoding', v]]), Buffer.from('5\r\n{"a":\r\n0\r\n\r\n')]);
  const noise = sample(fc.uint8Array({ minLength: 1, maxLength: 300 }), 40).map((b, i) => r(`binary noise ${i}`, [Buffer.from(b)], true));
  const valid = '{"query":"{ me { name } }"}';
  return [
    ...noise,
    ...['GARBAGE\r\n\r\n', 'GET\r\n\r\n', 'GET /tools HTTP/9.9\r\n\r\n', 'GET /tools\r\n\r\n', 'get /tools HTTP/1.1\r\n\r\n',
      'GET  /tools  HTTP/1.1\r\nHost: x\r\n\r\n', `${'A'.repeat(10_000)} / HTTP/1.1\r\n\r\n`, 'GET http://evil.example/tools HTTP/1.1\r\nHost: evil.example\r\n\r\n',
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
      'GET /tools HTTP/1.1\nHost: x\n\n', 'GET /tools HTTP/1.1\r\nHost x\r\n\r\n', 'GET /tools HTTP/1.1\r\nHo\u0000st: x\r\n\r\n', 'GET /tools HTTP/1.1\r\n: empty-name\r\n\r\n',
      'GET /tools HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'].map((s) => r(`request ${JSON.stringify(s.slice(0, 30))}`, s)),
    r('only empty lines (RFC 9112: ignored before a request line)', '\r\n\r\n', true),
    r('cut-off request line', 'GET /tools HTTP/1.1\r\n', true),
    r('cut-off headers', `GET /tools HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${k.me}`, true),
    r('Expect: 100-continue, body never sent', 'GET /tools HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n', true),
    chunked('chunk size not hex', 'zz\r\n{}\r\n0\r\n\r\n'),
    chunked('chunk size overflow', 'ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n'),
    chunked('missing last chunk', `${valid.length.toString(16)}\r\n${valid}\r\n`, true),
    chunked('chunk longer than declared', `3\r\n${valid}\r\n0\r\n\r\n`),
    chunked('chunk shorter than declared', `ff\r\n${valid}\r\n0\r\n\r\n`, true),
    chunked('chunk extension garbage', `${valid.length.toString(16)};a=\u0001\u0002\r\n${valid}\r\n0\r\n\r\n`),
    chunked('spaces in chunk size', ` ${valid.length.toString(16)} \r\n${valid}\r\n0\r\n\r\n`),
    chunked('no CRLF after chunk data', `${valid.length.toString(16)}\r\n${valid}0\r\n\r\n`),
    chunked('trailer garbage', `${valid.length.toString(16)}\r\n${valid}\r\n0\r\nX-Trailer\r\n\r\n`),
    chunked('1000 one-byte chunks (valid)', `${[...valid.padEnd(1000, ' ')].map((c) => `1\r\n${c}\r\n`).join('')}0\r\n\r\n`),
    te('chunked, identity'), te('gzip, chunked'), te('xchunked'), te('chunked\u000b'), te(' chunked'),
    r('smuggling: CL.TE', `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /tools/ext.zz_secret_other HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${k.me}\r\n\r\n`),
    r('pipelined: valid GET then garbage', [httpRequest('GET', '/tools', [auth(k.me), ['Connection', 'keep-alive']]), Buffer.from('GARBAGE\r\n\r\n')]),
    r('pipelined: 50 GETs', [Buffer.concat(Array.from({ length: 50 }, (_, i) => httpRequest('GET', '/tools', [auth(k.me), ['Connection', i === 49 ? 'close' : 'keep-alive']])))]),
  ];
}

/** The HTTP status, and the error code somewhere in the body (GraphQL `extensions.code` or a REST error). */
function expectCode(o: RawOutcome, status: number, code: string): void {
  expectStatus(o, status);
  if (!o.body.includes(`"code":"${code}"`)) throw new Error(`expected code ${code}: ${o.text.slice(0, 300)}`);
}

function expectStatus(o: RawOutcome, status: number): void {
  if (o.status !== status) throw new Error(`expected HTTP ${status}, got ${o.status}: ${o.text.slice(0, 200)}`);
}

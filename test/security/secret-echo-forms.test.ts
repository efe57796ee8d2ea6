/**
 * Issue 11, red-team follow-up F3: a stdio server that echoes its secrets to stderr had them redacted only when the
 * echo was the plain, whole value. An echo cut by the transport's bounded stderr tail (30 of 38 characters were
 * left) or written in base64 reached `sources.lastError`, the `syncSource` answer, its audit row and the log. Pins:
 * for plain, base64, hex and reversed echoes, cut at several places, no piece of a literal or `fromEnv` secret of 8
 * characters or more survives anywhere an admin or operator reads, decoded or not.
 */
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { HOSTILE_BIN, hostileControl } from '../helpers/mcp-servers';
import { hostPerSuite } from '../helpers/test-host';

const LITERAL = 'lit-secret-value-9Hq2Zx7Kp4Lm';
const FROM_ENV = 'env-secret-and-3-more-words-Q7w8E9r0T1y2';
const ENCODINGS = ['plain', 'base64', 'hex', 'reversed'] as const;
/** After the echo: none, cuts near the 500-character report tail, and near the 2,000-character stderr buffer. */
const PADS = [0, 468, 480, 1975] as const;
const LIMITS = { connectTimeoutMs: 4000, requestTimeoutMs: 2000, syncTimeoutMs: 4000, maxPages: 50, maxTools: 5000, maxMessageBytes: 16 * 1024 * 1024 };

/** Every view of a text a reader could decode: as is, reversed, and every base64/hex run decoded (test-side, independent of src/). */
function views(text: string): string[] {
  const out = [text, [...text].reverse().join('')];
  for (const m of text.matchAll(/[A-Za-z0-9+/]{12,}={0,2}/g)) for (let o = 0; o < 4; o++) out.push(Buffer.from(m[0].slice(o), 'base64').toString('latin1'));
  for (const m of text.matchAll(/[0-9a-fA-F]{16,}/g)) for (let o = 0; o < 2; o++) out.push(Buffer.from(m[0].slice(o), 'hex').toString('latin1'));
  return out;
}

/** A piece of a secret, at least 8 characters long, in any view of the text. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of [LITERAL, FROM_ENV]) {
    for (const v of views(text)) {
      for (let i = 0; i + 8 <= secret.length; i++) if (v.includes(secret.slice(i, i + 8))) found.push(`${secret.slice(0, 8)}…: ${secret.slice(i, i + 8)}`);
    }
  }
  return [...new Set(found)];
}

forEachDatabase('issue 11 red team F3: cut and encoded secret echoes', (database) => {
  const suite = hostPerSuite(database, { syncLimits: LIMITS, secretEnv: { TOOLCAT_TEST_F3_SECRET: FROM_ENV } });

  it('no piece of a secret reaches lastError, the syncSource answer, the audit log or the log, whatever the encoding and the cut', async function () {
    this.timeout(120_000);
    const host = suite.host;
    const control = hostileControl();
    control.setMode('leak-at-start');
    const produced: Array<{ where: string; text: string }> = [];
    for (const encoding of ENCODINGS) {
      for (const pad of PADS) {
        const name = `f3-${encoding}-${pad}`;
        const env = [
          ...Object.entries(control.env).map(([n, value]) => ({ name: n, value })),
          { name: 'HOSTILE_LEAK_ENCODING', value: encoding },
          { name: 'HOSTILE_LEAK_PAD', value: String(pad) },
          { name: 'LEAK_LITERAL', value: LITERAL },
          { name: 'LEAK_FROMENV', fromEnv: 'TOOLCAT_TEST_F3_SECRET' },
        ];
        await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name, transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env, syncIntervalSeconds: 0 } });
        const r = await host.request('POST', '/graphql', host.adminKey, JSON.stringify({ query: 'mutation($n: String!) { syncSource(name: $n) { status error } }', variables: { n: name } }));
        expect((JSON.parse(r.text) as { data: { syncSource: { status: string } } }).data.syncSource.status, name).to.equal('failing');
        produced.push({ where: `syncSource(${name})`, text: r.text });
      }
    }
    const sources = await host.request('POST', '/graphql', host.adminKey, JSON.stringify({ query: '{ sources { name lastError } }' }));
    const audit = await host.request('POST', '/graphql', host.adminKey, JSON.stringify({ query: '{ auditLog(first: 300) { action before after } }' }));
    const places = [...produced, { where: 'sources', text: sources.text }, { where: 'auditLog', text: audit.text }, ...host.logs.map((l, i) => ({ where: `log line ${i}`, text: l }))];
    const hits = places.flatMap((p) => leaks(p.text).map((h) => `${p.where}: ${h}`));
    expect(hits.length, `${hits.length} pieces of secrets in ${places.length} places: ${hits.slice(0, 8).join("; ")}`).to.equal(0);
    // Not vacuous: the echoes did arrive (redacted) in the error texts.
    expect(sources.text.match(/\[redacted\]/g)?.length ?? 0, 'every failing source reports its redacted echo').to.be.at.least(ENCODINGS.length * PADS.length - 2);
  });
});

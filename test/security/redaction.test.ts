/**
 * Issue 11, defect 3, the pieces on their own: the JSON redaction admin fields and audit rows go through, the
 * logger's second line of defence, the secret values error texts are scrubbed of (`fromEnv` resolved), the
 * sync metric's label, and the refusal of a source name that looks like a token.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import type { CatalogCache } from '../../src/cache/catalog-cache';
import { createMetrics } from '../../src/ops/metrics';
import { createLogger } from '../../src/shared/logger';
import type { DataSource } from 'typeorm';
import { REDACTED, redactJson } from '../../src/catalog/credential-redaction';
import { sanitizeError } from '../../src/sources/mcp/sanitize-error';
import { publicUrl, validateSource } from '../../src/sources/source-spec';
import { secretValues } from '../../src/sources/source-store';
import { PLANTED } from '../fixtures/planted-secrets';

function capture(level = 'debug') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { log: createLogger(level, sink), lines };
}

describe('issue 11 defect 3: redaction', () => {
  describe('redactJson (upstreamTools.raw/claims, adminTools.claims, audit rows)', () => {
    it('redacts credential-shaped strings and property names, and literals under secret-like names; keeps the rest', () => {
      const input = {
        name: PLANTED.nameToken,
        description: `uses ${PLANTED.descriptionToken} to search`,
        annotations: { readOnlyHint: true, apiKey: PLANTED.claimKey, password: PLANTED.claimPassword, pin: 123456, apiToken: 12345678 },
        nested: [[{ deep: `Bearer ${PLANTED.claimJwt}` }]],
        [PLANTED.metaAwsKey]: 'a key named like a credential',
        [PLANTED.urlPathToken]: 'another',
      };
      const out = redactJson(input);
      expect(out.redacted).to.equal(true);
      expect(out.value).to.deep.equal({
        name: REDACTED,
        description: `uses ${REDACTED} to search`,
        annotations: { readOnlyHint: true, apiKey: REDACTED, password: REDACTED, pin: 123456, apiToken: REDACTED },
        nested: [[{ deep: `Bearer ${REDACTED}` }]],
        [REDACTED]: 'a key named like a credential',
        [`${REDACTED} #2`]: 'another',
      });
      expect(input.name, 'the input is not changed').to.equal(PLANTED.nameToken);
    });

    it('hands back the very value, marked unredacted, when nothing needs redacting', () => {
      const clean = { name: 'read_record', inputSchema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] }, annotations: { title: 'Read' } };
      const out = redactJson(clean);
      expect(out).to.deep.equal({ value: clean, redacted: false });
      expect(out.value).to.equal(clean);
    });

    it('keeps a listed "__proto__" key as data, and fails closed below its depth bound', () => {
      const parsed = JSON.parse(`{"__proto__": {"x": "${PLANTED.claimKey}"}}`) as Record<string, unknown>;
      const out = redactJson(parsed).value as Record<string, unknown>;
      expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).to.deep.equal({ x: REDACTED });
      let deep: unknown = 'innocent';
      for (let i = 0; i < 400; i++) deep = [deep];
      const r = redactJson(deep);
      expect(r.redacted).to.equal(true);
      expect(JSON.stringify(r.value)).to.include(REDACTED);
    });
  });

  describe('the logger', () => {
    it('writes no credential, whatever field, message, error or child binding carries it; the line stays JSON with its other fields', () => {
      const { log, lines } = capture();
      log.child({ binding: PLANTED.argToken }).warn(
        { err: new Error(`failed with ${PLANTED.nameToken}`), nested: { list: [`x ${PLANTED.claimJwt}`] }, password: PLANTED.claimPassword, [PLANTED.metaAwsKey]: 1, source: 'github' },
        `message quoting ${PLANTED.fromEnvShaped}`,
      );
      expect(lines).to.have.length(1);
      for (const v of [PLANTED.argToken, PLANTED.nameToken, PLANTED.claimJwt, PLANTED.claimPassword, PLANTED.metaAwsKey, PLANTED.fromEnvShaped]) expect(lines[0]).not.to.include(v);
      const parsed = JSON.parse(lines[0]) as Record<string, unknown>;
      expect(parsed).to.include({ source: 'github', msg: `message quoting ${REDACTED}`, binding: REDACTED, password: REDACTED, service: 'toolcat', level: 40 });
      expect((parsed.err as { message: string }).message).to.equal(`failed with ${REDACTED}`);
      expect(lines[0].endsWith('\n')).to.equal(true);
    });

    it('leaves a clean line byte for byte as pino wrote it', () => {
      const { log, lines } = capture();
      log.info({ source: 'github', toolCount: 3 }, 'source synced');
      expect(lines[0]).to.match(/^\{"level":30,"time":\d+,"service":"toolcat","source":"github","toolCount":3,"msg":"source synced"\}\n$/);
    });

    it('does no work at all for a disabled level: its arguments are never read and nothing is written', () => {
      const { log, lines } = capture('warn');
      let reads = 0;
      const arg = Object.defineProperty({}, 'secret', { enumerable: true, get: () => (reads++, PLANTED.nameToken) });
      for (let i = 0; i < 1000; i++) log.debug(arg, 'never written');
      log.info(arg, 'never written either');
      expect({ reads, lines: lines.length }).to.deep.equal({ reads: 0, lines: 0 });
    });
  });

  describe('secret values for error texts', () => {
    const env = { TOKEN_VAR: PLANTED.fromEnvEnv, AUTH_VAR: `Bearer ${PLANTED.headerBearer}`, URL_VAR: `https://mcp.example.com/v1/${PLANTED.urlQuerySecret}?k=${PLANTED.literalEnv}` };

    it('include resolved { fromEnv } values, their credential parts and the forms they take in texts; never a missing variable', () => {
      const values = secretValues(
        { env: { A: { value: PLANTED.literalEnv }, B: { fromEnv: 'TOKEN_VAR' }, C: { fromEnv: 'UNSET_VAR' } }, headers: { Authorization: { fromEnv: 'AUTH_VAR' } }, url: { fromEnv: 'URL_VAR' } },
        env,
      );
      expect(values).to.include.members([PLANTED.literalEnv, PLANTED.fromEnvEnv, `Bearer ${PLANTED.headerBearer}`, PLANTED.headerBearer, env.URL_VAR, `https://mcp.example.com/v1/${PLANTED.urlQuerySecret}`]);
      expect(values).to.include(encodeURIComponent(`Bearer ${PLANTED.headerBearer}`));
      expect(values.some((v) => v === '' || v === undefined)).to.equal(false);
    });

    it('sanitizeError removes every one of them from a server\'s echo (the fromEnv ones were kept before issue 11)', () => {
      const secrets = { env: { B: { fromEnv: 'TOKEN_VAR' } }, headers: { Authorization: { fromEnv: 'AUTH_VAR' } }, url: { fromEnv: 'URL_VAR' } };
      const echo = `stderr: token=${PLANTED.fromEnvEnv} auth ${PLANTED.headerBearer} url ${env.URL_VAR} json ${JSON.stringify({ v: PLANTED.fromEnvEnv })}`;
      const text = sanitizeError(new Error(echo), secretValues(secrets, env));
      for (const v of [PLANTED.fromEnvEnv, PLANTED.headerBearer, PLANTED.urlQuerySecret, PLANTED.literalEnv]) expect(text).not.to.include(v);
      expect(text).to.match(/^stderr: token=\[redacted\] auth \[redacted\] url \[redacted\] json/);
    });
  });

  it('the sync metric never carries a source name that looks like a token as a label (one registered before names were checked)', async () => {
    const cache = { stats: () => ({ hits: 0, misses: 0, documentBytes: 0, descriptorBytes: 0 }) } as unknown as CatalogCache;
    const m = createMetrics({ cache, dataSource: { options: { type: 'sqlite' }, isInitialized: true } as unknown as DataSource });
    m.syncResults.inc({ source: PLANTED.duplicateNameToken, status: 'failing' });
    m.syncResults.inc({ source: 'github', status: 'ok' });
    const text = await m.registry.metrics();
    expect(text).not.to.include(PLANTED.duplicateNameToken);
    expect(text).to.include('toolcat_source_sync_total{source="[redacted]",status="failing"} 1').and.include('toolcat_source_sync_total{source="github",status="ok"} 1');
  });

  describe('source names and URLs', () => {
    const spec = { name: 'x', transport: 'stdio' as const, command: 'node', args: [], tenantId: null, driftPolicy: 'withhold' as const, syncIntervalSeconds: 0, enabled: true };
    const none = { env: {}, headers: {}, url: null };
    it('a source name that looks like a token is refused (it would be in every toolId, metric label and log line)', () => {
      expect(() => validateSource({ ...spec, name: 'xoxb-1234567890-abcdefghij' }, none)).to.throw(/name looks like a credential/);
      expect(() => validateSource({ ...spec, name: 'github' }, none)).not.to.throw();
    });
    it('the public form of a URL keeps scheme, host and path, with a token in the path redacted', () => {
      expect(publicUrl({ value: `https://hooks.example.com/mcp/${PLANTED.urlPathToken}/x?token=abc` })).to.equal('https://hooks.example.com/mcp/[redacted]/x');
      expect(publicUrl({ value: 'https://mcp.example.com/v1/sse' })).to.equal('https://mcp.example.com/v1/sse');
    });
  });
});

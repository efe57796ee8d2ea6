/**
 * The main thread's work on a call's arguments is bounded whatever their size (red-team pass on issue 14, finding 2;
 * item 6, Containment): a call with 60,000-key arguments (~650 KB, inside the 1 MiB limit) used to walk them on the
 * event loop four times (depth, the canonical text behind the request hash, the scan for non-finite numbers, the
 * copy to the checker), ~40-65 ms each, stalling every tenant's requests. Asserted by counting, never by timing: a
 * getter in the arguments counts how often the main thread reads them; the request hash and the outcome stay those
 * of the small-value path.
 */
import { expect } from 'chai';
import { canonical } from '../../src/catalog/compact/json';
import type { Principal } from '../../src/catalog/principal';
import { DEFAULT_CALL_SETTINGS } from '../../src/config/call-settings';
import { InvocationService } from '../../src/invocation/invocation.service';
import type { UpstreamCall } from '../../src/invocation/upstream';
import { createLogger } from '../../src/shared/logger';
import { sha256Hex } from '../../src/shared/sha256';

const TOOL = 'ext.wide';
const SCHEMA = { type: 'object', additionalProperties: { type: ['string', 'number'] } };

/** An invocation core over stubs: the decision always allows TOOL, the store keeps rows in memory. */
function core(record = false) {
  const rows: Array<Record<string, unknown>> = [];
  const sent: unknown[] = [];
  const body = Buffer.from(JSON.stringify({ toolId: TOOL, name: 'wide', description: 'd', inputSchema: SCHEMA, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' }));
  const svc = new InvocationService({
    ds: {} as never,
    generation: { poll: async () => undefined } as never,
    catalog: { toolDocument: async () => ({ etag: '"e1"', body: { toString: () => body.toString(), bytes: body } }) } as never,
    upstream: {
      call: async (_t: unknown, c: UpstreamCall) => (sent.push(c.arguments), { isError: false, content: [{ type: 'text', text: 'ok' }] }),
      close: async () => undefined,
    } as never,
    store: {
      byKey: async () => null,
      begin: async (r: Record<string, unknown>) => void rows.push(r),
      finish: async () => undefined,
    } as never,
    settings: { ...DEFAULT_CALL_SETTINGS, recordArguments: record },
    log: createLogger('silent'),
  });
  return { svc, rows, sent };
}

const P: Principal = { id: 'p1', kind: 'api-key', tenantId: 't1', tenantName: 't1', name: 'p1', role: 'member', groups: [] } as unknown as Principal;

/** `n` keys, one of them a getter counting its reads. */
function wide(n: number): { value: Record<string, unknown>; reads: () => number } {
  const value: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) value[`key${i}`] = `value${i}`;
  let reads = 0;
  Object.defineProperty(value, 'counted', { enumerable: true, get: () => (reads++, 'x') });
  return { value, reads: () => reads };
}

const hashOf = (args: unknown) => sha256Hex(`[${JSON.stringify(TOOL)},${canonical(JSON.parse(JSON.stringify(args)))}]`);

describe('the main thread reads large arguments once (issue 14, red-team finding 2)', function () {
  const cores: Array<ReturnType<typeof core>> = [];
  const make = (record = false) => {
    const c = core(record);
    cores.push(c);
    return c;
  };
  after(async () => {
    for (const c of cores) await c.svc.stop();
  });

  it('60,000-key arguments: one read on the main thread (the copy to the worker pool), the same hash and answer', async function () {
    this.timeout(30000);
    const { svc, rows, sent } = make();
    const { value, reads } = wide(60_000);
    const handle = await svc.start(P, TOOL, value);
    const mainThreadReads = reads();
    await handle!.done;
    expect(mainThreadReads, 'reads of the arguments on the main thread before the call was sent').to.be.at.most(1);
    expect(rows[0].requestHash).to.equal(hashOf(value));
    expect(rows[0].argumentBytes).to.equal(Buffer.byteLength(canonical(JSON.parse(JSON.stringify(value)))));
    expect(sent).to.have.length(1);
  });
});

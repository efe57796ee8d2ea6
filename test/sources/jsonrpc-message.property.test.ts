/**
 * Issue 14: HttpClientTransport checks each message a Streamable HTTP server sends by hand (isJsonRpcMessage, for
 * speed on the call path). It must accept and reject exactly what the MCP SDK's JSONRPCMessageSchema does: the SDK's
 * schema is the oracle here, over messages shaped like real ones and broken in every field and key.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcMessage } from '../../src/shared/jsonrpc-message';

const SEED = Number(process.env.TOOLCAT_PROPERTY_SEED ?? 140031);
const RUNS = 10000;

const anyJson = fc.jsonValue({ maxDepth: 2 });
const id = fc.oneof({ weight: 4, arbitrary: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()) }, { weight: 1, arbitrary: fc.oneof(fc.double(), fc.constant(null), fc.constant(2 ** 60), anyJson) });
const meta = fc.oneof(
  fc.record({ progressToken: id, 'io.modelcontextprotocol/related-task': fc.oneof(fc.record({ taskId: fc.oneof(fc.string(), anyJson), other: fc.string() }, { requiredKeys: [] }), anyJson), extra: anyJson }, { requiredKeys: [] }),
  anyJson,
);
const params = fc.oneof(fc.record({ _meta: meta, name: fc.string(), arguments: anyJson }, { requiredKeys: [] }), anyJson);
const error = fc.oneof(fc.record({ code: fc.oneof(fc.integer(), fc.double(), fc.string()), message: fc.oneof(fc.string(), anyJson), data: anyJson, extra: anyJson }, { requiredKeys: [] }), anyJson);
const result = fc.oneof(fc.record({ _meta: meta, content: anyJson, isError: anyJson }, { requiredKeys: [] }), anyJson);
const version = fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: anyJson });
/** Now and then one key more: another kind's member, or an unknown one. */
const stray = fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ result }) }, { weight: 1, arbitrary: fc.record({ extra: anyJson }) }, { weight: 1, arbitrary: fc.record({ method: fc.string() }) });
const kinded = <T>(a: fc.Arbitrary<T>) => fc.tuple(a, stray).map(([m, s]) => ({ ...m, ...s }));
const methodName = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('tools/call', 'notifications/progress', 'notifications/initialized') }, { weight: 1, arbitrary: anyJson });
const message = fc.oneof(
  kinded(fc.record({ jsonrpc: version, id, method: methodName, params }, { requiredKeys: ['jsonrpc', 'id', 'method'] })),
  kinded(fc.record({ jsonrpc: version, method: methodName, params }, { requiredKeys: ['jsonrpc', 'method'] })),
  kinded(fc.record({ jsonrpc: version, id, result }, { requiredKeys: ['jsonrpc', 'result'] })),
  kinded(fc.record({ jsonrpc: version, id, error }, { requiredKeys: ['jsonrpc', 'error'] })),
  fc.record({ jsonrpc: version, id, method: methodName, params, result, error, extra: anyJson, __proto__: anyJson }, { requiredKeys: [] }),
  anyJson,
);

describe('JSON-RPC message check (issue 14): the same verdict as the MCP SDK schema it replaced', () => {
  it(`agrees with JSONRPCMessageSchema on every generated message (seed ${SEED}, ${RUNS} runs)`, function () {
    this.timeout(120000);
    console.log(`      jsonrpc-message property seed ${SEED}`);
    let accepted = 0;
    fc.assert(
      fc.property(message, (v) => {
        // Through JSON, as the transport sees it (JSON.parse makes a `__proto__` key an own property).
        const m: unknown = JSON.parse(JSON.stringify(v));
        const oracle = JSONRPCMessageSchema.safeParse(m).success;
        expect(isJsonRpcMessage(m), `verdict on ${JSON.stringify(m)}`).to.equal(oracle);
        if (oracle) accepted++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator reaches both verdicts, so agreement is not agreement on rejections alone.
    expect(accepted).to.be.greaterThan(RUNS / 10);
  });

  it('accepts the four kinds and refuses their near misses', () => {
    expect(isJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).to.equal(true);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } })).to.equal(true);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', id: 'a', result: { content: [] } })).to.equal(true);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', error: { code: -32600, message: 'bad' } })).to.equal(true);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: {}, extra: 1 })).to.equal(false);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', id: 1.5, result: {} })).to.equal(false);
    expect(isJsonRpcMessage({ jsonrpc: '2.0', id: 1, method: 'x', result: {} })).to.equal(false);
    expect(isJsonRpcMessage([{ jsonrpc: '2.0', id: 1, result: {} }])).to.equal(false);
  });
});

/**
 * Issue 21: the MCP face answers tools/list itself (src/mcp-face/list-answer.ts) instead of through the SDK, on a
 * hand-written check of the request and an envelope built once per page. Both are held to the SDK as oracle:
 *   - the check accepts exactly what the SDK's transport (JSONRPCRequestSchema, strict) and handler
 *     (ListToolsRequestSchema) accept, over requests shaped like real ones and broken in every field;
 *   - the answer's bytes are the SDK's: JSON.stringify({ result, jsonrpc: '2.0', id }) (Protocol._onrequest's key
 *     order), for any result and any id.
 */
import type { IncomingMessage } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { JSONRPCRequestSchema, ListToolsRequestSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { isDirectList, listAnswerBytes, listAnswerHead } from '../../src/mcp-face/list-answer';

const SEED = Number(process.env.TOOLCAT_PROPERTY_SEED ?? 210015);
const RUNS = 5000;

const anyJson = fc.jsonValue({ maxDepth: 2 });
const text = fc.string({ unit: 'binary', maxLength: 12 });
/** Ids and progress tokens: the valid kinds and every near miss (floats, unsafe integers, other JSON values). */
const idLike = fc.oneof(text, fc.integer(), fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1.5, -0, 1e21), fc.double({ noNaN: true, noDefaultInfinity: true }), anyJson);
const meta = fc.oneof(
  fc.record({ progressToken: idLike, [RELATED_TASK_META_KEY]: fc.oneof(fc.record({ taskId: fc.oneof(text, anyJson) }, { requiredKeys: [] }), anyJson), other: anyJson }, { requiredKeys: [] }),
  anyJson,
);
const params = fc.oneof(fc.record({ cursor: fc.oneof(text, anyJson), _meta: meta, other: anyJson }, { requiredKeys: [] }), anyJson);
const request = fc.oneof(
  { weight: 5, arbitrary: fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), anyJson), id: idLike, method: fc.oneof(fc.constant('tools/list'), fc.constantFrom('tools/call', 'tools/List', ''), anyJson), params, extra: anyJson }, { requiredKeys: [] }) },
  { weight: 5, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: idLike, method: fc.constant('tools/list'), params }, { requiredKeys: ['jsonrpc', 'method'] }) },
  { weight: 1, arbitrary: anyJson },
);

/** What the request carries besides its body: the Accept both kinds of answer need, no protocol version header. */
const req = { headers: { accept: 'application/json, text/event-stream' } } as unknown as IncomingMessage;

describe('the MCP face\'s own tools/list answer (issue 21): the SDK as oracle', () => {
  it(`accepts exactly the requests the SDK accepts as tools/list (seed ${SEED}, ${RUNS} runs)`, () => {
    console.log(`      list-answer request property seed ${SEED}`);
    let accepted = 0;
    fc.assert(
      fc.property(request, (generated) => {
        // Bodies arrive as JSON text: what JSON.parse gives back is what both checks see.
        const body = JSON.parse(JSON.stringify(generated) ?? 'null') as unknown;
        const oracle = JSONRPCRequestSchema.safeParse(body).success && ListToolsRequestSchema.safeParse(body).success;
        const mine = isDirectList(req, body);
        if (mine) accepted++;
        expect(mine, `verdict on ${JSON.stringify(body)}`).to.equal(oracle);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Not a vacuous agreement: a good share of the generated requests are real tools/list requests.
    expect(accepted).to.be.greaterThan(RUNS / 20);
  });

  it(`answers the bytes the SDK sends for the same result and id (seed ${SEED}, ${RUNS} runs)`, () => {
    console.log(`      list-answer bytes property seed ${SEED}`);
    const result = fc.record({ tools: fc.array(fc.dictionary(text, anyJson, { maxKeys: 4 }), { maxLength: 4 }), nextCursor: text }, { requiredKeys: ['tools'] });
    const id = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }));
    fc.assert(
      fc.property(result, id, (r, i) => {
        const sdk = Buffer.from(JSON.stringify({ result: r, jsonrpc: '2.0', id: i }), 'utf8');
        expect(listAnswerBytes(listAnswerHead(JSON.stringify(r)), i).equals(sdk), `result ${JSON.stringify(r)}, id ${JSON.stringify(i)}`).to.equal(true);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('declines what only the SDK may answer: extra envelope keys, a non-string cursor, a batch, a wrong Accept or version', () => {
    const good = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    expect(isDirectList(req, good)).to.equal(true);
    expect(isDirectList(req, { ...good, extra: 1 })).to.equal(false);
    expect(isDirectList(req, { ...good, params: { cursor: 5 } })).to.equal(false);
    expect(isDirectList(req, { ...good, id: 1.5 })).to.equal(false);
    expect(isDirectList(req, [good])).to.equal(false);
    expect(isDirectList({ headers: { accept: 'application/json' } } as unknown as IncomingMessage, good)).to.equal(false);
    expect(isDirectList({ headers: { ...req.headers, 'mcp-protocol-version': '1999-01-01' } } as unknown as IncomingMessage, good)).to.equal(false);
  });
});

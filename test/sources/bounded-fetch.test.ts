/**
 * The fetch toolcat gives the SDK's Streamable HTTP transport (src/sources/mcp/bounded-fetch.ts). Found by the
 * issue-14 bench profile: the SDK passes one session-wide AbortSignal to every request, and every request left an
 * abort listener on it, so a long-lived call session grew by a listener per call, and each new request paid for
 * all the earlier ones (undici copies the listener list on every fetch).
 */
import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { boundedFetch } from '../../src/sources/mcp/bounded-fetch';
import { startEverythingHttp } from '../helpers/mcp-servers';

describe('boundedFetch on a long-lived Streamable HTTP session', () => {
  it('leaves no abort listener behind on the session signal per request (bounded, not growing with calls)', async function () {
    this.timeout(60000);
    const server = await startEverythingHttp();
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: boundedFetch(16 * 1024 * 1024) });
    const client = new Client({ name: 'toolcat-test', version: '1' }, { capabilities: {} });
    try {
      await client.connect(transport);
      const signal = (transport as unknown as { _abortController: AbortController })._abortController.signal;
      const counts: number[] = [];
      for (let i = 1; i <= 120; i++) {
        const r = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: `n${i}` } } }, CallToolResultSchema);
        expect((r.content[0] as { text: string }).text).to.equal(`Echo: n${i}`);
        if (i % 40 === 0) counts.push(getEventListeners(signal, 'abort').length);
      }
      // A long-lived GET stream may hold one; nothing grows with the number of calls.
      for (const c of counts) expect(c, `listeners after each 40 calls: ${counts.join(', ')}`).to.be.at.most(2);
    } finally {
      await client.close();
      server.stop();
    }
  });
});

/**
 * Issue 12 (memory of a big sync): a listing is handed over page by page, and nothing of a page stays reachable once
 * it was handed over. The MCP SDK leaves an abort listener on the signal a request is given, and that listener holds
 * the request's answer: a sync that gave every page request its own deadline kept every page of its listing alive.
 */
import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { openSession } from '../../src/sources/mcp/mcp-session';
import { DEFAULT_SYNC_LIMITS } from '../../src/config/sync-settings';
import { HOSTILE_BIN } from '../helpers/mcp-servers';

describe('issue 12: a streamed tools/list', () => {
  it('hands each page over as it arrives, accumulates nothing, and leaves no listener on the sync deadline', async function () {
    this.timeout(60000);
    const spec = { name: 'paged', transport: 'stdio' as const, command: process.execPath, args: [HOSTILE_BIN], tenantId: null, driftPolicy: 'keep-serving' as const, syncIntervalSeconds: 0, enabled: true };
    const secrets = { env: { HOSTILE_PAGE_SIZE: { value: '3' }, HOSTILE_HEAVY_TOOLS: { value: '14' } }, url: null, headers: {} };
    const session = await openSession(spec, secrets, {}, DEFAULT_SYNC_LIMITS, { version: 'test' });
    try {
      const deadline = new AbortController().signal;
      const pages: number[] = [];
      const events: string[] = [];
      const kept = await session.listAllTools(DEFAULT_SYNC_LIMITS, deadline, (p) => events.push(`read ${p.pages}`), async (tools) => {
        events.push(`page of ${tools.length}`);
        pages.push(tools.length);
      });
      expect(kept, 'nothing accumulated').to.deep.equal([]);
      expect(pages).to.deep.equal([3, 3, 3, 3, 2]);
      expect(events.filter((e) => e.startsWith('read'))).to.have.length(5);
      expect(getEventListeners(deadline, 'abort'), 'no page request left a listener (and its answer) on the deadline').to.have.length(0);
    } finally {
      await session.close();
    }
  });
});

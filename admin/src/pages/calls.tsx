import { type ReactNode, useState } from 'react';
import { request } from '../api';
import { graphql } from '../graphql';
import { ErrorNote, Loading, Pager, useLoad } from '../ui';
import { Filters } from './log-filters';

const CallsQuery = graphql(`
  query Calls($toolId: String, $outcome: String, $first: Int!, $offset: Int!) {
    toolCalls(toolId: $toolId, outcome: $outcome, first: $first, offset: $offset) {
      callId toolId tenantId principalId principalKind status outcome startedAt durationMs safetyTier attempts argumentBytes resultBytes
    }
  }
`);

const PAGE_SIZE = 20;

export function CallsPage(): ReactNode {
  const [filter, setFilter] = useState({ toolId: '', outcome: '' });
  const [offset, setOffset] = useState(0);
  const vars = { toolId: filter.toolId || null, outcome: filter.outcome || null, first: PAGE_SIZE, offset };
  const { data, error, loading } = useLoad(() => request(CallsQuery, vars), JSON.stringify(vars));
  const rows = data?.toolCalls ?? [];
  return (
    <>
      <Filters fields={[{ key: 'toolId', label: 'Tool id' }, { key: 'outcome', label: 'Outcome' }]} onApply={(v) => { setFilter(v); setOffset(0); }} />
      <Loading on={loading} />
      <ErrorNote error={error} />
      <table>
        <caption className="visually-hidden">Tool calls, newest first</caption>
        <thead><tr><th scope="col">Started</th><th scope="col">Tool</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Tier</th><th scope="col">Principal</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.callId} data-call={r.toolId}>
              <td>{r.startedAt}</td><td><code>{r.toolId}</code></td><td>{r.status}</td><td>{r.outcome ?? ''}</td>
              <td>{r.durationMs === null ? '' : `${r.durationMs} ms`}</td><td>{r.safetyTier}</td>
              <td><code>{r.principalId}</code> <span className="muted">({r.principalKind})</span></td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label="Call log" offset={offset} size={PAGE_SIZE} count={rows.length} loading={loading} onOffset={setOffset} />
    </>
  );
}

import { type ReactNode, useState } from 'react';
import { request } from '../api';
import { graphql } from '../graphql';
import { ErrorNote, Json, Loading, Pager, useLoad } from '../ui';
import { Filters } from './log-filters';

const AuditQuery = graphql(`
  query Audit($action: String, $targetId: String, $first: Int!, $offset: Int!) {
    auditLog(action: $action, targetId: $targetId, first: $first, offset: $offset) {
      id at action actorName actorRole targetType targetId tenantId requestId before after
    }
  }
`);

const PAGE_SIZE = 20;

export function AuditPage(): ReactNode {
  const [filter, setFilter] = useState({ action: '', targetId: '' });
  const [offset, setOffset] = useState(0);
  const vars = { action: filter.action || null, targetId: filter.targetId || null, first: PAGE_SIZE, offset };
  const { data, error, loading } = useLoad(() => request(AuditQuery, vars), JSON.stringify(vars));
  const rows = data?.auditLog ?? [];
  return (
    <>
      <Filters fields={[{ key: 'action', label: 'Action' }, { key: 'targetId', label: 'Target id' }]} onApply={(v) => { setFilter(v); setOffset(0); }} />
      <Loading on={loading} />
      <ErrorNote error={error} />
      <table>
        <caption className="visually-hidden">Audit entries, newest first</caption>
        <thead><tr><th scope="col">At</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-audit={r.action}>
              <td>{r.at}</td><td>{r.action}</td><td>{r.actorName} <span className="muted">({r.actorRole})</span></td>
              <td>{r.targetType} <code>{r.targetId}</code></td>
              <td>
                <details>
                  <summary>before / after</summary>
                  <Json value={r.before} label={`before ${r.id}`} />
                  <Json value={r.after} label={`after ${r.id}`} />
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label="Audit log" offset={offset} size={PAGE_SIZE} count={rows.length} loading={loading} onOffset={setOffset} />
    </>
  );
}

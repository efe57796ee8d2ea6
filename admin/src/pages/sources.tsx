import { type ReactNode, useEffect, useState } from 'react';
import { request } from '../api';
import { type ResultOf, graphql } from '../graphql';
import { ErrorNote, Loading, useLoad } from '../ui';

const SourcesQuery = graphql(`
  query Sources {
    sources {
      name transport status enabled origin toolCount quarantinedCount lastSyncAt lastSuccessAt lastError syncIntervalSeconds
      throttledUntil throttleReason
      syncProgress { startedAt pages toolsRead updatedAt }
    }
  }
`);
const SyncMutation = graphql(`
  mutation SyncNow($name: String!) {
    syncSource(name: $name) { source status added changed removed toolCount quarantinedCount durationMs error }
  }
`);

type SyncResult = ResultOf<typeof SyncMutation>['syncSource'];

/** While a sync runs the list is re-read this often, to show its progress (pages and tools read so far). */
const PROGRESS_POLL_MS = 500;

export function SourcesPage(): ReactNode {
  const { data, error, loading, reload } = useLoad(() => request(SourcesQuery, {}), 'sources');
  const [syncing, setSyncing] = useState<ReadonlySet<string>>(new Set());
  const [results, setResults] = useState<Readonly<Record<string, SyncResult | Error>>>({});
  const anyRunning = syncing.size > 0 || (data?.sources.some((s) => s.syncProgress) ?? false);
  useEffect(() => {
    if (!anyRunning) return;
    const t = setInterval(reload, PROGRESS_POLL_MS);
    return () => clearInterval(t);
  }, [anyRunning, reload]);

  const syncNow = async (name: string): Promise<void> => {
    setSyncing((s) => new Set([...s, name]));
    try {
      const r = await request(SyncMutation, { name });
      setResults((x) => ({ ...x, [name]: r.syncSource }));
    } catch (err) {
      setResults((x) => ({ ...x, [name]: err instanceof Error ? err : new Error(String(err)) }));
    } finally {
      setSyncing((s) => new Set([...s].filter((n) => n !== name)));
      reload();
    }
  };

  return (
    <>
      <Loading on={loading && !data} />
      <ErrorNote error={error} />
      {data && data.sources.length === 0 ? <p>No MCP sources are registered.</p> : null}
      {data && data.sources.length > 0 ? (
        <table>
          <caption className="visually-hidden">MCP sources</caption>
          <thead>
            <tr>
              <th scope="col">Name</th><th scope="col">Status</th><th scope="col">Tools</th><th scope="col">Quarantined</th>
              <th scope="col">Last sync</th><th scope="col">Last success</th><th scope="col">Progress</th><th scope="col">Last error</th><th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {data.sources.map((s) => {
              const result = results[s.name];
              return (
                <tr key={s.name} data-source={s.name}>
                  <th scope="row">{s.name} <span className="muted">({s.transport}, {s.origin}{s.enabled ? '' : ', disabled'})</span></th>
                  <td><span className={`status status-${s.status}`}>{s.status}</span>{s.throttledUntil ? <span className="muted"> throttled until {s.throttledUntil}: {s.throttleReason}</span> : null}</td>
                  <td>{s.toolCount}</td>
                  <td>{s.quarantinedCount}</td>
                  <td>{s.lastSyncAt ?? 'never'}</td>
                  <td>{s.lastSuccessAt ?? 'never'}</td>
                  <td aria-live="polite">
                    {s.syncProgress ? `syncing: ${s.syncProgress.pages} pages, ${s.syncProgress.toolsRead} tools read` : syncing.has(s.name) ? 'syncing…' : 'idle'}
                  </td>
                  <td className="error-cell">{s.lastError ?? ''}</td>
                  <td>
                    <button type="button" disabled={syncing.has(s.name)} onClick={() => void syncNow(s.name)}>
                      Sync {s.name} now
                    </button>
                    {result instanceof Error ? <ErrorNote error={result} /> : null}
                    {result && !(result instanceof Error) ? (
                      <p className="result" role="status">
                        {result.status}: {result.toolCount} tools (+{result.added} ~{result.changed} −{result.removed}), {result.quarantinedCount} quarantined{result.error ? `; ${result.error}` : ''}
                      </p>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

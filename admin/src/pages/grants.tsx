import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { request } from '../api';
import type { Me } from '../app';
import { type ResultOf, graphql } from '../graphql';
import { ErrorNote, Loading, useAction, useLoad } from '../ui';
import { TenantPicker } from './tenant-picker';

const GrantsQuery = graphql(`
  query Grants($tenantId: ID!) {
    tenants { id name }
    grants(tenantId: $tenantId) { id toolPattern source maxSafetyTier principalId group withinCeiling createdAt }
    principals(tenantId: $tenantId) { id name role revokedAt }
  }
`);
const PreviewQuery = graphql(`
  query Preview($principalId: ID!, $draftGrants: [DraftGrantInput!]) {
    previewTools(principalId: $principalId, draftGrants: $draftGrants) {
      appliedView
      tools { ... on ToolDescriptor { toolId safetyTier source } }
    }
  }
`);
const CreateGrant = graphql(`
  mutation CreateGrant($input: CreateGrantInput!) { createGrant(input: $input) { id } }
`);
const DeleteGrant = graphql(`
  mutation DeleteGrant($id: ID!) { deleteGrant(id: $id) }
`);

type Preview = ResultOf<typeof PreviewQuery>['previewTools'];
interface Draft { toolPattern: string; source: string; maxSafetyTier: string; principalId: string }
const EMPTY: Draft = { toolPattern: '', source: '', maxSafetyTier: '', principalId: '' };

/** The draft preview is asked this long after the last keystroke. */
const DRAFT_DEBOUNCE_MS = 250;

const idsOf = (p: Preview | null | undefined): string[] => p?.tools.map((t) => ('toolId' in t ? t.toolId : '?')) ?? [];

/**
 * What the principal would see with the draft saved: previewTools(draftGrants:) runs the catalog's own visibility
 * query with the draft added, checked as createGrant checks it, and saves nothing. Debounced while typing.
 */
function useDraftPreview(principal: string, draft: Draft, round: number): { data: Preview | null; error: Error | undefined; pending: boolean } {
  // `of` is the draft the state answers, and pending is derived from it during render (as in useLoad): the render of
  // an edit already says "Reading…" instead of showing the previous draft's preview as this one's.
  const [state, setState] = useState<{ data: Preview | null; error?: Error; of?: string }>({ data: null });
  const key = JSON.stringify([principal, draft, round]);
  useEffect(() => {
    if (!principal || !draft.toolPattern) {
      setState({ data: null, of: key });
      return;
    }
    let current = true;
    const t = setTimeout(() => {
      const draftGrants = [{ toolPattern: draft.toolPattern, source: draft.source || null, maxSafetyTier: draft.maxSafetyTier || null, principalId: draft.principalId || null }];
      request(PreviewQuery, { principalId: principal, draftGrants }).then(
        (r) => current && setState({ data: r.previewTools, of: key }),
        (error: unknown) => current && setState({ data: null, error: error instanceof Error ? error : new Error(String(error)), of: key }),
      );
    }, DRAFT_DEBOUNCE_MS);
    return () => {
      current = false;
      clearTimeout(t);
    };
  }, [key]);
  return { data: state.data, error: state.error, pending: state.of !== key };
}

export function GrantsPage({ me, tenantId }: { me: Me; tenantId: string | null }): ReactNode {
  const tenant = tenantId ?? me.tenantId;
  const { data, error, loading, reload } = useLoad(() => request(GrantsQuery, { tenantId: tenant }), `grants:${tenant}`);
  const [previewFor, setPreviewFor] = useState('');
  const principal = previewFor || data?.principals.find((p) => !p.revokedAt)?.id || '';
  const [round, setRound] = useState(0);
  const preview = useLoad(() => (principal ? request(PreviewQuery, { principalId: principal, draftGrants: null }) : Promise.resolve(null)), `preview:${principal}:${round}`);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const withDraft = useDraftPreview(principal, draft, round);
  const save = useAction();
  const remove = useAction();
  const refresh = (): void => {
    reload();
    setRound((r) => r + 1);
  };

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const input = {
      tenantId: tenant,
      toolPattern: draft.toolPattern,
      source: draft.source || null,
      maxSafetyTier: draft.maxSafetyTier || null,
      principalId: draft.principalId || null,
    };
    void save.run(() => request(CreateGrant, { input })).then((ok) => {
      if (!ok) return;
      setDraft(EMPTY);
      refresh();
    });
  };
  const previewTools = idsOf(preview.data?.previewTools);
  const draftTools = withDraft.data ? idsOf(withDraft.data) : null;
  const now = new Set(previewTools);

  return (
    <>
      {data ? <TenantPicker page="grants" tenants={data.tenants} current={tenant} /> : null}
      <Loading on={loading && !data} />
      <ErrorNote error={error} />
      {data ? (
        <div className="two-columns">
          <section aria-labelledby="grants-h">
            <h2 id="grants-h">Grants of {data.tenants.find((t) => t.id === tenant)?.name ?? 'this tenant'}</h2>
            {data.grants.length === 0 ? <p>No grants: the tenant's agents see nothing.</p> : null}
            <ul className="plain">
              {data.grants.map((g) => (
                <li key={g.id} data-grant={g.toolPattern}>
                  <code>{g.toolPattern}</code>
                  {g.source ? ` from ${g.source}` : ''}
                  {g.maxSafetyTier ? ` up to ${g.maxSafetyTier}` : ''}
                  {g.principalId ? ` narrows ${data.principals.find((p) => p.id === g.principalId)?.name ?? g.principalId}` : ''}
                  {g.group ? ` narrows group ${g.group}` : ''}
                  {g.withinCeiling ? '' : ' (outside the ceiling: no effect)'}{' '}
                  <button type="button" disabled={remove.busy} onClick={() => void remove.run(() => request(DeleteGrant, { id: g.id })).then((ok) => ok && refresh())}>
                    Delete grant {g.toolPattern}
                  </button>
                </li>
              ))}
            </ul>
            <ErrorNote error={remove.error} />
            <h3>New grant</h3>
            <form onSubmit={submit} className="stack">
              <label>
                Tool pattern (* matches any run)
                <input name="toolPattern" required value={draft.toolPattern} onChange={(e) => setDraft({ ...draft, toolPattern: e.target.value })} />
              </label>
              <label>
                Source
                <select name="source" value={draft.source} onChange={(e) => setDraft({ ...draft, source: e.target.value })}>
                  <option value="">every source</option><option value="mcp">mcp</option><option value="host-extension">host-extension</option>
                </select>
              </label>
              <label>
                Highest safety tier
                <select name="maxSafetyTier" value={draft.maxSafetyTier} onChange={(e) => setDraft({ ...draft, maxSafetyTier: e.target.value })}>
                  <option value="">every tier</option>
                  {['pure', 'read', 'write', 'exec'].map((t) => <option key={t}>{t}</option>)}
                </select>
              </label>
              <label>
                Applies to
                <select name="principalId" value={draft.principalId} onChange={(e) => setDraft({ ...draft, principalId: e.target.value })}>
                  <option value="">the whole tenant</option>
                  {data.principals.map((p) => <option key={p.id} value={p.id}>narrow {p.name}</option>)}
                </select>
              </label>
              <ErrorNote error={withDraft.error} />
              <button type="submit" disabled={save.busy || !draft.toolPattern}>Save grant</button>
              <ErrorNote error={save.error} />
            </form>
          </section>
          <section aria-labelledby="preview-h">
            <h2 id="preview-h">What a principal sees</h2>
            <label>
              Preview for
              <select value={principal} onChange={(e) => setPreviewFor(e.target.value)}>
                {data.principals.length === 0 ? <option value="">no principals</option> : null}
                {data.principals.map((p) => <option key={p.id} value={p.id}>{p.name} ({p.role}{p.revokedAt ? ', revoked' : ''})</option>)}
              </select>
            </label>
            <p className="muted">Exactly its own GET /tools, read live through previewTools.</p>
            <ErrorNote error={preview.error} />
            <div aria-live="polite" data-preview>
              <h3>Now</h3>
              <p>{preview.loading ? 'Reading…' : `${previewTools.length} tool${previewTools.length === 1 ? '' : 's'} visible`}</p>
              <ul className="plain">{previewTools.map((t) => <li key={t}><code>{t}</code></li>)}</ul>
            </div>
            {draft.toolPattern ? (
              <div aria-live="polite" data-draft-preview>
                <h3>With the draft grant, before saving</h3>
                <p>{withDraft.pending || !draftTools ? 'Reading…' : `${draftTools.length} tool${draftTools.length === 1 ? '' : 's'} would be visible`}</p>
                {draftTools ? (
                  <ul className="plain">
                    {draftTools.map((t) => <li key={t} data-tool={t}><code>{t}</code>{now.has(t) ? '' : <strong> (added)</strong>}</li>)}
                    {previewTools.filter((t) => !draftTools.includes(t)).map((t) => <li key={t} data-removed={t}><del><code>{t}</code></del><strong> (no longer visible)</strong></li>)}
                  </ul>
                ) : null}
              </div>
            ) : null}
          </section>
        </div>
      ) : null}
    </>
  );
}

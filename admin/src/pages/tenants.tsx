import { type FormEvent, type ReactNode, useState } from 'react';
import { request } from '../api';
import type { Me } from '../app';
import { graphql } from '../graphql';
import { ErrorNote, Loading, useAction, useLoad } from '../ui';
import { TenantPicker } from './tenant-picker';

const TenantsQuery = graphql(`
  query TenantsAndPrincipals($tenantId: ID!) {
    tenants { id name createdAt }
    principals(tenantId: $tenantId) { id name role keyPrefix createdAt revokedAt }
  }
`);
const CreateTenant = graphql(`
  mutation CreateTenant($name: String!) { createTenant(name: $name) { id name } }
`);
const CreatePrincipal = graphql(`
  mutation CreatePrincipal($input: CreatePrincipalInput!) { createPrincipal(input: $input) { apiKey principal { id name } } }
`);
const RevokePrincipal = graphql(`
  mutation RevokePrincipal($id: ID!) { revokePrincipal(id: $id) { id revokedAt } }
`);

export function TenantsPage({ me, tenantId }: { me: Me; tenantId: string | null }): ReactNode {
  const tenant = tenantId ?? me.tenantId;
  const { data, error, loading, reload } = useLoad(() => request(TenantsQuery, { tenantId: tenant }), `tenants:${tenant}`);
  const [tenantName, setTenantName] = useState('');
  const [principal, setPrincipal] = useState({ name: '', role: 'agent' });
  /** The new key: held in this component's state only, shown until dismissed, never stored or re-readable. */
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const act = useAction();

  const addTenant = (e: FormEvent): void => {
    e.preventDefault();
    void act.run(() => request(CreateTenant, { name: tenantName })).then((ok) => {
      if (!ok) return;
      setTenantName('');
      reload();
    });
  };
  const addPrincipal = (e: FormEvent): void => {
    e.preventDefault();
    void act.run(async () => {
      const r = await request(CreatePrincipal, { input: { tenantId: tenant, name: principal.name, role: principal.role } });
      setShown({ name: r.createPrincipal.principal.name, key: r.createPrincipal.apiKey });
      setCopied(false);
      setPrincipal({ name: '', role: 'agent' });
      reload();
    });
  };
  const roles = me.role === 'host-admin' ? ['agent', 'tenant-admin', 'host-admin'] : ['agent', 'tenant-admin'];

  return (
    <>
      {data ? <TenantPicker page="tenants" tenants={data.tenants} current={tenant} /> : null}
      <Loading on={loading && !data} />
      <ErrorNote error={error} />
      <ErrorNote error={act.error} />
      {shown ? (
        <section className="key-once" aria-labelledby="key-h" role="region">
          <h2 id="key-h">API key for {shown.name}</h2>
          <p>This key is shown once. Only its hash is stored: copy it now.</p>
          <p><code data-new-key>{shown.key}</code></p>
          <button type="button" onClick={() => void navigator.clipboard.writeText(shown.key).then(() => setCopied(true), () => setCopied(false))}>
            Copy key
          </button>{' '}
          <button type="button" onClick={() => setShown(null)}>I have stored it</button>
          <span role="status">{copied ? ' Copied.' : ''}</span>
        </section>
      ) : null}
      {data ? (
        <div className="two-columns">
          <section aria-labelledby="tenants-h">
            <h2 id="tenants-h">Tenants</h2>
            <ul className="plain">
              {data.tenants.map((t) => (
                <li key={t.id} data-tenant={t.name}>
                  <a href={`#/tenants?tenant=${encodeURIComponent(t.id)}`} aria-current={t.id === tenant ? 'true' : undefined}>{t.name}</a>{' '}
                  <span className="muted">since {t.createdAt}</span>
                </li>
              ))}
            </ul>
            {me.role === 'host-admin' ? (
              <form onSubmit={addTenant} className="row">
                <label>
                  New tenant name
                  <input name="tenantName" required value={tenantName} onChange={(e) => setTenantName(e.target.value)} />
                </label>
                <button type="submit" disabled={act.busy}>Create tenant</button>
              </form>
            ) : null}
          </section>
          <section aria-labelledby="principals-h">
            <h2 id="principals-h">Principals of {data.tenants.find((t) => t.id === tenant)?.name ?? 'this tenant'}</h2>
            {data.principals.length === 0 ? <p>None visible.</p> : (
              <table>
                <caption className="visually-hidden">Principals and their keys</caption>
                <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Key prefix</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
                <tbody>
                  {data.principals.map((p) => (
                    <tr key={p.id} data-principal={p.name}>
                      <th scope="row">{p.name}</th><td>{p.role}</td><td><code>{p.keyPrefix}…</code></td>
                      <td>{p.revokedAt ? `revoked ${p.revokedAt}` : 'active'}</td>
                      <td>
                        {p.revokedAt || p.id === me.principalId ? null : (
                          <button type="button" disabled={act.busy} onClick={() => void act.run(() => request(RevokePrincipal, { id: p.id })).then((ok) => ok && reload())}>
                            Revoke {p.name}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <form onSubmit={addPrincipal} className="row">
              <label>
                New principal name
                <input name="principalName" required value={principal.name} onChange={(e) => setPrincipal({ ...principal, name: e.target.value })} />
              </label>
              <label>
                Role
                <select name="role" value={principal.role} onChange={(e) => setPrincipal({ ...principal, role: e.target.value })}>
                  {roles.map((r) => <option key={r}>{r}</option>)}
                </select>
              </label>
              <button type="submit" disabled={act.busy}>Create principal and key</button>
            </form>
          </section>
        </div>
      ) : null}
    </>
  );
}

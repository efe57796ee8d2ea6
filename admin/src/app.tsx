import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { request } from './api';
import { type ResultOf, graphql } from './graphql';
import { forgetCredential, storeCredential, storedCredential } from './session';
import { type OidcConfig, completeOidc, consoleConfig, startOidc } from './oidc';
import { ErrorNote } from './ui';
import { ReviewPage } from './pages/review';
import { SourcesPage } from './pages/sources';
import { GrantsPage } from './pages/grants';
import { TenantsPage } from './pages/tenants';
import { AuditPage } from './pages/audit';
import { CallsPage } from './pages/calls';

const MeQuery = graphql(`
  query Me {
    me { principalId name role tenantId tenantName kind }
  }
`);
export type Me = ResultOf<typeof MeQuery>['me'];

interface PageDef {
  readonly path: string;
  readonly title: string;
  /** Host-admin pages: the API refuses them to tenant admins anyway; the console does not offer them. */
  readonly hostOnly: boolean;
  readonly render: (me: Me, params: URLSearchParams) => ReactNode;
}

const PAGES: readonly PageDef[] = [
  { path: 'review', title: 'Review queue', hostOnly: true, render: () => <ReviewPage /> },
  { path: 'sources', title: 'Sources', hostOnly: true, render: () => <SourcesPage /> },
  { path: 'grants', title: 'Grants', hostOnly: false, render: (me, p) => <GrantsPage me={me} tenantId={p.get('tenant')} /> },
  { path: 'tenants', title: 'Tenants and keys', hostOnly: false, render: (me, p) => <TenantsPage me={me} tenantId={p.get('tenant')} /> },
  { path: 'audit', title: 'Audit log', hostOnly: false, render: () => <AuditPage /> },
  { path: 'calls', title: 'Call log', hostOnly: false, render: () => <CallsPage /> },
];

/** The route lives in the fragment (#/grants?tenant=…), so the server serves one page and no credential is ever in it. */
function readRoute(): { path: string; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = raw.split('?');
  return { path, params: new URLSearchParams(query) };
}

function useRoute(): { path: string; params: URLSearchParams } {
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const on = (): void => setRoute(readRoute());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function App(): ReactNode {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(true);
  const [oidc, setOidc] = useState<OidcConfig | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const route = useRoute();

  const signIn = async (): Promise<void> => {
    try {
      const r = await request(MeQuery, {});
      if (r.me.role === 'agent') {
        forgetCredential();
        setError(new Error('This key belongs to an agent; the console needs a tenant-admin or host-admin key.'));
        return;
      }
      setMe(r.me);
      setError(null);
    } catch (err) {
      forgetCredential();
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => {
    void (async () => {
      try {
        const cfg = (await consoleConfig()).oidc;
        setOidc(cfg);
        const token = cfg ? await completeOidc(cfg) : null;
        if (token) storeCredential(token);
      } catch (err) {
        setError(err instanceof Error ? err : new Error(String(err)));
      }
      if (storedCredential()) await signIn();
      else setChecking(false);
    })();
  }, []);

  useEffect(() => {
    const page = PAGES.find((p) => p.path === route.path);
    document.title = page ? `${page.title} · toolcat admin` : 'toolcat admin';
  }, [route.path]);

  if (checking) return <main id="main"><p>Signing in…</p></main>;
  if (!me) return <SignIn error={error} oidc={oidc} onKey={(k) => { storeCredential(k); setChecking(true); void signIn(); }} />;

  const pages = PAGES.filter((p) => !p.hostOnly || me.role === 'host-admin');
  const page = pages.find((p) => p.path === route.path) ?? pages[0]!;
  return (
    <>
      <header className="top">
        <p className="brand">toolcat admin</p>
        <nav aria-label="Console">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <a href={`#/${p.path}`} aria-current={p === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p className="who">
          Signed in as <strong>{me.name}</strong> ({me.role}, tenant {me.tenantName}){' '}
          <button type="button" onClick={() => { forgetCredential(); setMe(null); }}>
            Sign out
          </button>
        </p>
      </header>
      <main id="main">
        <h1>{page.title}</h1>
        {page.render(me, route.params)}
      </main>
    </>
  );
}

function SignIn({ onKey, error, oidc }: { onKey: (key: string) => void; error: Error | null; oidc: OidcConfig | null }): ReactNode {
  const [key, setKey] = useState('');
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (key.trim()) onKey(key.trim());
  };
  return (
    <main id="main" className="signin">
      <h1>Sign in to toolcat admin</h1>
      <form onSubmit={submit}>
        <label htmlFor="api-key">Admin API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
        <button type="submit">Sign in</button>
      </form>
      <p className="muted">The key is kept in this tab's session storage only, and sent as a bearer token to /graphql.</p>
      {oidc ? (
        <p>
          <button type="button" onClick={() => void startOidc(oidc)}>Sign in with your identity provider</button>
        </p>
      ) : null}
      <ErrorNote error={error} />
    </main>
  );
}

import { type ComponentProps, type FormEvent, type ReactNode, StrictMode, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { forgetCredential, storeCredential, storedCredential } from './session';
import './graphiql.css';

/**
 * GraphiQL from npm, bundled by vite and served by toolcat itself (issue 20): nothing is loaded from a CDN, so the
 * API can be explored on a machine without internet. It signs in like the console (the same sessionStorage entry)
 * and sends the credential as a bearer token; it never puts it in the URL or in GraphiQL's saved headers.
 */
type Fetcher = ComponentProps<typeof GraphiQL>['fetcher'];

function fetcherFor(credential: string): Fetcher {
  return async (params) => {
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: JSON.stringify(params),
      credentials: 'omit',
    });
    return res.json();
  };
}

function Ide(): ReactNode {
  const [credential, setCredential] = useState(storedCredential());
  const [draft, setDraft] = useState('');
  const fetcher = useMemo(() => (credential ? fetcherFor(credential) : null), [credential]);
  if (!fetcher) {
    const submit = (e: FormEvent): void => {
      e.preventDefault();
      if (!draft.trim()) return;
      storeCredential(draft.trim());
      setCredential(draft.trim());
    };
    return (
      <main className="ide-signin">
        <h1>toolcat GraphQL</h1>
        <form onSubmit={submit}>
          <label htmlFor="ide-key">API key (a tenant-admin or host-admin key sees the admin schema)</label>
          <input id="ide-key" type="password" autoComplete="off" value={draft} onChange={(e) => setDraft(e.target.value)} />
          <button type="submit">Open GraphiQL</button>
        </form>
        <p>The key stays in this tab's session storage. <a href="/admin/">Admin console</a></p>
      </main>
    );
  }
  return (
    <GraphiQL fetcher={fetcher} defaultQuery={'{\n  me { name role tenantName }\n}\n'} shouldPersistHeaders={false}>
      <GraphiQL.Logo>
        toolcat{' '}
        <button type="button" className="ide-signout" onClick={() => { forgetCredential(); setCredential(null); }}>
          Sign out
        </button>
      </GraphiQL.Logo>
    </GraphiQL>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Ide />
  </StrictMode>,
);

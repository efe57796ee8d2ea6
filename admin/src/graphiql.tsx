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

/**
 * CodeMirror's hidden input textareas carry no label (axe-core "label", critical): name each after the editor it
 * belongs to. Done by attribute, after GraphiQL renders them (they come and go with tabs, hence the observer).
 */
const EDITOR_NAMES: ReadonlyArray<[string, string]> = [
  ['.graphiql-query-editor', 'GraphQL operation editor'],
  ['.result-window', 'Response'],
  ['[aria-label="Variables"], .graphiql-editor-tool .graphiql-editor:not(.hidden):nth-child(1)', 'Variables editor'],
  ['.graphiql-editor-tool', 'Headers editor'],
];
function labelEditors(): void {
  for (const area of document.querySelectorAll('textarea:not([aria-label])')) {
    const name = EDITOR_NAMES.find(([sel]) => area.closest(sel))?.[1] ?? 'Editor';
    area.setAttribute('aria-label', name);
  }
}
/**
 * GraphiQL's tabs are <li role="tab"> holding buttons (axe-core "nested-interactive", serious): the tab role moves
 * to the tab's own button and the item becomes presentational, so the tablist owns the tabs directly.
 */
function fixTabs(): void {
  for (const li of document.querySelectorAll('li.graphiql-tab')) {
    const button = li.querySelector('button.graphiql-tab-button');
    if (!button) continue;
    const selected = li.classList.contains('graphiql-tab-active') ? 'true' : 'false';
    if (li.getAttribute('role') !== 'presentation') li.setAttribute('role', 'presentation');
    if (li.hasAttribute('aria-selected')) li.removeAttribute('aria-selected');
    if (button.getAttribute('role') !== 'tab') button.setAttribute('role', 'tab');
    if (button.getAttribute('aria-selected') !== selected) button.setAttribute('aria-selected', selected);
  }
}
new MutationObserver(() => {
  labelEditors();
  fixTabs();
}).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['class', 'aria-selected', 'role'] });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Ide />
  </StrictMode>,
);

/**
 * OIDC sign-in for the console (issue 20): authorization code with PKCE (S256), as a public client, in the browser.
 * The verifier and state live in sessionStorage between the redirect and the callback; the code is exchanged at
 * the token endpoint (the page's CSP lets it connect there and nowhere else off this origin), and the access token
 * becomes the console's bearer credential, verified by toolcat like any JWT (TOOLCAT_JWT_*).
 */
export interface OidcConfig {
  readonly clientId: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly scope: string;
}

const PENDING = 'toolcat.admin.oidc-pending';

export async function consoleConfig(): Promise<{ oidc: OidcConfig | null }> {
  const res = await fetch('/admin/config.json', { credentials: 'omit' });
  return res.ok ? ((await res.json()) as { oidc: OidcConfig | null }) : { oidc: null };
}

const redirectUri = (): string => `${location.origin}/admin/`;

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomString = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Sends the browser to the IdP. */
export async function startOidc(cfg: OidcConfig): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(cfg.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: cfg.clientId,
    redirect_uri: redirectUri(),
    scope: cfg.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/**
 * On the IdP's redirect back (?code=…&state=…): checks the state, exchanges the code with the verifier, and removes
 * the code from the address bar. null when this load is not a callback.
 */
export async function completeOidc(cfg: OidcConfig): Promise<string | null> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return null;
  history.replaceState(null, '', `/admin/${location.hash}`);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string } | null;
  sessionStorage.removeItem(PENDING);
  if (error) throw new Error(`The identity provider refused the sign-in: ${error}`);
  if (!pending || params.get('state') !== pending.state) throw new Error('The sign-in answer does not match a sign-in started here (state differs); start again.');
  const res = await fetch(cfg.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri(), client_id: cfg.clientId, code_verifier: pending.verifier }).toString(),
    credentials: 'omit',
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string };
  if (!res.ok || !body.access_token) throw new Error(`The token endpoint answered HTTP ${res.status}${body.error ? ` (${body.error})` : ''} without an access token.`);
  return body.access_token;
}

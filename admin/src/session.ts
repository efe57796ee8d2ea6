/**
 * The admin credential lives in sessionStorage only (issue 20): gone when the tab closes, never in a URL, never in
 * localStorage or a cookie. GraphiQL (graphiql.tsx) reads the same entry, so one sign-in serves both pages.
 */
const KEY = 'toolcat.admin.credential';

export function storedCredential(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeCredential(value: string): void {
  sessionStorage.setItem(KEY, value);
}

export function forgetCredential(): void {
  sessionStorage.removeItem(KEY);
}

/** RFC 6901 JSON Pointer helpers ("" is the root). */

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function joinPointer(base: string, ...tokens: string[]): string {
  let out = base;
  for (const t of tokens) out += '/' + escapeToken(t);
  return out;
}

/** Splits "/a/b~1c" into ["a", "b/c"]; "" gives []. Returns undefined for a non-pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer.slice(1).split('/').map(unescapeToken);
}

/** Percent-decodes a URI fragment; a malformed escape leaves the text as written (pitfall 3). */
export function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

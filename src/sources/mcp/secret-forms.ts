/**
 * The shapes a known secret value can take in text a server writes (issue 11, red-team follow-up F3): as it is,
 * reversed, percent-escaped (as encodeURIComponent does, or every byte; hex in either case), JSON-escaped, hex, and
 * base64/base64url at each of the three byte alignments (the run of characters that depends only on the secret,
 * whatever bytes precede it). A server that echoes its environment
 * encoded, or whose echo is cut at the edge of a bounded stderr tail, must not hand the value to an admin.
 */
function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const everyByte = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
  const lowerEscapes = (t: string) => t.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  // Percent-encoded as encodeURIComponent does, with lowercase hex too, and with every byte escaped (either case).
  const forms = new Set<string>([secret, [...secret].reverse().join(''), encodeURIComponent(secret), lowerEscapes(encodeURIComponent(secret)), everyByte, lowerEscapes(everyByte), JSON.stringify(secret).slice(1, -1)]);
  forms.add(bytes.toString('hex'));
  forms.add(bytes.toString('hex').toUpperCase());
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Whole 3-byte groups made of secret bytes only: 4 characters each, the same in any surrounding text.
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor((offset + bytes.length) / 3) * 4;
    if (end - start >= 8) {
      const stable = encoded.slice(start, end);
      forms.add(stable);
      forms.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...forms].filter((f) => f.length >= 4);
}

/**
 * Every whole form of each secret (not its pieces), at least FRAGMENT_LENGTH characters long: what is looked for in a
 * tool's result (result-redaction.ts). A result is the tool's own output, so only a form of the secret itself is taken
 * out of it; an 8-character piece of a URL ("https://") would otherwise cut ordinary text out of results.
 */
export function wholeSecretForms(secrets: readonly string[]): string[] {
  return [...new Set(secrets.flatMap(secretForms))].filter((f) => f.length >= FRAGMENT_LENGTH);
}

/** How long a piece of a secret's form must be to be taken for it (shorter pieces say nothing usable). */
const FRAGMENT_LENGTH = 8;

/**
 * `text` with every occurrence of a form, or of any piece of one at least FRAGMENT_LENGTH long (a form cut at the
 * edge of a bounded buffer), replaced by `[redacted]`. Linear in the text for each form: the pieces are the form's
 * windows of FRAGMENT_LENGTH characters, and every match is extended over neighbouring windows.
 */
export function redactSecretForms(text: string, secrets: readonly string[]): string {
  const mark = new Uint8Array(text.length + 1);
  let any = false;
  for (const secret of secrets) {
    for (const form of secretForms(secret)) {
      if (form.length < FRAGMENT_LENGTH) {
        for (let i = text.indexOf(form); i !== -1; i = text.indexOf(form, i + 1)) (mark.fill(1, i, i + form.length), (any = true));
        continue;
      }
      const windows = new Set<string>();
      for (let i = 0; i + FRAGMENT_LENGTH <= form.length; i++) windows.add(form.slice(i, i + FRAGMENT_LENGTH));
      for (let i = 0; i + FRAGMENT_LENGTH <= text.length; i++) {
        if (windows.has(text.slice(i, i + FRAGMENT_LENGTH))) (mark.fill(1, i, i + FRAGMENT_LENGTH), (any = true));
      }
    }
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!mark[i]) {
      out += text[i++];
      continue;
    }
    let end = i;
    while (end < text.length && mark[end]) end++;
    // A window may start or end on the space beside a secret (a form such as `Bearer <token>` has one inside):
    // the spaces at the edges of a run stay, so the text around the redaction reads as before.
    let from = i;
    let to = end;
    while (from < to && /\s/.test(text[from])) from++;
    while (to > from && /\s/.test(text[to - 1])) to--;
    out += text.slice(i, from) + (to > from ? '[redacted]' : '') + text.slice(to, end);
    i = end;
  }
  return out;
}

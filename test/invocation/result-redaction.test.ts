/**
 * ResultRedactor (issue 14; red-team finding of 2026-12-04): a source's secret values never reach a caller through
 * a tool's result or progress message. The pool's tests show it on real servers; these pin its edges.
 */
import { expect } from 'chai';
import { REDACTED, ResultRedactor } from '../../src/invocation/result-redaction';

const SECRET = 'sk-live-0123456789abcdef';

describe('ResultRedactor (issue 14: no source credential reaches a caller)', () => {
  const r = new ResultRedactor([SECRET, 'short']);
  const redacted = <T>(v: T): T => r.value(v, JSON.stringify(v));

  it('a result without a secret is returned as it is (the same object: nothing walked)', () => {
    const v = { content: [{ type: 'text', text: 'nothing here' }] };
    expect(redacted(v)).to.equal(v);
  });

  it('takes every form of the secret out of strings and keys, and leaves everything else', () => {
    const b64 = Buffer.from(SECRET).toString('base64');
    const v = redacted({ content: [{ type: 'text', text: `a ${SECRET} b ${encodeURIComponent(SECRET)} c ${b64}` }], structuredContent: { [SECRET]: 1, n: 2, ok: true, list: [SECRET, 'x'] } });
    expect(v.content[0].text).to.equal(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
    expect(v.structuredContent).to.deep.equal({ [REDACTED]: 1, n: 2, ok: true, list: [REDACTED, 'x'] });
  });

  it('values shorter than 8 characters are not taken for a secret (they cannot be told from ordinary text)', () => {
    expect(redacted({ text: 'a short word' })).to.deep.equal({ text: 'a short word' });
  });

  it('a key "__proto__" stays an own, plain property; nesting deeper than the stack is walked', () => {
    const v = JSON.parse(`{"__proto__": "${SECRET}"}`) as Record<string, unknown>;
    const out = redacted(v);
    expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).to.equal(REDACTED);
    let deep: unknown = [SECRET];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let inner = r.value(deep, `[${SECRET}]`) as unknown;
    while (Array.isArray(inner) && Array.isArray(inner[0])) inner = inner[0];
    expect(inner).to.deep.equal([REDACTED]);
  });

  it('a progress message, also with a secret holding a quote and a backslash (re-test: only its JSON spelling was looked for)', () => {
    expect(r.text(`retrying with ${SECRET}`)).to.equal(`retrying with ${REDACTED}`);
    const quoted = new ResultRedactor(['ab"cd\\efgh123']);
    expect(quoted.text('P1=ab"cd\\efgh123 end')).to.equal(`P1=${REDACTED} end`);
  });

  it('a secret of digits that comes back as a JSON number (re-test)', () => {
    const digits = new ResultRedactor(['9876543210123']);
    const v = { structuredContent: { n: 9876543210123, list: [9876543210123, 5] } };
    expect(digits.value(v, JSON.stringify(v))).to.deep.equal({ structuredContent: { n: REDACTED, list: [REDACTED, 5] } });
  });

  it('percent-encoded with lowercase hex, and with every byte escaped (re-test)', () => {
    const uni = new ResultRedactor(['pässwörd-geheim']);
    const lower = encodeURIComponent('pässwörd-geheim').replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const every = [...Buffer.from('pässwörd-geheim')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    expect(uni.text(`a ${lower} b ${every} c ${every.toUpperCase()}`)).to.equal(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
  });

  it('a result whose JSON spelled the secret with \\u escapes is found from the parsed value', () => {
    const v = JSON.parse(`{"text":"${[...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`) as { text: string };
    expect(v.text).to.equal(SECRET);
    expect(r.value(v, JSON.stringify(v))).to.deep.equal({ text: REDACTED });
  });
});

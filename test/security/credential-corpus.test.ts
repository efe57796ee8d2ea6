/**
 * Issue 11, defect 2, the credential corpus: every real-looking token format × every encoding
 * (test/security/credential-forms.ts) placed in every position an MCP tool offers (description, title, name,
 * default, examples, x-* keys, const/enum, _meta, icons; and since the red-team pass a `$ref`'d definition,
 * patternProperties, dependentSchemas, a nested default, an unknown keyword, an enum split in two, the output
 * schema), each pushed through the real listing path. Nothing may
 * be recoverable from any agent-visible view; each position has one expected outcome (redacted, removed, refused,
 * or never carried). Prints `credential corpus: N variants, R redacted, Q refused (quarantined), 0 reached a view`.
 */
import { expect } from 'chai';
import { mcpToolId } from '../../src/sources/mcp-tool-id';
import { CORPUS_SEED, ENCODINGS, type Format, applies, formats, leakIn, serve } from './credential-forms';

type Outcome = 'redacted' | 'removed' | 'refused' | 'not carried';
interface Position {
  readonly label: string;
  readonly expect: Outcome;
  /** The raw tool with `enc` placed, or null where the position cannot hold it (bounds that refuse for another reason). */
  readonly place: (enc: string, i: number) => Record<string, unknown> | null;
}

const props = (p: Record<string, unknown>) => ({ type: 'object', properties: { q: { type: 'string' }, ...p } });
const POSITIONS: readonly Position[] = [
  { label: 'description', expect: 'redacted', place: (e) => ({ name: 'probe', description: `Setup: ${e} then call it.`, inputSchema: props({}) }) },
  { label: 'title', expect: 'redacted', place: (e) => (e.length > 240 ? null : { name: 'probe', title: `Probe ${e}`, inputSchema: props({}) }) },
  { label: 'name', expect: 'refused', place: (e) => (e.length > 128 || mcpToolId('leaky', e) === null ? null : { name: e, inputSchema: props({}) }) },
  { label: 'default', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: props({ value: { type: 'string', default: e } }) }) },
  { label: 'examples', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: props({ value: { type: 'string', examples: ['plain', e] } }) }) },
  { label: 'x-* key', expect: 'removed', place: (e, i) => ({ name: 'probe', inputSchema: props({ value: { type: 'string', [i % 2 ? 'x-example' : 'x-vendor-hint']: e } }) }) },
  { label: 'const/enum', expect: 'refused', place: (e, i) => ({ name: 'probe', inputSchema: props({ value: i % 2 ? { const: e } : { enum: ['a', e] } }) }) },
  // Issue 11 red team (F1, F2, F7): positions reached through references, pattern keys, dependent schemas, nested
  // values, split enum values, annotations the table does not know, and the output schema.
  { label: "$ref'd $defs default", expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: { ...props({ value: { $ref: '#/$defs/v' } }), $defs: { v: { type: 'string', default: e } } } }) },
  { label: 'patternProperties default', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: { ...props({}), patternProperties: { '^x_': { type: 'string', default: e } } } }) },
  { label: 'dependentSchemas default', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: { ...props({}), dependentSchemas: { q: { properties: { z: { type: 'string', default: e } } } } } }) },
  { label: 'nested object default', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: props({ value: { type: 'object', default: { inner: [{ v: e }] } } }) }) },
  { label: 'unknown keyword', expect: 'removed', place: (e, i) => ({ name: 'probe', inputSchema: props({ value: { type: 'string', [i % 2 ? 'placeholder' : 'defaultValue']: e } }) }) },
  { label: 'enum split in two', expect: 'refused', place: (e) => ({ name: 'probe', inputSchema: props({ value: { type: 'string', enum: [e.slice(0, Math.floor(e.length / 2)), e.slice(Math.floor(e.length / 2))] } }) }) },
  { label: 'outputSchema default', expect: 'removed', place: (e) => ({ name: 'probe', inputSchema: props({}), outputSchema: props({ out: { type: 'string', default: e } }) }) },
  { label: '_meta', expect: 'not carried', place: (e) => ({ name: 'probe', inputSchema: props({}), _meta: { 'io.example/credential': e } }) },
  { label: 'icons', expect: 'not carried', place: (e) => ({ name: 'probe', inputSchema: props({}), icons: [{ src: `https://cdn.example.com/${e}.png`, mimeType: 'image/png' }] }) },
];

interface Placement {
  readonly format: Format;
  readonly encoding: string;
  readonly position: Position;
  readonly encoded: string;
  readonly raw: Record<string, unknown>;
}

function placements(): Placement[] {
  const out: Placement[] = [];
  let i = 0;
  for (const format of formats())
    for (const encoding of ENCODINGS) {
      if (!applies(encoding, format)) continue;
      const encoded = encoding.encode(format.secret);
      for (const position of POSITIONS) {
        const raw = position.place(encoded, i++);
        if (raw) out.push({ format, encoding: encoding.label, position, encoded, raw });
      }
    }
  return out;
}

describe('issue 11 defect 2: credentials survive into descriptors — the credential corpus', () => {
  it(`keeps every encoded or obfuscated credential out of every served view (seed ${CORPUS_SEED})`, function () {
    this.timeout(120_000);
    const all = placements();
    const variants = new Set(all.map((p) => `${p.format.label}/${p.encoding}`));
    expect(variants.size, 'distinct format × encoding variants').to.be.at.least(100);
    const counts: Record<Outcome, number> = { redacted: 0, removed: 0, refused: 0, 'not carried': 0 };
    const wrong: string[] = [];
    const leaked: string[] = [];
    for (const p of all) {
      const where = `${p.format.label} / ${p.encoding} / ${p.position.label}`;
      const out = serve(p.raw);
      const leak = leakIn(out.views, p.format.core, p.encoded);
      if (leak) leaked.push(`${where}: ${leak}`);
      const actions = out.findings.map((f) => f.action);
      const outcome: Outcome | 'served unchanged' =
        out.refused !== null ? 'refused' : actions.includes('removed') ? 'removed' : actions.includes('redacted') ? 'redacted' : p.position.expect === 'not carried' ? 'not carried' : 'served unchanged';
      if (outcome !== 'served unchanged') counts[outcome]++;
      if (outcome !== p.position.expect || (outcome === 'refused' && !/credential material/.test(out.refused ?? ''))) wrong.push(`${where}: ${outcome}${out.refused ? ` (${out.refused})` : ''}`);
    }
    const redacted = counts.redacted + counts.removed + counts['not carried'];
    console.log(`      credential corpus: ${all.length} variants, ${redacted} redacted, ${counts.refused} refused (quarantined), ${leaked.length} reached a view`);
    console.log(`      (${variants.size} format × encoding variants in ${POSITIONS.length} positions; redacted = ${counts.redacted} redacted in text + ${counts.removed} removed annotations + ${counts['not carried']} in _meta/icons, never carried)`);
    expect(leaked, `reached a view:\n${leaked.slice(0, 20).join('\n')}\n`).to.deep.equal([]);
    expect(wrong, `outcome per position:\n${wrong.slice(0, 20).join('\n')}\n`).to.deep.equal([]);
  });
});

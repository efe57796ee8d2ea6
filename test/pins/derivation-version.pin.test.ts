/**
 * Stored served rows are derived from definitions by the ingest gate and the compactor, and are derived again at
 * start only when INGEST_GATE_VERSION or COMPACTOR_VERSION names another version (services/derived-refresh.ts;
 * issue 11 defect 5). So the code may not change what it derives without a new version: this pin hashes what the
 * gate and the compactor make of a fixed corpus (the 8 captured real servers, the compact cases and the hostile
 * fixture tools, credentials included) and fails when that output changes while both versions stay the same.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { COMPACTOR_VERSION } from '../../src/catalog/compact';
import { INGEST_GATE_VERSION, gateTool } from '../../src/catalog/ingest';
import { CatalogError } from '../../src/catalog/catalog.errors';
import { DEFAULT_TOOLS } from '../fixtures/hostile-tools';
import { ENCODINGS, formats } from '../security/credential-forms';

/** `gate/compactor` → SHA-256 of the derived corpus. A new version gets a new line; old lines stay as history. */
const PINNED: Readonly<Record<string, string>> = {
  '2/1.1.0': '16dc3436e770d50c1d0c605cba4980fdada017342dd546bce2d1a6c27eceb7c2',
  // issue 13: the gate's output is unchanged; the version moves because a stored row's contentHash became the one
  // definition hash (src/catalog/definition-hash.ts, of the definition as given, so not part of this corpus hash:
  // the credential corpus is random), and the start-up refresh re-derives it (test/integration/definition-hash.test.ts)
  '3/1.1.0': '16dc3436e770d50c1d0c605cba4980fdada017342dd546bce2d1a6c27eceb7c2',
  // issue 16: the neutral compactor's fidelity gaps (src/catalog/compact/gaps.test.ts) and the per-provider profiles,
  // now part of the derived row (compactProfilesText is in the corpus hash from this version on)
  '3/1.2.0': 'e931f7f084882256454cd4d003495a08faada60ff31388c20d74cddc4b60c161',
};

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures');

function corpus(): Array<{ name: unknown; title?: unknown; description?: unknown; inputSchema: unknown; outputSchema?: unknown }> {
  const out = [];
  const dir = join(FIXTURES, 'mcp-tools');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) out.push(...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tools: never[] }).tools);
  const cases = JSON.parse(readFileSync(join(FIXTURES, 'compact-cases.json'), 'utf8')) as Array<{ id: string; input: unknown }>;
  for (const c of cases) out.push({ name: `case_${c.id}`, description: c.id, inputSchema: c.input });
  out.push(...(DEFAULT_TOOLS as never[]));
  // The credential detector is part of the gate: its encoded/obfuscated corpus (test/security/credential-forms.ts).
  for (const f of formats()) {
    for (const e of ENCODINGS.filter((x) => f.prefixed || !x.prefixedOnly)) {
      const v = e.encode(f.secret);
      out.push({ name: `cred_${out.length}`, description: `token: ${v}`, inputSchema: { type: 'object', properties: { password: { type: 'string', default: v }, note: { type: 'string', description: v } } } });
    }
  }
  return out;
}

export function derivedCorpusHash(): string {
  const h = createHash('sha256');
  corpus().forEach((t, i) => {
    try {
      const g = gateTool({ source: 'mcp', origin: 'pin', toolId: `mcp.pin.t${i}`, name: typeof t.name === 'string' ? t.name : `t${i}`, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema }).unclassified;
      h.update(JSON.stringify([g.name, g.title, g.description, g.inputSchemaText, g.outputSchemaText, g.compactSchemaText, g.compactNotesText, g.ingestNotesText, g.compactProfilesText]));
    } catch (err) {
      if (!(err instanceof CatalogError)) throw err;
      h.update(JSON.stringify(['refused', err.message]));
    }
    h.update('\n');
  });
  return h.digest('hex');
}

describe('derivation version pin', () => {
  it('the gate and the compactor derive the pinned corpus exactly as their versions say', () => {
    const key = `${INGEST_GATE_VERSION}/${COMPACTOR_VERSION}`;
    const hash = derivedCorpusHash();
    expect(PINNED[key], `no pin for gate/compactor version ${key}: add '${key}': '${hash}' to PINNED`).to.be.a('string');
    expect(
      hash,
      `What the ingest gate or the compactor derives changed while their versions (${key}) did not. Stored rows are derived again ` +
        'only for a new version: bump INGEST_GATE_VERSION (src/catalog/ingest.ts) or COMPACTOR_VERSION (src/catalog/compact), ' +
        `then pin '<new key>': '${hash}'.`,
    ).to.equal(PINNED[key]);
  });
});

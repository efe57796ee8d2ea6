/**
 * TC-VIEW-3 worked cases: every case of design/compact-cases.json (copied to test/fixtures so a clone
 * runs without shared/ beside it). Per case: no banned keyword, compiles in Ajv 2020, accept/reject
 * instances, note words at their paths, idempotence, and exact equality with `expected` (descriptions
 * stripped, since the case file asserts them through `notes`).
 */
import { expect } from 'chai';
import { compact, findBannedKeywords } from '../../src/catalog/compact';
import type { CompactResult } from '../../src/catalog/compact';
import { canonical, compileSchema, findCasesFile, findSharedCasesFile, nodeAt, readJson, stripDescriptions, tryCompile } from './helpers';

interface Case {
  id: string;
  title: string;
  input?: unknown;
  options?: Record<string, unknown>;
  expected?: unknown;
  notes?: Record<string, string[]>;
  accept?: unknown[];
  reject?: unknown[];
  compactOnly?: unknown[];
  skipOriginalValidation?: boolean;
}

const cases = readJson(findCasesFile()) as Case[];

function noteText(result: CompactResult, path: string): string {
  const node = nodeAt(result.schema, path);
  const description = typeof node?.description === 'string' ? node.description : '';
  return [description, ...result.notes.filter((n) => n.path === path).map((n) => n.text)].join(' ').toLowerCase();
}

describe('compact view: worked cases (design/compact-cases.json)', () => {
  it('the case file is present and non-trivial', () => {
    expect(cases.filter((c) => c.input !== undefined).length).to.be.greaterThan(20);
  });

  it('the test/fixtures copy matches shared/design/compact-cases.json when that is present', function () {
    const shared = findSharedCasesFile();
    if (shared === undefined) this.skip();
    expect(canonical(readJson(shared!))).to.equal(canonical(cases));
  });

  for (const c of cases.filter((x) => x.input !== undefined)) {
    describe(`${c.id}: ${c.title}`, () => {
      const result = compact(c.input, c.options);

      it('TC-VIEW-3: output has no banned keyword in any schema position', () => {
        expect(findBannedKeywords(result.schema)).to.deep.equal([]);
        expect(result.fallback).to.equal(false);
      });

      it('output compiles in Ajv 2020 and accepts/rejects the listed instances', () => {
        const validate = compileSchema(result.schema);
        for (const x of c.accept ?? []) expect(validate(x), `accept ${JSON.stringify(x)}`).to.equal(true);
        for (const x of c.reject ?? []) expect(validate(x), `reject ${JSON.stringify(x)}`).to.equal(false);
        for (const x of c.compactOnly ?? []) expect(validate(x), `compactOnly ${JSON.stringify(x)}`).to.equal(true);
      });

      if (!c.skipOriginalValidation) {
        it('the listed instances behave as documented under the ORIGINAL schema', () => {
          const original = tryCompile(c.input);
          expect(original, 'original compiles').to.not.equal(undefined);
          for (const x of c.accept ?? []) expect(original!(x), `original accepts ${JSON.stringify(x)}`).to.equal(true);
          for (const x of c.compactOnly ?? []) expect(original!(x), `original rejects ${JSON.stringify(x)}`).to.equal(false);
        });
      }

      if (c.notes !== undefined) {
        it('G4: the listed note words appear in the description / report at their paths', () => {
          for (const [path, words] of Object.entries(c.notes!)) {
            const text = noteText(result, path);
            for (const w of words) expect(text, `path "${path}"`).to.include(w.toLowerCase());
          }
        });
      }

      if (c.expected !== undefined && c.expected !== null) {
        it('matches `expected` exactly (descriptions aside)', () => {
          expect(canonical(stripDescriptions(result.schema))).to.equal(canonical(c.expected));
        });
      }

      it('T44: idempotent (compact of the output deep-equals the output)', () => {
        expect(canonical(compact(result.schema, c.options).schema)).to.equal(canonical(result.schema));
      });
    });
  }
});

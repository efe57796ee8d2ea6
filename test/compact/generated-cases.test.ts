/**
 * The generator cases of design/compact-cases.json (T42 depth cap, T43 big enum, T41 diamond, T09
 * "no I/O") and T44 closure over every case input.
 */
import { expect } from 'chai';
// `import x = require()` gives the real module objects (not interop copies), so stubs take effect
import fs = require('node:fs');
import http = require('node:http');
import https = require('node:https');
import net = require('node:net');
import { compact, findBannedKeywords } from '../../src/catalog/compact';
import { compileSchema, findCasesFile, readJson } from './helpers';

function depthOf(schema: unknown): number {
  const s = schema as Record<string, unknown>;
  const kids: unknown[] = [];
  if (s.properties) kids.push(...Object.values(s.properties as object));
  if (s.items) kids.push(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') kids.push(s.additionalProperties);
  return 1 + Math.max(0, ...kids.map(depthOf));
}

describe('compact view: generated cases', () => {
  it('T42: 15 nested objects are capped at maxDepth 10 with a typed, noted node; deep instances still pass', () => {
    let schema: unknown = { type: 'string' };
    let instance: unknown = 'leaf';
    for (let i = 0; i < 15; i++) {
      schema = { type: 'object', properties: { c: schema } };
      instance = { c: instance };
    }
    const r = compact(schema);
    expect(depthOf(r.schema)).to.be.at.most(10);
    let node = r.schema as Record<string, unknown>;
    while ((node.properties as Record<string, unknown> | undefined)?.c) node = (node.properties as Record<string, Record<string, unknown>>).c;
    expect(node.type).to.equal('object');
    expect(String(node.description)).to.match(/nested deeper than 10 levels/i);
    expect(r.truncated).to.equal(true);
    expect(compileSchema(r.schema)(instance)).to.equal(true);
  });

  it('T43: an enum of 1200 values is dropped, type kept, count and examples described, every value accepted', () => {
    const values = Array.from({ length: 1200 }, (_, i) => `code-${i}`);
    const r = compact({ type: 'object', properties: { code: { type: 'string', enum: values } } });
    const code = (r.schema.properties as Record<string, Record<string, unknown>>).code;
    expect(code.enum).to.equal(undefined);
    expect(code.type).to.equal('string');
    expect(String(code.description)).to.include('1200').and.include('code-0');
    const validate = compileSchema(r.schema);
    for (const v of values) expect(validate({ code: v })).to.equal(true);
  });

  it('T41: a 12-level diamond of $refs (2 refs per level) gives a bounded output without fallback', () => {
    const $defs: Record<string, unknown> = { D12: { type: 'string' } };
    for (let i = 0; i < 12; i++) {
      $defs[`D${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/D${i + 1}` }, b: { $ref: `#/$defs/D${i + 1}` } } };
    }
    const r = compact({ $defs, type: 'object', properties: { root: { $ref: '#/$defs/D0' } } });
    expect(r.fallback).to.equal(false);
    expect(r.truncated).to.equal(true);
    expect(JSON.stringify(r.schema).length).to.be.at.most(64 * 1024);
    expect(depthOf(r.schema)).to.be.at.most(10);
    expect(findBannedKeywords(r.schema)).to.deep.equal([]);
    compileSchema(r.schema);
  });

  it('T09: external refs are never fetched (fs, http, https, net and fetch all throw while compacting)', () => {
    const targets: Array<[Record<string, unknown>, string]> = [
      [fs as unknown as Record<string, unknown>, 'readFileSync'],
      [fs as unknown as Record<string, unknown>, 'readFile'],
      [fs as unknown as Record<string, unknown>, 'openSync'],
      [http as unknown as Record<string, unknown>, 'request'],
      [http as unknown as Record<string, unknown>, 'get'],
      [https as unknown as Record<string, unknown>, 'request'],
      [https as unknown as Record<string, unknown>, 'get'],
      [net as unknown as Record<string, unknown>, 'connect'],
      [globalThis as unknown as Record<string, unknown>, 'fetch'],
    ];
    const saved = targets.map(([o, k]) => Object.getOwnPropertyDescriptor(o, k));
    const calls: string[] = [];
    const stubbed: number[] = [];
    targets.forEach(([o, k], i) => {
      try {
        Object.defineProperty(o, k, { configurable: true, writable: true, value: () => { calls.push(k); throw new Error(`I/O ${k}`); } });
        stubbed.push(i);
      } catch {
        // a non-configurable export cannot be stubbed; the others still prove the point
      }
    });
    let r;
    try {
      r = compact({
        type: 'object',
        properties: { creds: { $ref: 'file:///etc/passwd' }, meta: { $ref: 'http://169.254.169.254/latest/meta-data/' }, rel: { $ref: 'other.json#/x' } },
      });
    } finally {
      for (const i of stubbed) Object.defineProperty(targets[i][0], targets[i][1], saved[i]!);
    }
    expect(stubbed.length).to.be.greaterThan(3);
    expect(calls).to.deep.equal([]);
    expect(r.fallback).to.equal(false);
    expect(r.notes.filter((n) => n.rule === 'ref-external').length).to.equal(3);
  });

  it('T44: over every case input, output is ban-free, compiles, and is idempotent', () => {
    const cases = readJson(findCasesFile()) as Array<{ input?: unknown; options?: Record<string, unknown> }>;
    for (const c of cases.filter((x) => x.input !== undefined)) {
      const once = compact(c.input, c.options);
      expect(findBannedKeywords(once.schema)).to.deep.equal([]);
      compileSchema(once.schema);
      expect(compact(once.schema, c.options).schema).to.deep.equal(once.schema);
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { expect } from 'chai';

/** TC-SHAPE-1: real ajv validation of response bodies against the committed schemas/v2 files. */
const SCHEMA_DIR = join(__dirname, '..', '..', '..', 'schemas', 'v2');
const standardSchema = JSON.parse(readFileSync(join(SCHEMA_DIR, 'tool-descriptor.schema.json'), 'utf8'));
const compactSchema = JSON.parse(readFileSync(join(SCHEMA_DIR, 'compact-tool-descriptor.schema.json'), 'utf8'));

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
ajv.addSchema(standardSchema, 'tool-descriptor.schema.json');
ajv.addSchema(compactSchema, 'compact-tool-descriptor.schema.json');
const validateStandard = ajv.getSchema('tool-descriptor.schema.json')!;
const validateCompact = ajv.getSchema('compact-tool-descriptor.schema.json')!;

export function expectStandardDescriptor(d: unknown): void {
  const ok = validateStandard(d);
  expect(ok, `standard descriptor invalid: ${ajv.errorsText(validateStandard.errors)}\n${JSON.stringify(d).slice(0, 500)}`).to.equal(true);
}

export function expectCompactDescriptor(d: unknown): void {
  const ok = validateCompact(d);
  expect(ok, `compact descriptor invalid: ${ajv.errorsText(validateCompact.errors)}\n${JSON.stringify(d).slice(0, 500)}`).to.equal(true);
}

export function expectStandardList(body: unknown): void {
  expect(body).to.be.an('array');
  for (const d of body as unknown[]) expectStandardDescriptor(d);
}

export function expectCompactList(body: unknown): void {
  expect(body).to.be.an('object').with.keys('tools');
  for (const d of (body as { tools: unknown[] }).tools) expectCompactDescriptor(d);
}

import Ajv, { type AnySchema } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';

/**
 * Is an untrusted value a valid JSON Schema? The dialect is taken from `$schema` (MCP defaults to
 * 2020-12, SEP-1613; many real servers still declare draft-07). Only the meta-schema is checked here;
 * nothing is fetched and no schema is compiled into code.
 */
const options = { strict: false, validateFormats: false, allErrors: false } as const;
const ajv2020 = new Ajv2020(options);
const ajv2019 = new Ajv2019(options);
const ajv07 = new Ajv(options);
ajv07.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));

export function schemaProblem(schema: Record<string, unknown>): string | null {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  let validator: Ajv | null;
  if (/draft-0[67]/.test(dialect)) validator = ajv07;
  else if (/2019-09/.test(dialect)) validator = ajv2019;
  else if (/draft-0[34]/.test(dialect)) validator = null; // no meta-schema bundled: structure checks only
  else validator = ajv2020;
  if (!validator) return null;
  const candidate = /draft-0[67]|2019-09|2020-12/.test(dialect) ? schema : withoutDialect(schema);
  try {
    if (validator.validateSchema(candidate as AnySchema) === true) return null;
    return validator.errorsText(validator.errors, { dataVar: 'schema' });
  } catch (err) {
    return `schema cannot be checked: ${(err as Error).message}`;
  }
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

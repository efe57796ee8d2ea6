/**
 * fast-check generators of JSON Schemas for the property tests (design/compact-view.md §3, §4):
 * every keyword family, dialect quirks (draft-07 tuples / definitions / dependencies, OpenAPI
 * nullable, draft-04 boolean exclusive bounds) and recursion shapes ($ref cycles, `$ref: "#"`, refs
 * to structural ancestors, diamonds, anchors, escaped pointers).
 *
 * "safe" generators make the declared-superset property (G2) testable: every object schema declares
 * ALL names of NAMES, so no union branch / arm can contribute a name another branch leaves undeclared
 * (the G2 exception), and no typeless object-only node is generated (the inference exception is
 * switched off by compacting with inferTypes:false in that test).
 */
import fc from 'fast-check';

const NAMES = ['a', 'b', 'c'] as const;
export type Schema = unknown;

const literal = fc.constantFrom<unknown>('a', 'ab', 'x', '', 0, 1, 2.5, -1, true, false, null);

const stringSchema = fc.record(
  {
    type: fc.constant('string'),
    minLength: fc.constantFrom(0, 1, 2),
    maxLength: fc.constantFrom(2, 3, 10),
    pattern: fc.constantFrom('^a', 'b$', '^[a-z]*$', '[0-9]'),
    format: fc.constantFrom('date-time', 'email', 'uri', 'int64', 'uuid'),
  },
  { requiredKeys: ['type'] },
);

// lower bounds below upper bounds, so most numeric schemas are satisfiable
const numberSchema = fc.record(
  {
    type: fc.constantFrom('number', 'integer'),
    minimum: fc.constantFrom(-1, 0, 1),
    maximum: fc.constantFrom(2, 2.5, 10),
    exclusiveMinimum: fc.constantFrom(-1, 0),
    exclusiveMaximum: fc.constantFrom(3, 10),
    multipleOf: fc.constantFrom(1, 2, 0.5),
  },
  { requiredKeys: ['type'] },
);

const literalSchema = fc.oneof(
  literal.map((v) => ({ const: v })),
  fc.uniqueArray(literal, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }).map((vs) => ({ enum: vs })),
  fc.uniqueArray(fc.constantFrom('a', 'ab', 'x'), { minLength: 1, maxLength: 3 }).map((vs) => ({ type: 'string', enum: vs })),
  fc.constant({ type: ['string', 'null'], enum: ['a', 'b'] }),
);

const simpleSchema: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  literalSchema,
  fc.constantFrom<Schema>(
    { type: 'boolean' },
    { type: 'null' },
    {},
    true,
    false,
    { type: ['string', 'null'] },
    { type: 'string', nullable: true },
    { type: ['integer', 'string'], minimum: 0, minLength: 1 },
    { not: {} },
    { type: ['string', 'null'], not: { type: 'null' } },
    { type: 'string', not: { const: '' } },
    { type: 'string', enum: ['a', 'b', 'c'], not: { enum: ['b'] } },
    { type: 'integer', not: { const: 3 } },
    { type: 'array', items: { type: 'string' }, contains: { const: 'a' } },
    { type: 'string', title: 'Title only' },
    { type: 'string', description: 'Real', title: 'T', examples: ['a'], deprecated: true },
    { type: 'string', default: { $ref: '#/x' } },
  ),
);

const refSchema: fc.Arbitrary<Schema> = fc.constantFrom<Schema>(
  { $ref: '#/$defs/X' },
  { $ref: '#/$defs/Y' },
  { $ref: '#' },
  { $ref: '#/properties/a' },
  { $ref: '#/$defs/X', description: 'via ref', default: null },
  { $ref: '#/$defs/Y', type: 'object' },
  { $ref: '#/$defs/X~1Y' },
  { $ref: '#/$defs/A%20B' },
  { $ref: '#node' },
  { $ref: '#/$defs/W/allOf/0' },
  { anyOf: [{ $ref: '#/$defs/X' }, { type: 'null' }] },
);

/** Object schemas; `safe` declares every name of NAMES. */
function objectSchema(sub: fc.Arbitrary<Schema>, safe: boolean): fc.Arbitrary<Schema> {
  const props = safe
    ? fc.record({ a: sub, b: sub, c: sub })
    : fc.record({ a: sub, b: sub, c: sub, not: sub, $ref: sub }, { requiredKeys: [] });
  const cond = fc.record({
    if: fc.constantFrom<Schema>({ properties: { a: { const: 'a' } }, required: ['a'] }, { required: ['b'] }, { properties: { c: { type: 'string' } } }),
    then: safe ? fc.record({ properties: fc.record({ b: sub, c: sub }), required: fc.subarray(['b', 'c']) }) : sub,
    else: safe ? fc.record({ properties: fc.record({ a: sub }) }) : sub,
  }, { requiredKeys: ['if'] });
  return fc
    .tuple(
      fc.record(
        {
          type: fc.constant('object'),
          properties: props,
          required: fc.subarray(safe ? [...NAMES] : [...NAMES, 'd']),
          additionalProperties: fc.oneof(fc.constant<Schema>(false), fc.constant<Schema>(true), sub),
          patternProperties: fc.record({ '^a': sub, '^z': sub }, { requiredKeys: [] }),
          propertyNames: fc.constantFrom<Schema>({ pattern: '^[a-z]+$' }, { maxLength: 2 }),
          minProperties: fc.constantFrom(0, 1),
          maxProperties: fc.constantFrom(2, 5),
          dependentRequired: fc.constant({ a: ['b'] }),
          dependentSchemas: fc.record({ a: safe ? fc.record({ properties: fc.record({ b: sub, c: sub }), required: fc.subarray(['c']) }) : sub }),
          unevaluatedProperties: fc.constant(false),
          discriminator: fc.constant({ propertyName: 'a' }),
        },
        { requiredKeys: safe ? ['type', 'properties'] : [] },
      ),
      fc.option(cond, { nil: undefined }),
    )
    .map(([o, c]) => (c === undefined ? o : { ...o, ...c }));
}

/** Unions of primitives: type arrays, literal unions, nullables, loosest bounds (T01, T17, T18, T38). */
const primitiveUnion: fc.Arbitrary<Schema> = fc
  .tuple(
    fc.constantFrom('anyOf', 'anyOf', 'oneOf'),
    fc.array(fc.oneof(stringSchema, numberSchema, literalSchema, fc.constant({ type: 'null' }), fc.constant({ type: 'boolean' })), { minLength: 2, maxLength: 3 }),
  )
  .map(([kind, bs]) => ({ [kind]: bs }));

/** Discriminated variants (pitfall 18): `a` is a distinct const per branch, so `oneOf` stays satisfiable. */
function variantUnion(sub: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  const branch = (tag: string) =>
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.record({ a: fc.constant({ const: tag }), b: sub, c: sub }),
        required: fc.subarray([...NAMES]),
        additionalProperties: fc.boolean(),
      },
      { requiredKeys: ['type', 'properties'] },
    );
  return fc
    .tuple(fc.constantFrom('anyOf', 'oneOf'), branch('v1'), branch('v2'), fc.option(branch('v3'), { nil: undefined }))
    .map(([kind, ...bs]) => ({ [kind]: bs.filter((b) => b !== undefined) }));
}

function arraySchema(sub: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc.record(
    {
      type: fc.constant('array'),
      items: fc.oneof(sub, fc.constant<Schema>(false)),
      prefixItems: fc.array(sub, { minLength: 1, maxLength: 2 }),
      minItems: fc.constantFrom(0, 1),
      maxItems: fc.constantFrom(1, 3),
      uniqueItems: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  );
}

function schemaOf(safe: boolean, maxDepth: number): fc.Arbitrary<Schema> {
  const memo: (n?: number) => fc.Arbitrary<Schema> = fc.memo<Schema>((n: number): fc.Arbitrary<Schema> => {
    if (n <= 1) return fc.oneof(simpleSchema, refSchema, primitiveUnion);
    const sub: fc.Arbitrary<Schema> = memo(n - 1);
    return fc.oneof(
      { depthSize: 'small' },
      simpleSchema,
      refSchema,
      objectSchema(sub, safe),
      arraySchema(sub),
      variantUnion(sub),
      primitiveUnion,
      fc.array(sub, { minLength: 1, maxLength: 3 }).map((xs) => ({ allOf: xs })),
      fc.array(sub, { minLength: 1, maxLength: 3 }).map((xs) => ({ anyOf: xs })),
      fc.array(sub, { minLength: 1, maxLength: 3 }).map((xs) => ({ oneOf: xs })),
      fc.tuple(objectSchema(sub, safe), fc.array(sub, { minLength: 1, maxLength: 3 })).map(([o, xs]) => ({ ...(o as object), anyOf: xs })),
      fc.tuple(sub, simpleSchema).map(([s, x]) => ({ allOf: [s], not: x })),
    );
  });
  return memo(maxDepth);
}

/** A root that only declares NAMES (so many instances are valid); the features live below it. */
function plainRoot(sub: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  const prop = fc.oneof(sub, primitiveUnion, variantUnion(sub));
  return fc.record(
    { type: fc.constant('object'), properties: fc.record({ a: prop, b: prop, c: prop }), required: fc.subarray([...NAMES]), additionalProperties: fc.boolean() },
    { requiredKeys: ['type', 'properties'] },
  );
}

/**
 * A whole tool schema: object root declaring NAMES, `$defs` for every ref shape of refSchema.
 * `rich` roots carry every object keyword themselves (root conditionals, patterns, dependencies).
 */
export function rootSchema(safe: boolean, maxDepth = 3, rich = true): fc.Arbitrary<Schema> {
  const sub = schemaOf(safe, maxDepth - 1);
  const leaf = schemaOf(safe, 1);
  return fc
    .record({ root: rich ? objectSchema(sub, true) : plainRoot(sub), X: sub, Y: sub, XY: leaf, AB: leaf, W: leaf, node: leaf })
    .map(({ root, X, Y, XY, AB, W, node }) => ({
      ...(root as object),
      $defs: { X, Y, 'X/Y': XY, 'A B': AB, W: { allOf: [W] }, N: { $anchor: 'node', allOf: [node] } },
    }));
}

/** Draft-07 dialect: `definitions`, tuple `items` + `additionalItems`, `dependencies`. */
export function draft07Schema(maxDepth = 3): fc.Arbitrary<Schema> {
  const memo: (n?: number) => fc.Arbitrary<Schema> = fc.memo<Schema>((n: number): fc.Arbitrary<Schema> => {
    const leaf = fc.oneof(simpleSchema.filter((x) => JSON.stringify(x).indexOf('nullable') < 0), fc.constantFrom<Schema>({ $ref: '#/definitions/D' }, { $ref: '#' }));
    if (n <= 1) return leaf;
    const sub: fc.Arbitrary<Schema> = memo(n - 1);
    return fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.record({ type: fc.constant('array'), items: fc.array(sub, { minLength: 1, maxLength: 2 }), additionalItems: fc.oneof(sub, fc.constant<Schema>(false)) }, { requiredKeys: ['type', 'items'] }),
      fc.record({
        type: fc.constant('object'),
        properties: fc.record({ a: sub, b: sub, c: sub }),
        dependencies: fc.record({ a: fc.constant<Schema>(['b']), b: fc.record({ properties: fc.record({ c: sub }) }) }, { requiredKeys: [] }),
        additionalProperties: fc.oneof(fc.constant<Schema>(false), sub),
      }, { requiredKeys: ['type', 'properties'] }),
      fc.array(sub, { minLength: 1, maxLength: 3 }).map((xs) => ({ anyOf: xs })),
      fc.array(sub, { minLength: 1, maxLength: 2 }).map((xs) => ({ allOf: xs })),
    );
  });
  return fc.record({ a: memo(maxDepth), b: memo(maxDepth), c: memo(maxDepth), D: memo(maxDepth - 1) }).map(({ a, b, c, D }) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { a, b, c },
    definitions: { D },
  }));
}

/** Anything-goes inputs for totality: OpenAPI/draft-04 quirks, garbage values, random keyword soup. */
export function hostileInput(): fc.Arbitrary<unknown> {
  const keyword = fc.constantFrom('type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'enum', 'const', 'required',
    'additionalProperties', 'patternProperties', 'dependentSchemas', 'dependencies', 'if', 'then', 'else', 'prefixItems', 'minimum',
    'exclusiveMinimum', 'nullable', 'discriminator', '$defs', 'definitions', '$id', '$anchor', 'pattern', '__proto__', 'format', 'title');
  const soup = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth: 5 },
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom<unknown>({ $ref: '#' }, { $ref: '#/properties/x' }, { $ref: 'http://evil/x' }, { pattern: '(' }, { type: 'number', exclusiveMinimum: true, minimum: 1 }, { type: 'string', nullable: true }),
      fc.dictionary(keyword, tie('node'), { maxKeys: 4 }),
      fc.array(tie('node'), { maxLength: 3 }),
    ),
  }));
  return fc.oneof(soup.node, fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }));
}

/**
 * The layering of src/ as a DAG (issue 13), enforced by `npm test` (npm run lint:deps). Lower layers never import
 * higher ones; docs/architecture.md ("Layers") says what each layer is for. Tests, the bench and scripts may import
 * anything: the rules apply to src/.
 */
const LAYERS = [
  ['client'], // toolcat/client (issue 17): the agent side, standalone; it imports no other layer (rules below)
  ['catalog'], // the domain: pure, no framework
  ['search'], // tool search ranking over domain records (issue 18)
  ['shared'], // logging, clock, request scope
  ['config'], // settings, their defaults and validation
  ['tenancy'], // API key format and hashing
  ['persistence'], // entities, migrations, scoped queries, write transactions
  ['cache'], // the response cache over the scoped queries
  ['audit'], // the audit log
  ['ops'], // health, metrics, HTTP server plumbing
  ['sources'], // MCP sources: sessions, sync, snapshots
  ['services'], // admin use cases
  ['invocation'], // calls: the decision, validation, replay safety, upstream sessions and implementations (issue 14)
  ['auth'], // bearer credentials to principals
  ['graphql'], // the decision layer (resolvers, schema)
  ['rest'], // the REST facade over the GraphQL layer
  ['mcp-face'], // the MCP face (issue 15): MCP over the REST facade's GraphQL documents
  ['http'], // the request listener
];
const folder = (names) => `^src/(${names.join('|')})/`;
const above = (i) => LAYERS.slice(i + 1).flat();

/** Frameworks the domain may not import (issue 13: "the domain (src/catalog/) imports no framework"). */
const FRAMEWORKS = ['typeorm', 'express', 'graphql', 'type-graphql', '@apollo', '@as-integrations', 'pino', 'pg', 'better-sqlite3', '@modelcontextprotocol', 'piscina', 'prom-client', 'jose', 'commander', 'yaml'];

module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map((names, i) => ({
      name: `layer-${names.join('-')}`,
      comment: `${names.join(', ')} may not import ${above(i).join(', ')} (docs/architecture.md, "Layers")`,
      severity: 'error',
      from: { path: folder(names) },
      to: { path: [folder(above(i)), '^src/(app\.ts$|cli/)'] },
    })),
    {
      name: 'domain-imports-no-framework',
      comment: 'src/catalog is the pure domain: no framework, no database, no transport',
      severity: 'error',
      from: { path: '^src/catalog/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer'], path: `node_modules/(${FRAMEWORKS.join('|')})(/|$)` },
    },
    {
      name: 'rest-is-a-facade',
      comment: 'the REST facade translates onto the GraphQL layer: it imports nothing from the domain or persistence',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/(catalog|persistence)/' },
    },
    {
      name: 'mcp-face-is-a-facade',
      comment: 'the MCP face translates onto the GraphQL layer like REST: nothing from the domain, persistence or services',
      severity: 'error',
      from: { path: '^src/mcp-face/' },
      to: { path: '^src/(catalog|persistence|services|sources|cache)/' },
    },
    {
      name: 'client-is-standalone',
      comment: 'toolcat/client runs in agents, not in the server: it imports nothing from the rest of src/ and no npm package (fetch only)',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { pathNot: '^src/client/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'server-does-not-use-the-client',
      comment: 'the server never goes through its own client; the client is a published layer beside it',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/client/' },
      to: { path: '^src/client/' },
    },
    {
      name: 'no-circular',
      comment: 'no module imports itself through others at run time (type-only imports compile away)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$', '^dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { dot: { collapsePattern: '^src/[^/]+' } },
  },
};

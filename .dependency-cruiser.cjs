/**
 * The layering of src/ (docs/architecture.md, Layering), checked by `npm run lint`. From the bottom up:
 * protocol (schemas, wire messages, error codes) and a few shared leaves (version, logging, the
 * PostgreSQL pool, SQL migrations, database-error classification, the embedded server); config;
 * pos and printing; agent and gateway; demo and cli on top. Each imports only what is below it.
 */
const LEAVES = '^src/(version|logging|source-mapped-stacks|postgres-pool|sql-migrations|database-errors|turns-by-key)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one: load order decides what is undefined. Move what both need below both.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'protocol-imports-nothing-of-ours',
      severity: 'error',
      comment: 'protocol/ is shared by the gateway and the agent: it may depend on libraries only.',
      from: { path: '^src/protocol/' },
      to: { path: '^src/', pathNot: '^src/protocol/' },
    },
    {
      name: 'leaves-import-nothing-of-ours',
      severity: 'error',
      comment: 'The shared leaves and the embedded server sit beside protocol/, at the bottom.',
      from: { path: [LEAVES, '^src/embedded-postgres/'] },
      to: { path: '^src/', pathNot: ['^src/embedded-postgres/', LEAVES] },
    },
    {
      name: 'config-imports-protocol-only',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: ['^src/config/', '^src/protocol/', LEAVES] },
    },
    {
      name: 'pos-and-printing-import-protocol-only',
      severity: 'error',
      comment: 'The POS layer and the printers know nothing of each other, of the agent or of the gateway; the agent composes them.',
      from: { path: '^src/(pos|printing)/' },
      to: { path: '^src/', pathNot: ['^src/$1/', '^src/protocol/', LEAVES] },
    },
    {
      name: 'agent-and-gateway-never-each-other',
      severity: 'error',
      comment: 'They run on different machines and only share protocol/.',
      from: { path: '^src/(agent|gateway)/' },
      to: { path: '^src/(agent|gateway)/', pathNot: '^src/$1/' },
    },
    {
      name: 'gateway-loads-no-pos-layer',
      severity: 'error',
      comment: 'pos/ pulls in tedious and sets pg type parsers for the whole process.',
      from: { path: '^src/gateway/' },
      to: { path: '^src/(pos|printing)/' },
    },
    {
      name: 'hub-knows-no-fleet',
      severity: 'error',
      comment: 'fleet/ drives rollouts through the hub and stores what the hub reports (hub/agent-status.ts): the arrow points one way.',
      from: { path: '^src/gateway/hub' },
      to: { path: '^src/gateway/fleet/' },
    },
    {
      name: 'only-the-top-imports-demo',
      severity: 'error',
      comment: 'Production code never depends on the demo; only cli, demo, bench and tests may.',
      from: { path: '^src/', pathNot: ['^src/demo/', '^src/cli[.]ts$'] },
      to: { path: '^src/demo/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

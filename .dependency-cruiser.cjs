/**
 * Direction of dependencies (../shared/style.md §2.1, docs/decisions.md):
 * records ← folds ← engine ← plugin contract ← plugins; drivers see only the
 * storage contract; only the composition root and the CLI name concrete
 * drivers and plugins; core knows Hapi only in core/server. Test files and
 * test helpers may reach further (they wire real drivers), so they are exempt.
 */
const notTest = '\\.test\\.ts$|/test-[a-z-]+\\.ts$|/fixtures/';

module.exports = {
  forbidden: [
    {
      name: 'records-are-pure',
      comment: 'core/records imports nothing but @noble/hashes (the SDK and browsers use it).',
      severity: 'error',
      from: { path: '^core/records/', pathNot: notTest },
      to: { pathNot: ['^core/records/', '@noble/hashes'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'records-no-node-builtins',
      severity: 'error',
      from: { path: '^core/records/', pathNot: notTest },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'folds-see-records-only',
      severity: 'error',
      from: { path: '^core/folds/', pathNot: notTest },
      to: { path: '^(core/(engine|plugin|server|cli|errors|access)|plugins|storage|openapi|sdk)/' },
    },
    {
      name: 'access-below-engine',
      comment: 'core/access (callers, scopes, gates, read policies) sits below the engine: records, errors, di and the filter language only.',
      severity: 'error',
      from: { path: '^core/access/', pathNot: notTest },
      to: { path: '^(core/(engine|plugin|server|cli|folds)|plugins|openapi|sdk|storage/(?!contract/query/))' },
    },
    {
      name: 'engine-below-plugin-layer',
      severity: 'error',
      from: { path: '^core/engine/', pathNot: notTest },
      to: { path: '^(core/(plugin|server|cli)|plugins|openapi|sdk|storage/(sqlite|level|compliance))/' },
    },
    {
      name: 'core-never-imports-plugins-or-drivers',
      comment: 'Only the reference server (core/cli, e.g. reference-loom.ts) names concrete plugins and drivers; the library root (create-loom.ts) names none.',
      severity: 'error',
      from: { path: '^core/', pathNot: ['^core/cli/', notTest] },
      to: { path: '^(plugins|storage/(sqlite|level|compliance)|examples)/' },
    },
    {
      name: 'hapi-only-in-core-server',
      severity: 'error',
      from: { path: '^(core/(records|folds|engine|plugin|errors|di)|plugins|storage|openapi|sdk)/', pathNot: notTest },
      to: { path: '@hapi/' },
    },
    {
      name: 'drivers-see-the-contract-only',
      severity: 'error',
      from: { path: '^storage/(sqlite|level)/', pathNot: notTest },
      to: { path: '^(core/(engine|plugin|server|cli|folds)|plugins|openapi|sdk|storage/(sqlite|level))/', pathNot: '^storage/(sqlite|level)/' },
    },
    {
      name: 'sqlite-driver-self-contained',
      severity: 'error',
      from: { path: '^storage/sqlite/', pathNot: notTest },
      to: { path: '^storage/level/' },
    },
    {
      name: 'level-driver-self-contained',
      severity: 'error',
      from: { path: '^storage/level/', pathNot: notTest },
      to: { path: '^storage/sqlite/' },
    },
    {
      name: 'contract-below-engine',
      severity: 'error',
      from: { path: '^storage/contract/', pathNot: notTest },
      to: { path: '^(core/(engine|folds|plugin|server|cli)|plugins|openapi|sdk|storage/(sqlite|level|compliance))/' },
    },
    {
      name: 'plugins-never-import-drivers',
      severity: 'error',
      from: { path: '^plugins/', pathNot: notTest },
      to: { path: '^(storage/(sqlite|level)|core/server/compose|core/cli|openapi|sdk)/' },
    },
    {
      name: 'plugins-not-each-others-internals',
      comment: "A plugin may import another plugin's index.ts (its exported tokens) only.",
      severity: 'error',
      from: { path: '^plugins/([^/]+)/', pathNot: notTest },
      to: { path: '^plugins/', pathNot: ['^plugins/$1/', '^plugins/[^/]+/index\\.ts$'] },
    },
    {
      name: 'sdk-sees-gen-and-records',
      comment: 'The SDK sees its generated client, the record algebra and the pure folds (which see records only), so it can verify fold answers offline.',
      severity: 'error',
      from: { path: '^sdk/', pathNot: notTest },
      to: { path: '^(core/(?!records/|folds/)|plugins|storage|openapi)' },
    },
    {
      name: 'openapi-sees-plugin-contract',
      severity: 'error',
      from: { path: '^openapi/', pathNot: [notTest, '^openapi/emit\\.ts$', '^openapi/published-document\\.ts$'] },
      to: { path: '^(plugins|storage/(sqlite|level)|core/(cli|engine))/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|sdk/gen)/' },
    tsPreCompilationDeps: true,
    
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};

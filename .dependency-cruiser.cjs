/**
 * Direction of dependencies (../shared/style.md §2.1, docs/decisions.md), in
 * three rings with arrows pointing inward only:
 * - the kernel, core/: records ← folds ← engine ← plugin contract; Hapi only
 *   in core/server; no plugin, no driver, no SDK, no OpenAPI;
 * - extensions: plugins/ (core, storage/contract, other plugins' index.ts),
 *   storage/ (drivers see the contract only), openapi/, sdk/, command/;
 * - applications: server/ (the reference server's composition), cli/ (the
 *   `loom` client: the SDK and the record algebra) and bin/ (the entry).
 *   Nothing imports an application.
 * examples/ are linted too: what they teach must pass the same rules.
 * Folders are named by pattern, so a new driver or plugin is covered without
 * editing a rule. Test files and test helpers may reach further (they wire
 * real drivers), so they are exempt; product code has no exemption.
 */
const notTest = '\\.test\\.ts$|^test/|/fixtures/';
/** Every driver: a storage/ folder other than the contract and the compliance suite. */
const driver = 'storage/(?!contract/|compliance/)[^/]+/';
/** The members plugin files the SDK recomputes run rows with (sdk/verify-run.ts): pure, records in, rows out. */
const runRowCode = '^plugins/members/(evals/run-records|evals/run-index-fold|runs/run-row)\\.ts$';
// ---- did:sync directory (issue 35) ----
/** The directory's pure rules, which `loom directory verify|genesis|update|revoke` run offline (the server's gate and fold run the same files). */
const directoryCode = '^plugins/federation/(directory/(directory-error|directory-operation|directory-state|render-did-document|verify-operations|operation-signer)|did-key|ed25519)\\.ts$';
// ---- end did:sync directory ----

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
      to: { path: '^(core/(engine|plugin|server|errors|access)/|plugins/|storage/|openapi/|sdk/|command/)' },
    },
    {
      name: 'access-below-engine',
      comment: 'core/access (callers, scopes, gates, read policies) sits below the engine: records, errors, di and the filter language only.',
      severity: 'error',
      from: { path: '^core/access/', pathNot: notTest },
      to: { path: '^(core/(engine|plugin|server|folds)/|plugins/|openapi/|sdk/|command/|storage/(?!contract/query/))' },
    },
    {
      name: 'engine-below-plugin-layer',
      severity: 'error',
      from: { path: '^core/engine/', pathNot: notTest },
      to: { path: '^(core/(plugin|server)/|plugins/|openapi/|sdk/|command/|storage/compliance/)' },
    },
    {
      name: 'core-is-the-kernel',
      comment: 'core/ imports no plugin, no driver, no SDK, no OpenAPI and no application; createLoom names no driver and no plugin.',
      severity: 'error',
      from: { path: '^core/', pathNot: notTest },
      to: { path: `^(plugins/|${driver}|storage/compliance/|sdk/|openapi/|command/|examples/)` },
    },
    {
      name: 'hapi-only-in-core-server',
      severity: 'error',
      from: { path: '^(core/(?!server/)[^/]+|plugins|storage|openapi|sdk|command|cli)/', pathNot: notTest },
      to: { path: '@hapi/' },
    },
    {
      name: 'mcp-sdk-only-in-the-mcp-plugin',
      comment: 'The MCP SDK (and its express/hono dependencies) loads only with plugins/mcp: never in core, another plugin, the CLI or the SDK.',
      severity: 'error',
      from: { pathNot: [notTest, '^plugins/mcp/'] },
      to: { path: '@modelcontextprotocol/' },
    },
    {
      name: 'drivers-see-the-contract-only',
      comment: 'A driver imports the storage contract, the record algebra, errors and its own folder: never another driver, the engine or a plugin.',
      severity: 'error',
      from: { path: '^storage/(?!contract/|compliance/)([^/]+)/', pathNot: notTest },
      to: {
        path: '^(core/(?!records/|errors/|di/)|plugins/|openapi/|sdk/|command/|storage/)',
        pathNot: ['^storage/contract/', '^storage/$1/'],
      },
    },
    {
      name: 'contract-below-engine',
      severity: 'error',
      from: { path: '^storage/contract/', pathNot: notTest },
      to: { path: `^(core/(engine|folds|plugin|server)/|plugins/|openapi/|sdk/|command/|${driver}|storage/compliance/)` },
    },
    {
      name: 'plugins-see-core-the-contract-and-plugin-indexes',
      comment: "A plugin imports core, storage/contract and other plugins' index.ts (their exported tokens): no driver, no SDK, no OpenAPI, no application.",
      severity: 'error',
      from: { path: '^plugins/', pathNot: notTest },
      to: { path: '^(storage/(?!contract/)|openapi/|sdk/|command/)' },
    },
    {
      name: 'plugins-not-each-others-internals',
      comment: "A plugin may import another plugin's index.ts (its exported tokens) only.",
      severity: 'error',
      from: { path: '^plugins/([^/]+)/', pathNot: notTest },
      to: { path: '^plugins/', pathNot: ['^plugins/$1/', '^plugins/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-engine-backdoor',
      comment:
        "Plugins and examples reach the kernel through narrow tokens (the record reader and writer, EngineStatus, ConfigTopics, a plugin's own fold handle): never the whole engine (loom-engine.ts) nor the fold engine (fold-engine.ts), which are the kernel's own. Imports through the core/index.ts barrel are beyond a path rule: test/route-coverage.test.ts also forbids naming LoomEngineToken and FoldEngineToken there.",
      severity: 'error',
      from: { path: '^(plugins|examples)/', pathNot: notTest },
      to: { path: '^core/engine/(loom-engine|fold-engine)\\.ts$' },
    },
    {
      name: 'sdk-sees-gen-and-records',
      comment:
        "The SDK sees its generated client, the record algebra and the pure folds (which see records only): core/folds, the folds plugin's named/ folder and the run row's fold (runRowCode below), so it can verify fold answers and run rows offline.",
      severity: 'error',
      from: { path: '^sdk/', pathNot: notTest },
      to: { path: '^(core/(?!records/|folds/)|plugins/(?!folds/named/)|storage/|openapi/|command/)', pathNot: runRowCode },
    },
    {
      name: 'run-row-code-is-pure',
      comment: 'The run vocabulary, the member_runs fold and the run row are the members plugin files the SDK imports (verifyRun), so they see what core/folds sees: the record algebra, the pure folds and each other.',
      severity: 'error',
      from: { path: runRowCode, pathNot: notTest },
      to: { path: '^(core/(?!records/|folds/)|plugins/|storage/|openapi/|sdk/|command/)', pathNot: runRowCode },
    },
    {
      name: 'named-folds-are-pure',
      comment: 'plugins/folds/named is the one plugin folder the SDK imports, so it sees what core/folds sees: the record algebra and the pure folds.',
      severity: 'error',
      from: { path: '^plugins/folds/named/', pathNot: notTest },
      to: { path: '^(core/(?!records/|folds/)|plugins/(?!folds/named/)|storage/|openapi/|sdk/|command/)' },
    },
    // ---- did:sync directory (issue 35) ----
    {
      name: 'directory-code-is-pure',
      comment: 'The directory files the CLI runs offline see the record algebra, each other and node built-ins: no kernel, no other plugin code.',
      severity: 'error',
      from: { path: directoryCode, pathNot: notTest },
      to: { path: '^(core/(?!records/)|plugins/|storage/|openapi/|sdk/|command/)', pathNot: directoryCode },
    },
    // ---- end did:sync directory ----
    {
      name: 'openapi-sees-the-plugin-contract',
      comment: 'openapi/ builds the document from the route catalogue; composing a server to emit it is server/openapi.',
      severity: 'error',
      from: { path: '^openapi/', pathNot: notTest },
      to: { path: `^(plugins/|${driver}|storage/compliance/|core/engine/|sdk/|command/)` },
    },
    {
      name: 'command-contract-stands-alone',
      comment: 'command/ (defineCommand, CliError) is shared by cli/ and server/; it imports no Loom code.',
      severity: 'error',
      from: { path: '^command/', pathNot: notTest },
      to: { path: '^(core|plugins|storage|openapi|sdk|server|cli|bin)/' },
    },
    {
      name: 'cli-talks-through-the-sdk',
      comment: "The loom client reaches a server only through the SDK; of core it sees the record algebra; command/ is its declaration.",
      severity: 'error',
      from: { path: '^cli/', pathNot: notTest },
      // did:sync directory (issue 35): the CLI verifies and signs operations offline with the directory's own pure files.
      to: { path: '^(core/(?!records/)|plugins/|storage/|openapi/|server/)', pathNot: directoryCode },
    },
    {
      name: 'console-is-an-sdk-client',
      comment: 'The web console (console/) reaches the server only through the SDK, like any client; of core it sees the record algebra.',
      severity: 'error',
      from: { path: '^console/', pathNot: notTest },
      to: { path: '^(core/(?!records/)|plugins/|storage/|openapi/|server/|cli/|command/|bin/)' },
    },
    {
      name: 'nothing-imports-the-console',
      comment: 'console/ is a browser application bundled by console/build.mjs: nothing imports it.',
      severity: 'error',
      from: { pathNot: ['^console/', notTest] },
      to: { path: '^console/' },
    },
    {
      name: 'nothing-imports-the-server',
      comment: 'server/ is an application: only bin/ (the entry) and tests import it.',
      severity: 'error',
      from: { pathNot: ['^(server|bin)/', notTest] },
      to: { path: '^server/' },
    },
    {
      name: 'nothing-imports-the-cli',
      comment: 'cli/ is an application: only bin/ (the entry) and tests import it.',
      severity: 'error',
      from: { pathNot: ['^(cli|bin)/', notTest] },
      to: { path: '^cli/' },
    },
    {
      name: 'nothing-imports-bin',
      severity: 'error',
      from: { pathNot: ['^bin/', notTest] },
      to: { path: '^bin/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|sdk/gen)/' },
    tsPreCompilationDeps: true,

    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};

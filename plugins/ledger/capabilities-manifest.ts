/** The capabilities manifest (spec §2.8), built from what is actually loaded. */
import { Type } from 'typebox';
import type { Caller } from '../../core/access/caller.js';
import type { CapabilityFlags } from '../../core/plugin/capabilities.js';
import type { DiscoveryFacts } from '../../core/plugin/discovery-facts.js';
import { HASHED_FIELDS, RECORD_ALGEBRA_VERSION } from '../../core/records/record.js';
import { SUPPORTED_DID_METHODS } from '../../core/records/did-syntax.js';
import { MANIFEST_VERSION, type ServerInfo } from '../../core/server/server-info.js';

export const CapabilitiesManifestSchema = Type.Object(
  {
    object: Type.Literal('capabilities_manifest'),
    manifest_version: Type.String(),
    daemon: Type.Object({ version: Type.String(), api_version: Type.String(), spec_version: Type.String() }),
    auth: Type.Object({
      required: Type.Boolean(),
      is_authenticated: Type.Boolean({ description: 'Whether this request carried a valid credential.' }),
      scopes: Type.Array(Type.String(), { description: "The caller's scopes and grains (every scope when enforcement is off)." }),
    }),
    did_methods: Type.Array(Type.String()),
    record: Type.Object({ algebra_version: Type.String(), hashed_fields: Type.Array(Type.String()) }),
    mcp_tools: Type.Array(Type.String()),
    transports: Type.Object({ http: Type.Boolean(), sse: Type.Boolean() }, { additionalProperties: true }),
    semantic_search: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: true }),
    store_backends: Type.Array(Type.String()),
    store_backend: Type.String({ description: 'The backend this instance runs on.' }),
    capabilities: Type.Record(Type.String(), Type.Boolean(), { description: 'Additive feature flags; absence means unsupported.' }),
    conventions: Type.Object(
      {
        decisions_path: Type.Union([Type.String(), Type.Null()]),
        identity_path: Type.Union([Type.String(), Type.Null()]),
        sync_path: Type.Union([Type.String(), Type.Null()]),
        trust_path: Type.Union([Type.String(), Type.Null()]),
      },
      {
        additionalProperties: true,
        description: "The spec's four paths (null when no loaded plugin serves one), plus every other convention a loaded plugin describes, by name (e.g. the data plane's data_plane).",
      },
    ),
  },
  { $id: 'CapabilitiesManifest' },
);

/**
 * Plugins describe a convention as `manifest` key `conventions.<name>` (auth:
 * identity_path, the data plane: data_plane). Every one appears: the spec's
 * four paths start null, any other name is the describing plugin's.
 */
function conventionsOf(info: ServerInfo, facts: DiscoveryFacts | null): ServerInfo['conventions'] & Record<string, unknown> {
  return { ...info.conventions, ...factsUnder(facts, 'conventions') };
}

/** Facts plugins contributed under `<prefix>.<name>`, by name (e.g. the search plugin's `semantic_search.embedder`). */
function factsUnder(facts: DiscoveryFacts | null, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(facts?.read('manifest') ?? {})) if (key.startsWith(prefix + '.')) out[key.slice(prefix.length + 1)] = value;
  return out;
}

// ---- MCP (plugins/mcp) ----
/** The MCP plugin's tool names, or none while it is not loaded. */
function mcpToolsOf(facts: DiscoveryFacts | null): string[] {
  const names = facts?.read('manifest')['mcp_tools'];
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
}
// ---- end MCP ----

export function buildCapabilitiesManifest(info: ServerInfo, flags: CapabilityFlags, caller: Caller, facts: DiscoveryFacts | null = null) {
  const capabilities = flags.snapshot();
  return {
    object: 'capabilities_manifest' as const,
    manifest_version: MANIFEST_VERSION,
    daemon: { version: info.version, api_version: info.apiVersion, spec_version: info.specVersion },
    auth: { required: info.authRequired(), is_authenticated: caller.kind === 'credential', scopes: [...caller.scopes] },
    did_methods: SUPPORTED_DID_METHODS.map((m) => `did:${m}`),
    record: { algebra_version: RECORD_ALGEBRA_VERSION, hashed_fields: [...HASHED_FIELDS] },
    // ---- MCP (plugins/mcp): the names tools/list answers, contributed as the manifest fact `mcp_tools` ----
    mcp_tools: mcpToolsOf(facts),
    // ---- end MCP ----
    transports: { http: true, sse: capabilities['threads.watch'] === true },
    // `enabled` unless the search plugin says more (whether a provider is configured, which embedder).
    semantic_search: { enabled: capabilities['records.semantic_search'] === true, ...factsUnder(facts, 'semantic_search') },
    store_backends: [...info.storeBackends],
    store_backend: info.storeBackend,
    capabilities,
    conventions: conventionsOf(info, facts),
  };
}

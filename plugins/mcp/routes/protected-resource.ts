/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for MCP clients: where
 * to get a token for this server. Loom is its own authorization server for
 * its bearer tokens (service accounts and grants), so `authorization_servers`
 * names this origin; `scopes_supported` is the closed scope enum; tokens go
 * only in the Authorization header. Served at the root (the whole server)
 * and path-suffixed for the MCP endpoint (RFC 9728 §3.1), the two places an
 * MCP client looks after the 401's `resource_metadata`.
 */
import { Type } from 'typebox';
import { SCOPES } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { requestOrigin } from '../../../core/server/request-origin.js';
import { MCP_PATH, PRM_MCP_PATH, PRM_ROOT_PATH } from '../config.js';

export const ProtectedResourceMetadataSchema = Type.Object(
  {
    resource: Type.String({ description: 'The protected resource: this origin, or the MCP endpoint URL.' }),
    authorization_servers: Type.Array(Type.String(), { description: 'This origin: Loom issues its own bearer tokens.' }),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
  },
  { $id: 'ProtectedResourceMetadata' },
);

function metadata(headers: Readonly<Record<string, string | undefined>>, path: string) {
  const origin = requestOrigin(headers);
  if (origin === null) throw new LoomError('INVALID_SHAPE', 'headers.host: a plain host[:port] is needed to name this resource');
  return { resource: origin + path, authorization_servers: [origin], scopes_supported: [...SCOPES], bearer_methods_supported: ['header'], resource_name: 'Loom' };
}

const description =
  'RFC 9728 metadata: `resource`, `authorization_servers` (this origin: Loom issues its own bearer tokens, e.g. `loom mcp config --create-account`), `scopes_supported` (the scope enum) and `bearer_methods_supported` ([header]). Public.';

export const getProtectedResourceMetadata = defineRoute({
  operationId: 'getProtectedResourceMetadata',
  method: 'GET',
  path: PRM_ROOT_PATH,
  summary: 'OAuth Protected Resource Metadata of this server',
  description,
  tags: ['mcp'],
  auth: 'none',
  responses: { 200: { description: 'The metadata; `resource` is this origin.', schema: ProtectedResourceMetadataSchema } },
  errors: ['INVALID_SHAPE'],
  inject: {},
  handler: ({ headers }) => metadata(headers, ''),
});

export const getMcpProtectedResourceMetadata = defineRoute({
  operationId: 'getMcpProtectedResourceMetadata',
  method: 'GET',
  path: PRM_MCP_PATH,
  summary: 'OAuth Protected Resource Metadata of the MCP endpoint',
  description,
  tags: ['mcp'],
  auth: 'none',
  responses: { 200: { description: `The metadata; \`resource\` is this origin + ${MCP_PATH}.`, schema: ProtectedResourceMetadataSchema } },
  errors: ['INVALID_SHAPE'],
  inject: {},
  handler: ({ headers }) => metadata(headers, MCP_PATH),
});

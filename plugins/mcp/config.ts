/** The MCP plugin's options. */
import { Type, type Static } from 'typebox';
import { token } from '../../core/di/token.js';

export const McpOptionsSchema = Type.Object(
  {
    /**
     * Browser origins allowed to call POST /v1/mcp besides this server's own
     * loopback origin (exact `scheme://host[:port]`, e.g. `https://loom.example.com`).
     * Also read from LOOM_MCP_ALLOWED_ORIGINS (comma-separated).
     * @default []
     */
    allowedOrigins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 100, default: [] }),
  },
  { additionalProperties: false },
);

export type McpOptions = Static<typeof McpOptionsSchema>;

export const McpOptionsToken = token<McpOptions>('mcp.Options');

/** The endpoint's path, and its Protected Resource Metadata's (RFC 9728 §3.1: the well-known prefix, then the resource's path). */
export const MCP_PATH = '/v1/mcp';
export const PRM_ROOT_PATH = '/.well-known/oauth-protected-resource';
export const PRM_MCP_PATH = `${PRM_ROOT_PATH}${MCP_PATH}`;

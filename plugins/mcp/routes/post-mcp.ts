/**
 * POST /v1/mcp: MCP 2025-11-25 Streamable HTTP, stateless. The route is
 * declared like any other (auth, body, statuses, errors), so authentication
 * and the scope gate are core's; this handler adds the transport's own
 * rules (Origin, MCP-Protocol-Version, Accept) as Loom refusals, then hands
 * the JSON-RPC message to the SDK's web-standard transport with a new
 * `Server` for this request, and answers its Response as a Reply: JSON for
 * plain calls, an event stream for a `tools/call` that asks for progress.
 * GET and DELETE are not routed: the router answers 405 METHOD_NOT_ALLOWED
 * (no server-initiated stream, no session to end).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { Type } from 'typebox';
import type { ErrorCode } from '../../../core/errors/codes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { EVENT_STREAM_HEADERS } from '../../../core/plugin/event-stream.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { MCP_PATH, McpOptionsToken, PRM_MCP_PATH } from '../config.js';
import { mcpServer } from '../mcp-session.js';
import { originAllowed } from '../origin-policy.js';
import { McpToolCatalogToken } from '../tool-catalog.js';

const Id = Type.Union([Type.String(), Type.Integer()]);

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Id),
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })),
  },
  { $id: 'McpJsonRpcMessage', description: 'One JSON-RPC 2.0 message of MCP 2025-11-25: a request, a notification or a response (batches are not part of the protocol since 2025-06-18).' },
);

const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Id, Type.Null()]),
    result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })),
  },
  { $id: 'McpJsonRpcResponse' },
);

/** The SDK's HTTP-level refusals, as Loom codes (the JSON-RPC error rides along in the envelope). */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 403:
      return 'ORIGIN_NOT_ALLOWED';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 406:
      return 'NOT_ACCEPTABLE';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    default:
      return 'INVALID_SHAPE';
  }
}

function jsonRpcRefusal(code: ErrorCode, message: string, rpcCode = -32000): LoomError {
  // Both readers are served: a Loom client reads {object, code, message}, a JSON-RPC client {jsonrpc, error, id}.
  return new LoomError(code, message, { jsonrpc: '2.0', error: { code: rpcCode, message }, id: null });
}

/** A tools/call that asks for progress notifications: the one answer that is an event stream. */
function wantsProgress(body: { method?: string; params?: Record<string, unknown> }): boolean {
  const meta = body.params?.['_meta'] as { progressToken?: unknown } | undefined;
  return body.method === 'tools/call' && meta?.progressToken !== undefined;
}

export const postMcp = defineRoute({
  operationId: 'postMcp',
  method: 'POST',
  path: MCP_PATH,
  summary: 'MCP tool server (Streamable HTTP, stateless)',
  description:
    'Model Context Protocol 2025-11-25 over Streamable HTTP without sessions: every POST carries one JSON-RPC message and is self-contained (no Mcp-Session-Id). ' +
    'Methods: initialize, ping, logging/setLevel, tools/list, tools/call. Tools act as the caller, through the same scope gate and read policy as the HTTP operations they mirror; a tool the credential lacks the scope for answers a tool result with isError and code SCOPE_FORBIDDEN. ' +
    'A request answers application/json; a tools/call whose params._meta carries a progressToken answers text/event-stream (progress notifications, then the response). Notifications answer 202 with no body. ' +
    'Send Accept: application/json, text/event-stream. A present Origin must be this server’s own loopback origin or a configured one (403 ORIGIN_NOT_ALLOWED); an MCP-Protocol-Version this server does not speak is 400 UNSUPPORTED_PROTOCOL_VERSION. ' +
    `GET and DELETE answer 405. A 401 names the Protected Resource Metadata (${PRM_MCP_PATH}) in WWW-Authenticate.`,
  tags: ['mcp'],
  auth: { scope: null },
  resourceMetadata: PRM_MCP_PATH,
  request: { body: JsonRpcMessage },
  responses: {
    200: { description: 'The JSON-RPC response (application/json); for a tools/call asking for progress, an event stream (text/event-stream) ending with it.', schema: JsonRpcResponse },
    202: { description: 'A notification or a response was accepted; no body.' },
  },
  errors: ['INVALID_SHAPE', 'ORIGIN_NOT_ALLOWED', 'UNSUPPORTED_PROTOCOL_VERSION', 'NOT_ACCEPTABLE', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'METHOD_NOT_ALLOWED'],
  inject: { catalog: McpToolCatalogToken, info: ServerInfo, options: McpOptionsToken },
  handler: async ({ body, headers, caller, signal }, { catalog, info, options }) => {
    const origin = headers['origin'];
    if (origin !== undefined && !originAllowed(origin, headers['host'], options.allowedOrigins)) {
      throw jsonRpcRefusal('ORIGIN_NOT_ALLOWED', `Origin ${JSON.stringify(origin)} may not call ${MCP_PATH}: only this server's own loopback origin and configured origins may`);
    }
    const version = headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw jsonRpcRefusal('UNSUPPORTED_PROTOCOL_VERSION', `MCP-Protocol-Version ${JSON.stringify(version)} is not supported (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    const accept = headers['accept'] ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      throw jsonRpcRefusal('NOT_ACCEPTABLE', 'send Accept: application/json, text/event-stream (MCP Streamable HTTP)');
    }

    const credentialHeaders: Record<string, string> = {};
    for (const name of ['authorization', 'x-service-actor']) if (headers[name] !== undefined) credentialHeaders[name] = headers[name]!;
    const server = mcpServer(catalog, { caller, credentialHeaders }, info.version);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
    const close = () => void server.close().catch(() => undefined);
    await server.connect(transport);
    let response: Response;
    try {
      const forwarded: Record<string, string> = { 'content-type': 'application/json', accept };
      if (version !== undefined) forwarded['mcp-protocol-version'] = version;
      response = await transport.handleRequest(new Request(`http://loom.local${MCP_PATH}`, { method: 'POST', headers: forwarded, body: JSON.stringify(body) }), { parsedBody: body });
    } catch (error) {
      close();
      throw error;
    }

    if (response.status >= 400) {
      close();
      const text = await response.text();
      let message = `the MCP transport refused the request (HTTP ${response.status})`;
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON: keep the generic message
      }
      throw jsonRpcRefusal(codeForStatus(response.status), message);
    }
    if (response.status === 202 || response.body === null) {
      close();
      return Reply.empty(response.status === 200 ? 202 : response.status);
    }
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const stream = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
      stream.once('close', close);
      signal.addEventListener('abort', () => stream.destroy(), { once: true });
      return Reply.stream(stream, { ...EVENT_STREAM_HEADERS }, response.status);
    }
    const text = await response.text();
    close();
    return Reply.json(response.status, JSON.parse(text));
  },
});

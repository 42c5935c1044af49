import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { BlobReadsToken } from '../blob-reads.js';
import { parseDataPath } from '../data-path.js';
import { HashSchema, NamespaceQuery, PathField } from './data-schemas.js';

const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** The origin clients reached this server at (the Host header; X-Forwarded-Proto from a proxy), or null. */
function originOf(headers: Readonly<Record<string, string | undefined>>): string | null {
  const host = headers['x-forwarded-host'] ?? headers['host'];
  if (!host || !HOST.test(host)) return null;
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}

export const createDataReadUrl = defineRoute({
  operationId: 'createDataReadUrl',
  method: 'POST',
  path: '/v1/data/read-url',
  summary: 'A signed, expiring URL for a file’s bytes',
  description:
    'Anyone holding blob_url can GET the file’s current content (ranges included) until it expires, without a bearer. expires_in defaults to 900 s and is capped (7 days by default). ' +
    'The URL names content, not the path: it keeps reading this version after the path changes.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: {
    body: Type.Object({ path: PathField, expires_in: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds.' })), namespace: NamespaceQuery }, { additionalProperties: false }),
  },
  responses: {
    200: {
      description: 'The URL.',
      schema: Type.Object(
        {
          blob_url: Type.String(),
          expires_in: Type.Integer(),
          expires_at: Type.String({ format: 'date-time' }),
          via: Type.Literal('signed_url'),
          content_hash: HashSchema,
          size_bytes: Type.Integer(),
        },
        { $id: 'ReadUrl' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'IS_A_DIRECTORY'],
  inject: { access: DataAccessToken, blobs: BlobReadsToken },
  handler: async ({ body, caller, headers }, { access, blobs }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    return blobs.readUrl(caller, namespace, parseDataPath(body.path), body.expires_in, originOf(headers));
  },
});

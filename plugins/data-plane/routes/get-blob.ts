import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { byteStreamReply, byteStreamResponses } from '../../../core/plugin/byte-stream-reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { checkContentType } from '../content-type.js';
import { BlobReadsToken } from '../blob-reads.js';

export const getBlob = defineRoute({
  operationId: 'getBlob',
  method: 'GET',
  path: '/v1/blobs/{hash}',
  summary: 'Content bytes by hash',
  description:
    'Streams the blob to a caller who may see a file holding it (bearer with records:read) or to anyone with a valid signed URL (expires, sig, and content_type when signed). ' +
    'Range requests answer 206; the ETag is the hash and the bytes never change (Cache-Control: immutable); If-None-Match answers 304. ' +
    'A blob no visible file holds answers 404 BLOB_NOT_FOUND, the same as one that does not exist; so does a signed URL once no file of any namespace holds its content (removed or overwritten).',
  tags: ['data'],
  auth: {
    scope: 'records:read',
    orCapability: { name: 'signedUrl', query: 'sig', description: 'A signed read URL from POST /v1/data/read-url: its expires, sig (and content_type) query parameters stand in for a bearer.' },
  },
  request: {
    params: Type.Object({ hash: Type.String({ maxLength: 64, description: 'SHA-256, lowercase hex.' }) }, { additionalProperties: false }),
    query: Type.Object(
      {
        expires: Type.Optional(Type.String({ maxLength: 20, description: 'Signed URLs: expiry, Unix seconds.' })),
        sig: Type.Optional(Type.String({ maxLength: 100, description: 'Signed URLs: the signature.' })),
        content_type: Type.Optional(Type.String({ maxLength: 255, description: 'Content-Type of the answer (signed with the URL when present there). @default application/octet-stream' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: byteStreamResponses('The content.'),
  errors: ['BLOB_NOT_FOUND', 'RANGE_NOT_SATISFIABLE', 'SIGNED_URL_INVALID', 'SIGNED_URL_EXPIRED', 'INVALID_SHAPE'],
  inject: { blobs: BlobReadsToken },
  handler: async ({ params, query, headers, caller, authRefusal }, { blobs }) => {
    const hash = params.hash;
    const signed = query.sig !== undefined || query.expires !== undefined;
    // Without a signed URL this is an ordinary bearer route: its refusal comes first.
    if (!signed && authRefusal) throw authRefusal;
    const notFound = () => new LoomError('BLOB_NOT_FOUND', `no blob ${hash} that you may read is held here`);
    const contentType = query.content_type === undefined ? 'application/octet-stream' : checkContentType(query.content_type);
    if (signed) {
      blobs.verifySignature(hash, query.expires, query.sig ?? '', query.content_type);
      if (!(await blobs.heldByAnyFile(hash))) throw notFound();
    } else if (!/^[0-9a-f]{64}$/.test(hash) || !(await blobs.maySee(caller, hash))) {
      throw notFound();
    }
    const size = await blobs.blobSize(hash);
    return byteStreamReply(headers, {
      size,
      etag: hash,
      contentType,
      cacheControl: 'private, max-age=31536000, immutable',
      // User content is never run as the API's own page, whatever its type.
      headers: { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" },
      open: (start, end) => blobs.openBlob(hash, start, end),
    });
  },
});

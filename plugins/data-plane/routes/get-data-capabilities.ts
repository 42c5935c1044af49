import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataPlaneOptionsToken } from '../data-plane-token.js';
import { MAX_DEPTH, MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from '../data-path.js';

export const DATA_PLANE_VERSION = 1;

export const getDataCapabilities = defineRoute({
  operationId: 'getDataCapabilities',
  method: 'GET',
  path: '/v1/data/capabilities',
  summary: 'Data-plane limits',
  description: 'What clients need to upload and read: chunk size, size and path limits, lifetimes, the content hash.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  responses: {
    200: {
      description: 'The limits.',
      schema: Type.Object(
        {
          object: Type.Literal('data_capabilities'),
          version: Type.Integer(),
          chunk_size: Type.Integer({ description: 'Chunks start at multiples of it; every chunk but the last is this long.' }),
          max_file_bytes: Type.Integer(),
          max_path_bytes: Type.Integer(),
          max_segment_bytes: Type.Integer(),
          max_depth: Type.Integer(),
          upload_ttl_seconds: Type.Integer({ description: 'An upload idle this long expires.' }),
          read_url_default_seconds: Type.Integer(),
          read_url_max_seconds: Type.Integer(),
          content_hash: Type.Literal('sha256'),
          resumable: Type.Boolean(),
          range_reads: Type.Boolean(),
        },
        { $id: 'DataCapabilities' },
      ),
    },
  },
  errors: [],
  inject: { options: DataPlaneOptionsToken },
  handler: (_input, { options }) => {
    const o = options;
    return {
      object: 'data_capabilities' as const,
      version: DATA_PLANE_VERSION,
      chunk_size: o.chunkSizeBytes,
      max_file_bytes: o.maxFileBytes,
      max_path_bytes: MAX_PATH_BYTES,
      max_segment_bytes: MAX_SEGMENT_BYTES,
      max_depth: MAX_DEPTH,
      upload_ttl_seconds: o.uploadTtlSeconds,
      read_url_default_seconds: o.readUrlSeconds,
      read_url_max_seconds: o.readUrlMaxSeconds,
      content_hash: 'sha256' as const,
      resumable: true,
      range_reads: true,
    };
  },
});

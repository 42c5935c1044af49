/** An upload session as the upload routes answer it. */
import { chunkCount, missingChunks, rangesOf, type UploadMeta } from '../upload-store.js';

export function uploadStatus(meta: UploadMeta) {
  const missing = missingChunks(meta);
  const received = rangesOf(meta, meta.received);
  return {
    object: 'upload' as const,
    ok: true as const,
    upload_id: meta.upload_id,
    namespace: meta.namespace,
    path: meta.path,
    size_bytes: meta.size_bytes,
    chunk_size: meta.chunk_size,
    chunks: chunkCount(meta),
    received_bytes: received.reduce((sum, [start, end]) => sum + end - start + 1, 0),
    received_ranges: received,
    missing_ranges: rangesOf(meta, missing),
    complete: missing.length === 0,
    expires_at: meta.expires_at,
    upload_url: `/v1/blobs/upload/${meta.upload_id}`,
  };
}

/**
 * Data-plane calls for the loopback HTTP tests, over plain fetch (a chunk PUT
 * is raw bytes, not JSON): open an upload, send chunks with Content-Range,
 * complete it, or do all three; and set a namespace's quota.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { expectEnvelope, request, type HttpAnswer } from './http-server.js';

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Deterministic, non-repeating test content (so a misplaced chunk changes the hash). */
export function testBytes(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

export type HeaderMap = Record<string, string>;

export const initWrite = (url: string, body: Record<string, unknown>, headers: HeaderMap = {}): Promise<HttpAnswer> =>
  request(url, 'POST', '/v1/data/write/init', { json: body, headers });

/** PUTs `bytes` as `Content-Range: bytes start-end/total` (pass `range` to send any header text, or null for none). */
export function putChunk(
  url: string,
  uploadId: string,
  bytes: Uint8Array,
  range: { start: number; end: number; total: number } | string | null,
  headers: HeaderMap = {},
): Promise<HttpAnswer> {
  const contentRange: HeaderMap = range === null ? {} : { 'content-range': typeof range === 'string' ? range : `bytes ${range.start}-${range.end}/${range.total}` };
  return request(url, 'PUT', `/v1/blobs/upload/${uploadId}`, { body: bytes, headers: { 'content-type': 'application/octet-stream', ...contentRange, ...headers } });
}

/** PUTs chunk `index` of `content` (chunk-aligned, the last one short). */
export function putChunkOf(url: string, uploadId: string, content: Uint8Array, chunkSize: number, index: number, headers: HeaderMap = {}): Promise<HttpAnswer> {
  const start = index * chunkSize;
  const end = Math.min(start + chunkSize, content.length) - 1;
  return putChunk(url, uploadId, content.subarray(start, end + 1), { start, end, total: content.length }, headers);
}

export const uploadStatus = (url: string, uploadId: string, headers: HeaderMap = {}): Promise<HttpAnswer> => request(url, 'GET', `/v1/blobs/upload/${uploadId}`, { headers });

export const completeWrite = (url: string, uploadId: string, headers: HeaderMap = {}, contentHash?: string): Promise<HttpAnswer> =>
  request(url, 'POST', '/v1/data/write/complete', { json: { upload_id: uploadId, ...(contentHash ? { content_hash: contentHash } : {}) }, headers });

export interface UploadOptions {
  readonly chunkSize: number;
  readonly headers?: HeaderMap;
  /** Extra init fields (precondition, content_type, namespace, provenance). */
  readonly init?: Record<string, unknown>;
  /** Order of the chunk indices to send. @default ascending */
  readonly order?: readonly number[];
}

/** Opens an upload and sends every chunk; answers the upload id (asserting each step succeeded). */
export async function openAndSend(url: string, path: string, content: Uint8Array, options: UploadOptions): Promise<string> {
  const headers = options.headers ?? {};
  const init = await initWrite(url, { path, size_bytes: content.length, ...options.init }, headers);
  expect(init.status, init.text).to.equal(201);
  const uploadId: string = init.json.upload_id;
  const chunks = Math.ceil(content.length / options.chunkSize);
  const order = options.order ?? Array.from({ length: chunks }, (_, i) => i);
  for (const index of order) {
    const put = await putChunkOf(url, uploadId, content, options.chunkSize, index, headers);
    expect(put.status, put.text).to.equal(200);
  }
  return uploadId;
}

/** init → every chunk → complete; answers the completion (asserted 200). */
export async function uploadFile(url: string, path: string, content: Uint8Array, options: UploadOptions): Promise<HttpAnswer> {
  const uploadId = await openAndSend(url, path, content, options);
  const done = await completeWrite(url, uploadId, options.headers);
  expect(done.status, done.text).to.equal(200);
  expect(done.json.content_hash).to.equal(sha256(content));
  return done;
}

/** Reads a blob's bytes (any status) with optional request headers. */
export async function readBlob(url: string, location: string, headers: HeaderMap = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(location.startsWith('http') ? location : url + location, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Sets (or with null lifts) the data_quota of `namespace`. */
export async function setQuota(url: string, namespace: string, quotaBytes: number | null, headers: HeaderMap = {}): Promise<void> {
  const answer = await request(url, 'POST', '/v1/config/data_quota', { json: { namespace_id: namespace, quota_bytes: quotaBytes }, headers });
  expect(answer.status, answer.text).to.equal(201);
}

/** expectEnvelope with the extra members a refusal carries (`details`) first, as the data-plane tests read best. */
export function expectRefusal(answer: HttpAnswer, status: number, code: string, details: Record<string, unknown> = {}, where = ''): void {
  expectEnvelope(answer, status, code, where, details);
}

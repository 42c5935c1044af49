/**
 * Moving file bytes through the data plane: `uploadFile` (the resumable
 * three-step write: init, chunks, complete) and `readBlobRange` (a streamed,
 * optionally ranged read of content by hash).
 *
 * Runtime-agnostic (Node 20 and browsers): the content is a Blob and each
 * chunk is `content.slice(...)`, so a file-backed Blob (`fs.openAsBlob` in
 * Node, a `File` in a browser) is read one chunk at a time and never held
 * whole in memory. Chunks go one at a time, in order.
 *
 * Resumption follows the server, never local bookkeeping: the next chunk sent
 * is always the first of the upload's `missing_ranges`, and after any failed
 * request the upload's status is read again before anything is re-sent, so a
 * chunk that arrived (even one whose answer was lost) is never sent twice.
 */
import type * as operations from './gen/sdk.gen.js';
import type { UploadStatus, WriteResult } from './gen/types.gen.js';

/** The generated operations these helpers call (a LoomClient has them all). */
export type DataTransferClient = Pick<typeof operations, 'initDataWrite' | 'getDataUpload' | 'uploadDataChunk' | 'completeDataWrite' | 'getBlob'>;

/**
 * A refused or failed transfer. `code`, `status` and `message` come from the
 * server's error envelope, whose other fields (`current_hash`,
 * `missing_ranges` …) are in `envelope`. Failures the server never answered
 * have status 0 and code `NETWORK_ERROR` (the fetch error is the `cause`);
 * a resumed upload that does not fit the content is `UPLOAD_MISMATCH`.
 */
export class DataTransferError extends Error {
  readonly code: string;
  readonly envelope: Readonly<Record<string, unknown>>;
  /** The answer's Retry-After header (seconds or an HTTP date), if any. */
  readonly retryAfter: string | null;

  constructor(
    envelope: { code: string; message: string; [field: string]: unknown },
    readonly status: number,
    options: { cause?: unknown; retryAfter?: string | null } = {},
  ) {
    super(envelope.message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'DataTransferError';
    this.code = envelope.code;
    this.envelope = envelope;
    this.retryAfter = options.retryAfter ?? null;
  }
}

export interface UploadProgress {
  /** Bytes the server holds (chunks that arrived, including those of an earlier attempt). */
  readonly sentBytes: number;
  readonly totalBytes: number;
  readonly uploadId: string;
}

export interface UploadFileOptions {
  /** Absolute path within the namespace, e.g. `/reports/q3.pdf`. */
  readonly path: string;
  /** The bytes. A file-backed Blob is read chunk by chunk. */
  readonly content: Blob;
  /** @default the caller's only namespace grain, else `default` (decided by the server) */
  readonly namespace?: string;
  /** @default `content.type`, else the server's `application/octet-stream` */
  readonly contentType?: string;
  /** `{expected_hash: hash}` compare-and-swap, `{expected_hash: null}` create-only. @default last writer wins */
  readonly precondition?: { readonly expected_hash: string | null };
  readonly provenance?: { readonly work_thread?: string; readonly goal_summary?: string };
  /** SHA-256 (lowercase hex) the server checks the bytes against at completion. */
  readonly contentHash?: string;
  /**
   * Continue this upload (from an earlier, interrupted call): only its
   * missing chunks are sent. When the server no longer has it (completed,
   * aborted or expired), a new upload is opened instead.
   */
  readonly resumeUploadId?: string;
  /** Consecutive failed attempts tolerated per request (network errors, 5xx except 507, 408, 429). @default 5 */
  readonly retries?: number;
  readonly signal?: AbortSignal;
  /** Called when the upload is known (opened or resumed) and after each chunk lands. */
  readonly onProgress?: (progress: UploadProgress) => void;
  /** Called once with the upload's status before any chunk is sent, e.g. to save the id for a later resume. */
  readonly onUpload?: (status: UploadStatus) => void | Promise<void>;
}

export interface UploadFileResult {
  /** The server's answer to POST /v1/data/write/complete. */
  readonly answer: WriteResult;
  readonly uploadId: string;
  /** True when `resumeUploadId` was continued (false when a new upload had to be opened). */
  readonly resumed: boolean;
  /** Body bytes of the chunk PUTs this call made, failed attempts included. */
  readonly transferredBytes: number;
}

interface SdkResult<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** Delay before retry n (1-based): exponential from 250 ms, capped at 10 s, with jitter (half fixed, half random). */
const BACKOFF_START_MS = 250;
const BACKOFF_CAP_MS = 10_000;

function backoffDelay(attempt: number, retryAfter: string | null): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** (attempt - 1));
  const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
  const asked = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : 0;
  return Math.min(BACKOFF_CAP_MS, Math.max(jittered, asked));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** 5xx are retried except 501 and 507 (QUOTA_EXCEEDED, STORAGE_FULL): waiting seconds does not change them. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof DataTransferError)) return false;
  if (error.code === 'NETWORK_ERROR') return true;
  return error.status === 408 || error.status === 429 || (error.status >= 500 && error.status !== 501 && error.status !== 507);
}

/** Awaits an SDK call; returns its data and response, or throws a DataTransferError (or the abort reason). */
async function settle<T>(pending: Promise<SdkResult<T>>, signal: AbortSignal | undefined): Promise<{ data: T; response: Response }> {
  let result: SdkResult<T>;
  try {
    result = await pending;
  } catch (error) {
    result = { error };
  }
  if (signal?.aborted) throw signal.reason;
  const response = result.response;
  if (response === undefined) {
    // The fetch client reports a request that got no answer as an error result without a response.
    const cause = result.error;
    throw new DataTransferError({ code: 'NETWORK_ERROR', message: cause instanceof Error ? cause.message : String(cause) }, 0, { cause });
  }
  if (result.error !== undefined || result.data === undefined) {
    const envelope = result.error as { code?: unknown; message?: unknown } | string | undefined;
    const retryAfter = response.headers.get('retry-after');
    if (typeof envelope === 'object' && envelope !== null && typeof envelope.code === 'string') {
      throw new DataTransferError({ ...envelope, code: envelope.code, message: String(envelope.message ?? envelope.code) }, response.status, { retryAfter });
    }
    throw new DataTransferError({ code: `HTTP_${response.status}`, message: `HTTP ${response.status} ${response.statusText}`.trim() }, response.status, { retryAfter });
  }
  return { data: result.data, response };
}

/** Counts consecutive failures across the requests of one transfer and waits between retries. */
class Retrier {
  private failures = 0;

  constructor(
    private readonly retries: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  succeeded(): void {
    this.failures = 0;
  }

  /** Rethrows `error` unless it is transient and retries remain; otherwise waits the backoff. */
  async failed(error: unknown): Promise<void> {
    if (!isTransient(error) || this.failures >= this.retries) throw error;
    this.failures++;
    await sleep(backoffDelay(this.failures, (error as DataTransferError).retryAfter), this.signal);
  }

  /**
   * Runs `call` until it succeeds, retrying transient failures. Success does
   * not reset the count: only progress does (`succeeded()`), so reading the
   * status between failed chunks cannot make the retries endless.
   */
  async run<T>(call: () => Promise<SdkResult<T>>): Promise<T> {
    for (;;) {
      try {
        const { data } = await settle(call(), this.signal);
        return data;
      } catch (error) {
        await this.failed(error);
      }
    }
  }
}

/** The first missing chunk of `status`: [start, end] inclusive. */
function nextChunk(status: UploadStatus): [number, number] {
  const [start, end] = status.missing_ranges[0] as [number, number];
  return [start, Math.min(end, start + status.chunk_size - 1)];
}

/**
 * Writes `options.content` to `options.path`: opens (or resumes) an upload,
 * sends each missing chunk with its Content-Range, retrying transient
 * failures with capped exponential backoff, then completes the write.
 * A refusal throws DataTransferError with the server's code.
 */
export async function uploadFile(client: DataTransferClient, options: UploadFileOptions): Promise<UploadFileResult> {
  const { content, signal } = options;
  const size = content.size;
  const retrier = new Retrier(options.retries ?? 5, signal);
  let status: UploadStatus | undefined;
  let resumed = false;

  if (options.resumeUploadId !== undefined) {
    const uploadId = options.resumeUploadId;
    try {
      status = await retrier.run(() => client.getDataUpload({ path: { upload_id: uploadId }, signal }));
      resumed = true;
    } catch (error) {
      if (!(error instanceof DataTransferError && error.code === 'UPLOAD_NOT_FOUND')) throw error;
    }
    // The server compares paths after NFC normalisation, so the same path may be spelled differently here.
    if (status && (status.size_bytes !== size || status.path !== options.path.normalize('NFC') || (options.namespace !== undefined && status.namespace !== options.namespace))) {
      throw new DataTransferError(
        { code: 'UPLOAD_MISMATCH', message: `upload ${uploadId} is of ${status.size_bytes} bytes to ${status.path} in ${status.namespace}, not of ${size} bytes to ${options.path}`, upload: status },
        0,
      );
    }
  }
  if (!status) {
    const contentType = options.contentType ?? (content.type || undefined);
    const body = {
      path: options.path,
      size_bytes: size,
      ...(contentType !== undefined ? { content_type: contentType } : {}),
      ...(options.precondition !== undefined ? { precondition: { expected_hash: options.precondition.expected_hash } } : {}),
      ...(options.contentHash !== undefined ? { content_hash: options.contentHash } : {}),
      ...(options.provenance !== undefined ? { provenance: { ...options.provenance } } : {}),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    };
    status = await retrier.run(() => client.initDataWrite({ body, signal }));
  }
  retrier.succeeded();
  const uploadId = status.upload_id;
  await options.onUpload?.(status);
  const progress = (current: UploadStatus) => options.onProgress?.({ sentBytes: current.received_bytes, totalBytes: size, uploadId });
  progress(status);

  let transferredBytes = 0;
  for (let round = 0; ; round++) {
    while (!status.complete) {
      signal?.throwIfAborted();
      const [start, end] = nextChunk(status);
      transferredBytes += end - start + 1;
      try {
        const sent = client.uploadDataChunk({ path: { upload_id: uploadId }, body: content.slice(start, end + 1), headers: { 'content-range': `bytes ${start}-${end}/${size}` }, signal });
        status = (await settle(sent, signal)).data;
        retrier.succeeded();
      } catch (error) {
        await retrier.failed(error);
        // The chunk may have landed though its answer was lost: ask before sending anything again.
        status = await retrier.run(() => client.getDataUpload({ path: { upload_id: uploadId }, signal }));
      }
      progress(status);
    }
    try {
      const body = { upload_id: uploadId, ...(options.contentHash !== undefined ? { content_hash: options.contentHash } : {}) };
      const answer = await retrier.run(() => client.completeDataWrite({ body, signal }));
      return { answer, uploadId, resumed, transferredBytes };
    } catch (error) {
      // Chunks the server no longer holds (it lost them, e.g. restored from an older disk) are sent again, within the retry budget.
      if (!(error instanceof DataTransferError && error.code === 'UPLOAD_INCOMPLETE') || round >= (options.retries ?? 5)) throw error;
      status = await retrier.run(() => client.getDataUpload({ path: { upload_id: uploadId }, signal }));
    }
  }
}

export interface BlobRangeOptions {
  /** First byte (0-based). @default 0 */
  readonly start?: number;
  /** Last byte, inclusive. @default the last byte of the content */
  readonly end?: number;
  /** Sent as If-Range: the range is served only while the ETag still matches, else the whole content (status 200). */
  readonly ifRange?: string;
  readonly signal?: AbortSignal;
}

export interface BlobRange {
  /** 200: the whole content from byte 0; 206: the range asked for. */
  readonly status: 200 | 206;
  /** Offset of the first byte of `body` in the content. */
  readonly start: number;
  /** Size of the whole content; null when a 200 answer does not say (it was compressed in transit). */
  readonly totalBytes: number | null;
  /** The ETag, unquoted (the content hash). */
  readonly etag: string | null;
  readonly contentType: string | null;
  readonly body: ReadableStream<Uint8Array>;
}

/**
 * Opens content `hash` (GET /v1/blobs/{hash}) as a stream, from `start` when
 * given: nothing is buffered, so the caller decides where the bytes go. An
 * empty range past the end answers 416 RANGE_NOT_SATISFIABLE.
 */
export async function readBlobRange(client: DataTransferClient, hash: string, options: BlobRangeOptions = {}): Promise<BlobRange> {
  const { start = 0, end, signal } = options;
  const ranged = start > 0 || end !== undefined;
  const headers: Record<string, string> = {};
  if (ranged) headers['range'] = `bytes=${start}-${end ?? ''}`;
  if (options.ifRange !== undefined) headers['if-range'] = `"${options.ifRange.replace(/^"|"$/g, '')}"`;
  const { data, response } = await settle(client.getBlob({ path: { hash }, headers, parseAs: 'stream', signal }) as Promise<SdkResult<unknown>>, signal);
  const etag = response.headers.get('etag')?.replace(/^(W\/)?"|"$/g, '') ?? null;
  const contentType = response.headers.get('content-type');
  const body = (data ?? new Blob([]).stream()) as ReadableStream<Uint8Array>;
  if (response.status === 206) {
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
    if (!match) {
      await body.cancel();
      throw new DataTransferError({ code: 'INVALID_CONTENT_RANGE', message: `206 answer without a usable Content-Range (${response.headers.get('content-range')})` }, 206);
    }
    return { status: 206, start: Number(match[1]), totalBytes: Number(match[3]), etag, contentType, body };
  }
  const length = response.headers.get('content-length');
  const whole = length !== null && response.headers.get('content-encoding') === null ? Number(length) : null;
  return { status: 200, start: 0, totalBytes: whole, etag, contentType, body };
}

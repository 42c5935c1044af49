/**
 * Client-side helpers for the loopback HTTP tests in test/http: a JSON
 * request that returns status, headers and parsed body; the error-envelope
 * assertion; valid records on fresh task threads; bounded concurrency; and a
 * small server-sent-events reader over fetch. The reader keeps comment lines,
 * which EventSource hides, so heartbeats can be asserted.
 */
import { expect } from 'chai';
import { newThreadNonce, taskThreadId } from '../../core/records/thread-id.js';

export { startServer, type StartedServer } from './start-server.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: any;
}

export interface RequestOptions {
  /** Sent as JSON with `content-type: application/json`. */
  readonly json?: unknown;
  /** Sent as is (raw text or bytes); give the content type in headers. */
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

export async function request(base: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const get = (base: string, path: string, headers?: Record<string, string>) => request(base, 'GET', path, { headers });
export const postJson = (base: string, path: string, json: unknown) => request(base, 'POST', path, { json });
/** POSTs raw JSON text, for numbers and nesting JSON.stringify cannot write. */
export const postRaw = (base: string, path: string, body: string | Uint8Array, contentType = 'application/json') =>
  request(base, 'POST', path, { body, headers: { 'content-type': contentType } });

/**
 * Follows `next_cursor` (sent back as `after`) from `path` with page size
 * `limit` until `has_more` is false, checking each page's list shape.
 */
export async function collectPages(base: string, path: string, limit: number): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  const separator = path.includes('?') ? '&' : '?';
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const page = await get(base, `${path}${separator}limit=${limit}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
    expect(page.status, page.text).to.equal(200);
    expect(page.json.object).to.equal('list');
    expect(page.json.data.length).to.be.at.most(limit);
    items.push(...page.json.data);
    pages++;
    if (!page.json.has_more) {
      expect(page.json.next_cursor).to.equal(null);
      return { items, pages };
    }
    expect(page.json.next_cursor).to.be.a('string');
    after = page.json.next_cursor;
    if (pages > 10_000) throw new Error(`pagination of ${path} does not end`);
  }
}

/**
 * The answer is the spec §7 envelope with this status and code (never the
 * message text), whose only extra members are `details`, each deep-equal to
 * the value given (e.g. `{expected_hash, current_hash}`).
 */
export function expectEnvelope(answer: HttpAnswer, status: number, code: string, where = '', details: Record<string, unknown> = {}): void {
  const label = `${where} ${answer.text.slice(0, 300)}`.trim();
  expect(answer.status, label).to.equal(status);
  expect(answer.headers.get('content-type') ?? '', label).to.match(/^application\/json/);
  expect(answer.json, label).to.be.an('object');
  expect(answer.json.object, label).to.equal('error');
  expect(answer.json.code, label).to.equal(code);
  expect(answer.json.message, label).to.be.a('string').that.is.not.empty;
  const extra = Object.keys(answer.json).filter((key) => !['object', 'type', 'code', 'message'].includes(key));
  expect(extra.sort(), label).to.deep.equal(Object.keys(details).sort());
  for (const [key, value] of Object.entries(details)) expect(answer.json[key], `${label} (${key})`).to.deep.equal(value);
}

/** A fresh task thread id, so tests sharing a server never share a thread. */
export function newThread(alias = 'http-test'): string {
  return taskThreadId(alias, newThreadNonce());
}

export interface RecordInput {
  parents?: unknown;
  thread?: unknown;
  actor?: unknown;
  act?: unknown;
  body?: unknown;
  clock?: unknown;
  data_type?: unknown;
  judged_by?: unknown;
  [extra: string]: unknown;
}

/** A valid record input (a DO by alice at clock 0), with overrides. */
export function recordInput(overrides: RecordInput = {}): RecordInput {
  return { thread: newThread(), actor: 'did:sync:user:alice', act: 'DO', body: {}, clock: 0, data_type: 'SCALAR', ...overrides };
}

/** Runs `task` over `items` with at most `limit` in flight; results keep the input order. */
/** POST /v1/records with a record (as JSON) or raw body text. */
export const postRecord = (base: string, input: RecordInput | string): Promise<HttpAnswer> =>
  typeof input === 'string' ? postRaw(base, '/v1/records', input) : postJson(base, '/v1/records', input);

export async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * Reads a text/event-stream response as it arrives (WHATWG SSE parsing rules,
 * minus reconnection): dispatched events and comment lines, in order.
 */
export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Resolves when the server ends the stream (or the reader is closed). */
  readonly ended: Promise<void>;
  private waiters: Array<() => void> = [];
  private done = false;

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.ended = this.pump();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
    return new SseReader(response, controller);
  }

  get isEnded(): boolean {
    return this.done;
  }

  /** Waits until `predicate` holds (checked on every event, comment and end), or fails after `timeoutMs`. */
  async until(predicate: (reader: SseReader) => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.done) throw new Error(`event stream ended before ${what} (events: ${this.events.length})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (events: ${this.events.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for at least `count` events in total. */
  untilEvents(count: number, timeoutMs = 5000): Promise<void> {
    return this.until((r) => r.events.length >= count, timeoutMs, `${count} events`);
  }

  close(): void {
    this.controller.abort();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let id: string | undefined;
    let event = '';
    let data: string[] = [];
    const line = (text: string) => {
      if (text === '') {
        if (data.length > 0) this.events.push({ id, event: event || 'message', data: data.join('\n') });
        event = '';
        data = [];
        return;
      }
      if (text.startsWith(':')) {
        this.comments.push(text.slice(1).trimStart());
        return;
      }
      const colon = text.indexOf(':');
      const field = colon < 0 ? text : text.slice(0, colon);
      const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    };
    try {
      if (!this.response.body) return;
      for await (const chunk of this.response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let match: RegExpExecArray | null;
        while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
          line(buffer.slice(0, match.index));
          buffer = buffer.slice(match.index + match[0].length);
        }
        this.wake();
      }
    } catch {
      // Aborted by close(), or the server went away: either way the stream has ended.
    } finally {
      this.done = true;
      this.wake();
    }
  }
}

/**
 * What the three provider fakes share: a plain node:http server on
 * 127.0.0.1 port 0, a queue of scripted responses consumed one per request,
 * a record of every request (headers and parsed body) and of when the
 * client closed its socket, and a close that ends every connection and
 * timer so no test leaves a handle open. Each vendor file supplies only its
 * routes and its wire format.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { wait, writeFrames, type WriteControl } from './frame-writer.js';
import type { ScriptedResponse, StreamFaults } from './script.js';

export interface RecordedRequest {
  readonly method: string;
  /** Path with query, as sent. */
  readonly path: string;
  /** Lower-cased names, as node:http gives them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body; undefined when there is none or it is not JSON. */
  readonly body: any;
  readonly rawBody: string;
  /** performance.now() when the request was read. */
  readonly receivedAt: number;
  /** performance.now() just after the first body bytes of a streamed answer were written; undefined for an instant answer. */
  firstWriteAt?: number;
  /** performance.now() when the socket closed (either side); undefined while open. */
  closedAt?: number;
  /** True when the connection closed before the fake finished writing its answer. */
  closedEarly?: boolean;
  /** True when nothing was scripted for this request (the fake answered 500). */
  unscripted?: boolean;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queue responses; each request takes the next one. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Responses still queued. */
  pending(): number;
  /** Resolves with request `index` once its connection has closed. */
  closedRequest(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export interface VendorHandler {
  /** Answers one request; `next()` takes the next scripted response (undefined when none is queued). */
  (exchange: Exchange): Promise<void>;
}

export interface Exchange {
  readonly request: RecordedRequest;
  readonly res: ServerResponse;
  readonly control: WriteControl;
  next(): ScriptedResponse | undefined;
  /** Writes status, headers and frames, honouring the pre-header faults and the stream faults. */
  send(status: number, headers: Record<string, string>, frames: readonly Buffer[], faults: StreamFaults | undefined): Promise<void>;
}

/** Options of a fake (all off by default; the tests use none). */
export interface FakeOptions {
  /**
   * Answers each request from the request itself instead of the queue (the
   * queue is used when this answers undefined): for concurrent clients whose
   * next answer depends on their own conversation, not on arrival order (the
   * work-loop benchmark).
   */
  readonly respond?: (request: RecordedRequest) => ScriptedResponse | undefined;
  /** Writes an answer that has no stream faults in one write, without the pause between frames: an instant provider. */
  readonly instant?: boolean;
  /** Keeps no record of requests (`requests` stays empty), so a long benchmark does not grow the fake's memory. */
  readonly forget?: boolean;
}

export async function startFakeProvider(handler: VendorHandler, options: FakeOptions = {}): Promise<FakeProvider> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const closeWaiters = new Map<number, Array<(r: RecordedRequest) => void>>();
  const timers = new Set<NodeJS.Timeout>();
  let shutdown!: () => void;
  const shuttingDown = new Promise<void>((resolve) => (shutdown = resolve));

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body, rawBody, receivedAt: performance.now() };
      const index = options.forget ? -1 : requests.push(recorded) - 1;
      const closed = new Promise<void>((resolve) => {
        res.on('close', () => {
          recorded.closedAt = performance.now();
          recorded.closedEarly = !res.writableEnded;
          for (const waiter of closeWaiters.get(index) ?? []) waiter(recorded);
          closeWaiters.delete(index);
          resolve();
        });
      });
      const control: WriteControl = { closed: Promise.race([closed, shuttingDown]), timers, onFirstWrite: () => (recorded.firstWriteAt = performance.now()) };
      const exchange: Exchange = {
        request: recorded,
        res,
        control,
        next: () => {
          const response = options.respond?.(recorded) ?? queue.shift();
          if (!response) recorded.unscripted = true;
          return response;
        },
        async send(status, headers, frames, faults) {
          if (faults?.stallBeforeHeadersMs) await wait(faults.stallBeforeHeadersMs, control);
          if (faults?.resetBeforeHeaders) return void req.socket.resetAndDestroy();
          if (res.destroyed) return;
          if (options.instant && !hasStreamFaults(faults)) {
            res.writeHead(status, headers);
            return void res.end(Buffer.concat(frames));
          }
          res.writeHead(status, headers);
          res.flushHeaders();
          await writeFrames(res, frames, faults, control);
        },
      };
      handler(exchange).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake failed: ${String(error)}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    pending: () => queue.length,
    closedRequest: (index) =>
      new Promise((resolve) => {
        const recorded = requests[index];
        if (recorded?.closedAt !== undefined) return resolve(recorded);
        closeWaiters.set(index, [...(closeWaiters.get(index) ?? []), resolve]);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        shutdown();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Faults that act on how the answer is written (the content-changing ones are already in the frames). */
function hasStreamFaults(faults: StreamFaults | undefined): boolean {
  return !!faults && (faults.stallAfterFrames !== undefined || faults.resetAfterFrames !== undefined || faults.dripMs !== undefined || faults.split !== undefined);
}

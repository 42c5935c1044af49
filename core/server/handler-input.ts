/**
 * What a route handler receives (core/plugin/route.ts `RouteInput`), built by
 * core/server/mount-routes.ts once the caller is authorized and the body read.
 *
 * Its `signal` is aborted when the client goes away, that is when the
 * response closes before it was finished. Not the request's 'close', which
 * follows every body read to its end (it aborted every POST mid-handler).
 * The signal is made on first use, because few routes read it (streams, long
 * polls, the chat proxy) and an AbortController with its close listener for
 * every request was 2.4% of the server's CPU in single-record ingest. It is a
 * getter on this class, so every input has one shape (a getter on an object
 * literal, tried before, made the input slow and doubled the old-space
 * collections under ingest). A signal asked for after the response already
 * closed unfinished is aborted at once.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Caller } from '../access/caller.js';
import type { LoomError } from '../errors/loom-error.js';

export class HandlerInput {
  #signal: AbortSignal | null = null;
  readonly #res: ServerResponse;

  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string | undefined>>,
    readonly raw: Readable | undefined,
    readonly authRefusal: LoomError | null,
    readonly caller: Caller,
    readonly remoteAddress: string,
    res: ServerResponse,
  ) {
    this.#res = res;
  }

  get signal(): AbortSignal {
    if (this.#signal) return this.#signal;
    const controller = new AbortController();
    this.#signal = controller.signal;
    const res = this.#res;
    if (res.closed) {
      if (!res.writableFinished) controller.abort();
    } else {
      res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
    }
    return this.#signal;
  }
}

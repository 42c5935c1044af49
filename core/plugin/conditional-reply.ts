/**
 * Conditional GET for answers named by a key (a fold's cache_key, a record's
 * id): the answer carries `ETag: "<key>"`, and a client that sends that ETag
 * back in `If-None-Match` gets 304 with no body. Routes that use it declare
 * NOT_MODIFIED among their responses.
 */
import { Reply } from './reply.js';
import type { ResponseSpec } from './route.js';

export const NOT_MODIFIED: ResponseSpec = { description: 'Not modified: the If-None-Match ETag still names the current answer.' };

/** Whether an If-None-Match header names `etag` (a quoted strong ETag). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((candidate) => {
    const value = candidate.trim();
    // Weak comparison (RFC 9110 §13.1.2): W/"x" matches "x".
    return value === '*' || value === etag || value === `W/${etag}`;
  });
}

/** 200 with the body and its ETag, or 304 when the client already holds it. */
export function conditionalReply(headers: Readonly<Record<string, string | undefined>>, key: string, body: unknown, cacheControl = 'no-cache'): Reply {
  const etag = `"${key.replace(/"/g, '')}"`;
  const replyHeaders = { etag, 'cache-control': cacheControl };
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return Reply.empty(304, replyHeaders);
  return Reply.json(200, body, replyHeaders);
}

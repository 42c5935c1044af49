/**
 * Streams the log (or the part an ExportScope selects) as the portable file
 * (export-format.ts), line by line, reading the store in pages: memory stays
 * flat whatever the log's size. A thread or an actor is read through its own
 * index; anything else walks the changes feed.
 */
import { createHash } from 'node:crypto';
import { logPages, recordPages } from '../../core/engine/record-pages.js';
import type { PageRequest } from '../../storage/contract/record-store.js';
import type { PortableLog } from './portability-service.js';
import { namespaceOf, type StoredRecord } from '../../storage/contract/stored-record.js';
import { EXPORT_FORMAT, inNamespace, type ExportHeader, type ExportScope, type ExportTrailer } from './export-format.js';

const PAGE = 1000;

export interface ExportSource {
  readonly store: PortableLog;
  readonly loomVersion: string;
  readonly instance: string;
}

/** The scope's records up to `upTo`, a page at a time: through the thread's or the actor's index when it names one. */
async function* pagesOf(store: PortableLog, scope: ExportScope, after: number, upTo: number): AsyncGenerator<StoredRecord[]> {
  const paging = { after, limit: PAGE, upTo };
  const { thread, actor } = scope;
  if (thread !== undefined || actor !== undefined) {
    const read = (page: PageRequest) => (thread !== undefined ? store.listByThread(thread, page) : store.listByActor(actor!, page));
    for await (const page of recordPages(read, paging)) yield page.items;
  } else {
    yield* logPages((from, limit) => store.changesSince(from, limit), paging);
  }
}

/** The file's lines, each ending in `\n`; `signal` stops it between pages. */
export async function* exportLines(source: ExportSource, scope: ExportScope, signal?: AbortSignal): AsyncGenerator<string> {
  const head = await source.store.watermark();
  const until = Math.min(scope.until ?? head, head);
  const hash = createHash('sha256');
  const emit = (line: string) => {
    hash.update(line);
    return line;
  };
  const header: ExportHeader = {
    object: 'loom_export',
    format: EXPORT_FORMAT,
    loom_version: source.loomVersion,
    instance: source.instance,
    backend: source.store.capabilities.backend,
    created_at: new Date().toISOString(),
    scope,
    head,
  };
  yield emit(`${JSON.stringify(header)}\n`);
  let records = 0;
  let last: number | null = null;
  for await (const page of pagesOf(source.store, scope, scope.after ?? 0, until)) {
    signal?.throwIfAborted();
    let chunk = '';
    for (const stored of page) {
      if (scope.thread !== undefined && stored.record.thread !== scope.thread) continue;
      if (scope.actor !== undefined && stored.record.actor !== scope.actor) continue;
      if (scope.namespace !== undefined && !inNamespace(namespaceOf(stored.record), scope.namespace)) continue;
      chunk += `${JSON.stringify({ sequence: stored.sequence, record: stored.record })}\n`;
      records += 1;
      last = stored.sequence;
    }
    if (chunk) yield emit(chunk);
  }
  const trailer: ExportTrailer = { object: 'loom_export_end', records, last_sequence: last, sha256: hash.digest('hex') };
  yield `${JSON.stringify(trailer)}\n`;
}

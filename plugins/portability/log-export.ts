/**
 * Streams the log (or the part an ExportScope selects) as the portable file
 * (export-format.ts), line by line, reading the store in pages: memory stays
 * flat whatever the log's size. A thread or an actor is read through its own
 * index; anything else walks the changes feed.
 */
import { createHash } from 'node:crypto';
import type { RecordPage } from '../../storage/contract/record-store.js';
import type { PortableLog } from './portability-service.js';
import { namespaceOf, type StoredRecord } from '../../storage/contract/stored-record.js';
import { EXPORT_FORMAT, inNamespace, type ExportHeader, type ExportScope, type ExportTrailer } from './export-format.js';

const PAGE = 1000;

export interface ExportSource {
  readonly store: PortableLog;
  readonly loomVersion: string;
  readonly instance: string;
}

async function* pagesOf(store: PortableLog, scope: ExportScope, after: number): AsyncGenerator<StoredRecord[]> {
  let cursor: number | null = after;
  while (cursor !== null) {
    if (scope.thread !== undefined || scope.actor !== undefined) {
      const page: RecordPage = scope.thread !== undefined ? await store.listByThread(scope.thread, { after: cursor, limit: PAGE }) : await store.listByActor(scope.actor!, { after: cursor, limit: PAGE });
      yield page.items;
      cursor = page.nextAfter;
    } else {
      const items = await store.changesSince(cursor, PAGE);
      yield items;
      cursor = items.length === PAGE ? items[items.length - 1]!.sequence : null;
    }
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
  for await (const page of pagesOf(source.store, scope, scope.after ?? 0)) {
    signal?.throwIfAborted();
    let chunk = '';
    let done = false;
    for (const stored of page) {
      if (stored.sequence > until) {
        done = true;
        break;
      }
      if (scope.thread !== undefined && stored.record.thread !== scope.thread) continue;
      if (scope.actor !== undefined && stored.record.actor !== scope.actor) continue;
      if (scope.namespace !== undefined && !inNamespace(namespaceOf(stored.record), scope.namespace)) continue;
      chunk += `${JSON.stringify({ sequence: stored.sequence, record: stored.record })}\n`;
      records += 1;
      last = stored.sequence;
    }
    if (chunk) yield emit(chunk);
    if (done) break;
  }
  const trailer: ExportTrailer = { object: 'loom_export_end', records, last_sequence: last, sha256: hash.digest('hex') };
  yield `${JSON.stringify(trailer)}\n`;
}

/**
 * The find index's snapshot: `<search plugin dataDir>/find-snapshot.bin`, a
 * framed binary file (snapshot-io.ts): a header (format, the log sequence the
 * index covers and that record's id, whether files were indexed, the
 * namespaces still to reconcile), then the index itself (find-index.ts
 * `write`). A start reads its header, indexes only the log after it (the
 * tail), and loads the index itself in the background meanwhile;
 * one that is missing, of another format, ahead of the log or for another log
 * (the record at its sequence has another id) is ignored: the index is
 * rebuilt from the start of the log, as before. Written to a temporary file
 * and renamed, so a crash leaves the previous snapshot.
 *
 * FORMAT changes whenever what the index holds for a record changes
 * (tokenizer, field weights, record-text.ts): an old snapshot is then
 * rebuilt rather than mixed with new documents.
 */
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FindIndex } from './find-index.js';
import { SnapshotReader, SnapshotWriter } from './snapshot-io.js';

export const FIND_SNAPSHOT_FORMAT = 1;
const FILE = 'find-snapshot.bin';

export interface FindSnapshotHeader {
  readonly format: number;
  /** Every record up to this sequence is in the index (or among `dirty`'s namespaces). */
  readonly through: number;
  /** The id of the record at `through`: a snapshot of another log is not used. */
  readonly through_id: string | null;
  /** Whether the data plane's files were indexed. */
  readonly materials: boolean;
  /** Namespaces whose files were still to reconcile, with the sequence their tree must reach. */
  readonly dirty: Array<[string, number]>;
  readonly saved_at: string;
}

export async function saveFindSnapshot(dir: string, header: FindSnapshotHeader, index: FindIndex): Promise<number> {
  const file = join(dir, FILE);
  const temporary = `${file}.tmp`;
  await mkdir(dir, { recursive: true });
  const handle = await open(temporary, 'w');
  try {
    const out = new SnapshotWriter(handle);
    await out.json(header);
    await index.write(out);
    await out.flush();
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  const { size } = await handle.stat();
  await handle.close();
  await rename(temporary, file);
  return size;
}

/**
 * The snapshot's header, with `readIndex` to read the rest (once; it closes
 * the file, as does `close` when the header is refused), or null when there
 * is none. Throws when the header cannot be read.
 */
export async function openFindSnapshot(dir: string): Promise<{ header: FindSnapshotHeader; readIndex(): Promise<FindIndex>; close(): Promise<void> } | null> {
  const handle = await open(join(dir, FILE), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (handle === null) return null;
  const input = new SnapshotReader(handle);
  let header: FindSnapshotHeader;
  try {
    header = await input.json<FindSnapshotHeader>();
  } catch (error) {
    await handle.close();
    throw error;
  }
  const close = () => handle.close().catch(() => undefined);
  return {
    header,
    readIndex: () => FindIndex.read(input).finally(close),
    close,
  };
}

/** The snapshot's header and index when `accept` takes the header; null when there is none or it is refused. Throws when it cannot be read whole. */
export async function loadFindSnapshot(dir: string, accept: (header: FindSnapshotHeader) => Promise<boolean>): Promise<{ header: FindSnapshotHeader; index: FindIndex } | null> {
  const opened = await openFindSnapshot(dir);
  if (opened === null) return null;
  if (opened.header.format !== FIND_SNAPSHOT_FORMAT || !(await accept(opened.header).catch(async (error: unknown) => (await opened.close(), Promise.reject(error))))) {
    await opened.close();
    return null;
  }
  return { header: opened.header, index: await opened.readIndex() };
}

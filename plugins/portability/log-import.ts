/**
 * Reads a portable log file (export-format.ts) line by line and ingests its
 * records through the normal ingest path (validation, hashing, the ingest
 * gates) as `via: 'replay'`, in batches, in the file's order.
 *
 * The file is trusted for nothing: each record's id is recomputed from its
 * content, sequences must ascend, and the trailer's count and SHA-256 must
 * match what was read. A damaged line (not JSON, no record, an id that its
 * content does not give) stops the import with IMPORT_FAILED naming the
 * line; what was ingested before it stays (every record stands alone, and a
 * second run skips it). A record the gates refuse is counted and listed, and
 * the import goes on. Importing the same file twice stores nothing new.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../../core/access/caller.js';
import type { Ingestor } from '../../core/engine/ingest.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isJsonObject } from '../../core/records/json.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { validateRecordInput } from '../../core/records/validate-record.js';
import { firstDuplicateKey } from '../../core/server/duplicate-keys.js';
import { EXPORT_FORMAT, type ExportHeader } from './export-format.js';

const BATCH = 500;
/** Refusals listed in the result (all are counted). */
const LISTED_REFUSALS = 100;

export interface ImportRefusal {
  readonly line: number;
  readonly id: string;
  readonly code: string;
  readonly message: string;
}

export interface ImportResult {
  readonly object: 'import_result';
  readonly source_instance: string | null;
  readonly records_read: number;
  readonly records_inserted: number;
  readonly records_deduplicated: number;
  readonly records_refused: number;
  readonly refusals: ImportRefusal[];
  /** `verified`: the trailer's count and SHA-256 match; `missing`: the file ends without one (cut short). */
  readonly checksum: 'verified' | 'missing';
  readonly last_sequence: number | null;
}

export interface ImportProgress {
  readonly records_read: number;
  readonly records_inserted: number;
}

function damaged(line: number, message: string, counts: Partial<ImportResult>): LoomError {
  return new LoomError('IMPORT_FAILED', `line ${line}: ${message}`, { line, ...counts });
}

export class LogImporter {
  private readonly hash = createHash('sha256');
  private lineNumber = 0;
  private header: ExportHeader | null = null;
  private trailerSeen = false;
  private lastSequence: number | null = null;
  private pending: Array<{ line: number; id: string; record: Record<string, unknown> }> = [];
  private read = 0;
  private inserted = 0;
  private deduplicated = 0;
  private refused = 0;
  private readonly refusals: ImportRefusal[] = [];

  constructor(
    private readonly ingestor: Ingestor,
    private readonly caller: Caller,
    /**
     * Whether a record's thread feeds the state ingest gates decide by (a
     * system thread: namespaces, credentials, configuration). Such a record
     * is ingested on its own, after what precedes it and before what
     * follows, so a namespace is declared before its first record is checked.
     */
    private readonly alone: (thread: string) => boolean,
    private readonly onProgress?: (progress: ImportProgress) => void,
  ) {}

  private counts(): Partial<ImportResult> {
    return { records_read: this.read, records_inserted: this.inserted, records_deduplicated: this.deduplicated, records_refused: this.refused };
  }

  /** One line of the file, without its newline. */
  async line(text: string): Promise<void> {
    this.lineNumber += 1;
    const number = this.lineNumber;
    if (text.trim() === '') {
      this.hash.update(`${text}\n`);
      return;
    }
    if (this.trailerSeen) throw damaged(number, 'content after the end line', this.counts());
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw damaged(number, 'not a JSON object (the file is damaged or not a Loom export)', this.counts());
    }
    if (!isJsonObject(value)) throw damaged(number, 'not a JSON object', this.counts());
    const duplicate = firstDuplicateKey(text);
    if (duplicate !== null) throw damaged(number, `the key "${duplicate}" appears twice in one object`, this.counts());

    if (this.header === null) {
      if (value['object'] !== 'loom_export') throw damaged(number, 'the first line is not a Loom export header ({"object":"loom_export",...})', this.counts());
      if (value['format'] !== EXPORT_FORMAT) throw damaged(number, `export format ${JSON.stringify(value['format'])} is not one this server reads (format ${EXPORT_FORMAT})`, this.counts());
      this.header = value as unknown as ExportHeader;
      this.hash.update(`${text}\n`);
      return;
    }
    if (value['object'] === 'loom_export_end') {
      await this.flush();
      const digest = this.hash.digest('hex');
      if (value['records'] !== this.read) throw damaged(number, `the end line counts ${JSON.stringify(value['records'])} records but the file holds ${this.read}`, this.counts());
      if (value['sha256'] !== digest) throw damaged(number, `the file's SHA-256 is ${digest}, not the ${JSON.stringify(value['sha256'])} its end line records: it was changed after export`, this.counts());
      this.trailerSeen = true;
      return;
    }
    this.hash.update(`${text}\n`);
    const sequence = value['sequence'];
    const record = value['record'];
    if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) throw damaged(number, 'a record line needs a positive integer "sequence"', this.counts());
    if (this.lastSequence !== null && sequence <= this.lastSequence) throw damaged(number, `sequence ${sequence} does not follow ${this.lastSequence}: records must ascend`, this.counts());
    if (!isJsonObject(record)) throw damaged(number, 'a record line needs a "record" object', this.counts());
    const validation = validateRecordInput(record);
    if (!validation.ok) throw damaged(number, `the record is not valid: ${validation.message}`, this.counts());
    const id = computeRecordId(validation.fields);
    if (record['id'] !== id) throw damaged(number, `the record's content gives the id ${id}, not ${JSON.stringify(record['id'])}: it was changed after export`, this.counts());
    this.lastSequence = sequence;
    this.read += 1;
    if (this.alone(validation.fields.thread)) {
      await this.flush();
      this.pending.push({ line: number, id, record });
      await this.flush();
      return;
    }
    this.pending.push({ line: number, id, record });
    if (this.pending.length >= BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const outcomes = await this.ingestor.ingestMany({ caller: this.caller, via: 'replay' }, batch.map((entry) => entry.record));
    outcomes.forEach((outcome, index) => {
      if (outcome instanceof LoomError) {
        this.refused += 1;
        if (this.refusals.length < LISTED_REFUSALS) this.refusals.push({ line: batch[index]!.line, id: batch[index]!.id, code: outcome.code, message: outcome.message });
      } else if (outcome.created) this.inserted += 1;
      else this.deduplicated += 1;
    });
    this.onProgress?.({ records_read: this.read, records_inserted: this.inserted });
  }

  /** After the last line: ingests what is pending and reports. */
  async finish(): Promise<ImportResult> {
    if (this.header === null) throw damaged(this.lineNumber + 1, 'the file is empty: a Loom export starts with its header line', this.counts());
    await this.flush();
    return {
      object: 'import_result',
      source_instance: typeof this.header.instance === 'string' ? this.header.instance : null,
      records_read: this.read,
      records_inserted: this.inserted,
      records_deduplicated: this.deduplicated,
      records_refused: this.refused,
      refusals: this.refusals,
      checksum: this.trailerSeen ? 'verified' : 'missing',
      last_sequence: this.lastSequence,
    };
  }
}

/** Imports every line of `lines` (as readline gives them). */
export async function importLines(lines: AsyncIterable<string>, importer: LogImporter): Promise<ImportResult> {
  for await (const text of lines) await importer.line(text);
  return importer.finish();
}

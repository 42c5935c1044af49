/**
 * Checks an export file's framing without importing it: a header first, an
 * end line last whose count and SHA-256 match the lines before it. `loom
 * import` runs it before sending a file, so a damaged or cut-short file is
 * refused before any record of it is stored. (Record ids are recomputed by
 * the importer itself.)
 */
import { createHash } from 'node:crypto';
import type { ExportHeader } from './export-format.js';

export interface ExportFileCheck {
  readonly header: ExportHeader | null;
  readonly records: number;
  /** `verified`; `missing`: no end line (cut short); `mismatch`: the end line does not match the content. */
  readonly checksum: 'verified' | 'missing' | 'mismatch';
  readonly problem: string | null;
}

export async function checkExportFile(lines: AsyncIterable<string>): Promise<ExportFileCheck> {
  const hash = createHash('sha256');
  let header: ExportHeader | null = null;
  let records = 0;
  let number = 0;
  let trailer: Record<string, unknown> | null = null;
  for await (const text of lines) {
    number += 1;
    if (trailer !== null && text.trim() !== '') return { header, records, checksum: 'mismatch', problem: `line ${number}: content after the end line` };
    if (number === 1) {
      try {
        header = JSON.parse(text) as ExportHeader;
      } catch {
        header = null;
      }
      if (header?.object !== 'loom_export') return { header: null, records, checksum: 'mismatch', problem: 'line 1: not a Loom export header ({"object":"loom_export",...})' };
      hash.update(`${text}\n`);
      continue;
    }
    if (text.startsWith('{"object":"loom_export_end"')) {
      trailer = JSON.parse(text) as Record<string, unknown>;
      continue;
    }
    hash.update(`${text}\n`);
    if (text.trim() !== '') records += 1;
  }
  if (header === null) return { header, records, checksum: 'missing', problem: 'the file is empty' };
  if (trailer === null) return { header, records, checksum: 'missing', problem: 'the file ends without its end line: it was cut short' };
  const digest = hash.digest('hex');
  if (trailer['records'] !== records || trailer['sha256'] !== digest) {
    return { header, records, checksum: 'mismatch', problem: `the end line records ${String(trailer['records'])} records and SHA-256 ${String(trailer['sha256'])}; the file holds ${records} and hashes to ${digest}: it was changed after export` };
  }
  return { header, records, checksum: 'verified', problem: null };
}

/**
 * The portable log file (`loom export`, `GET /v1/log/export`): NDJSON, one
 * JSON object per line, UTF-8.
 *
 *   {"object":"loom_export","format":1,...}             header: who wrote it, what it selects
 *   {"sequence":12,"record":{"id":"…","thread":…}}       one line per record, ascending sequence
 *   {"object":"loom_export_end","records":N,"last_sequence":S,"sha256":"…"}
 *
 * `sha256` is the hex SHA-256 of every byte before the trailer line (the
 * header and the record lines with their newlines), so a truncated or edited
 * file is told from a whole one; each record also carries its id, which the
 * importer recomputes from the content. Records are the stored records
 * exactly (`judged_by` included); sequences are the source's and are only
 * for ordering and resuming (`--after`): an import assigns its own.
 */
import { Type, type Static } from 'typebox';

export const EXPORT_FORMAT = 1;
export const EXPORT_CONTENT_TYPE = 'application/x-ndjson';

/** What an export selects; every field narrows (all of them together). */
export const ExportScopeSchema = Type.Object(
  {
    thread: Type.Optional(Type.String({ description: 'Only this thread.' })),
    actor: Type.Optional(Type.String({ description: 'Only records by this actor DID.' })),
    namespace: Type.Optional(Type.String({ description: 'Only this namespace and the namespaces under it (`acme` takes `acme/web`).' })),
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'Only sequences above this one (resume after the last sequence of a previous export).' })),
    until: Type.Optional(Type.Integer({ minimum: 0, description: 'Only sequences up to this one (inclusive). Default: the head when the export starts.' })),
  },
  { additionalProperties: false },
);
export type ExportScope = Static<typeof ExportScopeSchema>;

export interface ExportHeader {
  readonly object: 'loom_export';
  readonly format: typeof EXPORT_FORMAT;
  readonly loom_version: string;
  readonly instance: string;
  readonly backend: string;
  readonly created_at: string;
  readonly scope: ExportScope;
  /** The source's head when the export started: nothing above `min(until, head)` is in the file. */
  readonly head: number;
}

export interface ExportRecordLine {
  readonly sequence: number;
  readonly record: Record<string, unknown>;
}

export interface ExportTrailer {
  readonly object: 'loom_export_end';
  readonly records: number;
  readonly last_sequence: number | null;
  readonly sha256: string;
}

/** Whether `namespace` is `scope` or lies under it. */
export function inNamespace(namespace: string, scope: string): boolean {
  return namespace === scope || namespace.startsWith(`${scope}/`);
}

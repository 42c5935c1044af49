import { createInterface } from 'node:readline';
import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { EXPORT_CONTENT_TYPE } from '../export-format.js';
import { importLines, LogImporter } from '../log-import.js';
import { PortabilityToken } from '../portability-service.js';

/** An import is one request however large the log; the body is read line by line, never held. */
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024 * 1024;

const ImportRefusalSchema = Type.Object(
  { line: Type.Integer(), id: Type.String(), code: Type.String(), message: Type.String() },
  { $id: 'ImportRefusal', additionalProperties: false },
);

export const ImportResultSchema = Type.Object(
  {
    object: Type.Literal('import_result'),
    source_instance: Type.Union([Type.String(), Type.Null()], { description: 'The instance that wrote the file.' }),
    records_read: Type.Integer(),
    records_inserted: Type.Integer({ description: 'New on this server.' }),
    records_deduplicated: Type.Integer({ description: 'Already stored (same id): a second import of a file inserts nothing.' }),
    records_refused: Type.Integer({ description: 'Refused by the ingest checks (a clock taken by another record, a rule): the import went on.' }),
    refusals: Type.Array(ImportRefusalSchema, { description: 'The first 100 refusals, by line of the file.' }),
    checksum: Type.Union([Type.Literal('verified'), Type.Literal('missing')], { description: '`missing`: the file ends without its end line (cut short); what it held was imported.' }),
    last_sequence: Type.Union([Type.Integer(), Type.Null()], { description: 'The source sequence of the last record read (resume an export with after=).' }),
  },
  { $id: 'ImportResult', additionalProperties: false },
);

export const importLog = defineRoute({
  operationId: 'importLog',
  method: 'POST',
  path: '/v1/log/import',
  summary: 'Import a portable NDJSON export',
  description:
    'Reads an export (GET /v1/log/export, `loom export`) as it streams in and ingests its records in order through the normal ingest checks: ' +
    'every id is recomputed from its record, the end line\'s count and SHA-256 must match, and a record already stored is skipped, so importing twice is harmless. ' +
    'A damaged line stops the import with 400 IMPORT_FAILED naming it (records before it stay). Admin only.',
  tags: ['portability'],
  auth: { scope: 'admin' },
  request: { raw: { description: 'The export file (NDJSON).', maxBytes: IMPORT_MAX_BYTES, contentTypes: [EXPORT_CONTENT_TYPE, 'application/octet-stream'] } },
  responses: { 200: { description: 'What was imported.', schema: ImportResultSchema } },
  errors: ['IMPORT_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { portability: PortabilityToken },
  handler: async ({ raw, caller }, { portability }) => {
    const lines = createInterface({ input: raw, crlfDelay: Infinity });
    return importLines(lines, new LogImporter(portability.ingestor, caller, portability.isSystemThread));
  },
});

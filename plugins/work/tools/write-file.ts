/**
 * `write_file`: a whole UTF-8 text file written as the member, through the
 * data plane's upload (the checks of POST /v1/data/write/init and complete:
 * the node record's ingest gates, paths, quotas), with the run as the file's
 * provenance; registered only when the data plane is loaded.
 */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { DataFiles } from '../../data-plane/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { NamespaceField } from './namespace-input.js';

/** Larger files are uploads a client makes, not text a model writes in one call. */
const MAX_FILE_BYTES = 1024 * 1024;
const CONTENT_TYPE_DEFAULT = 'text/plain; charset=utf-8';

export function writeFileTool(files: DataFiles): ToolDescriptor {
  return defineTool({
    name: 'write_file',
    description:
      'Writes a whole text file (UTF-8) to a namespace\'s file tree, as you: it creates the file (and the directories of its path), or replaces its content when it exists. ' +
      `At most ${MAX_FILE_BYTES} bytes. The file records this run as its provenance. content_type defaults to "${CONTENT_TYPE_DEFAULT}". ` +
      'Answers {namespace, path, size_bytes, content_hash, record_id}.',
    inputSchema: Type.Object(
      {
        path: Type.String({ minLength: 1, maxLength: 4096, description: 'The file, e.g. "/reports/summary.md".' }),
        content: Type.String({ maxLength: MAX_FILE_BYTES, description: 'The whole new content.' }),
        namespace: NamespaceField,
        content_type: Type.Optional(Type.String({ maxLength: 255, description: `A media type, default "${CONTENT_TYPE_DEFAULT}".` })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:write',
    readOnly: false,
    destructive: true,
    async run(input, { caller, runThread }) {
      const bytes = Buffer.from(input.content, 'utf8');
      if (bytes.length > MAX_FILE_BYTES) throw new LoomError('PAYLOAD_TOO_LARGE', `content is ${bytes.length} bytes in UTF-8, over the ${MAX_FILE_BYTES} write_file takes`);
      const namespace = files.namespaceFor(caller, input.namespace);
      const written = await files.write(caller, namespace, { path: input.path, bytes, contentType: input.content_type ?? CONTENT_TYPE_DEFAULT, provenance: runThread === undefined ? {} : { work_thread: runThread } });
      return { namespace: written.namespace, path: written.path, size_bytes: written.size_bytes, content_hash: written.content_hash, record_id: written.record_id };
    },
  });
}

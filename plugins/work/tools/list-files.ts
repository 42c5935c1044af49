/** `list_files`: a directory of the data plane as the member may see it (GET /v1/data/list); registered only when the data plane is loaded. */
import { Type } from 'typebox';
import type { JsonObject } from '../../../core/records/json.js';
import type { DataFiles } from '../../data-plane/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { NamespaceField } from './namespace-input.js';
import { clampLimit } from './tool-record.js';

const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 200;

export function listFilesTool(files: DataFiles): ToolDescriptor {
  return defineTool({
    name: 'list_files',
    description:
      'Lists the files and directories directly under a directory of a namespace\'s file tree (default the root "/"), by name, as you may see them. ' +
      'Answers {namespace, path, entries: [{path, kind, size_bytes, content_type, modified_at}], more}; more is true when the directory holds more entries than listed. ' +
      `Read a file with read_file. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    inputSchema: Type.Object(
      {
        path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'The directory, e.g. "/reports"; default "/".' })),
        namespace: NamespaceField,
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      const namespace = files.namespaceFor(caller, input.namespace);
      const listing = await files.list(caller, namespace, input.path, clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX));
      return {
        namespace,
        path: listing.path,
        entries: listing.entries.map((node): JsonObject =>
          node.kind === 'directory'
            ? { path: node.path, kind: node.kind, modified_at: node.modified_at }
            : { path: node.path, kind: node.kind, size_bytes: node.size_bytes, content_type: node.content_type, modified_at: node.modified_at },
        ),
        more: listing.more,
      };
    },
  });
}

/**
 * `read_file`: a file's text as the member may see it (GET /v1/data/node
 * and its blob), at most `max_bytes` of it, saying when it stopped short;
 * registered only when the data plane is loaded.
 */
import { Type } from 'typebox';
import type { DataFiles } from '../../data-plane/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { NamespaceField } from './namespace-input.js';
import { clampLimit } from './tool-record.js';

const MAX_BYTES_DEFAULT = 16 * 1024;
const MAX_BYTES_MAX = 256 * 1024;

export function readFileTool(files: DataFiles): ToolDescriptor {
  return defineTool({
    name: 'read_file',
    description:
      'Reads a text file of a namespace\'s file tree, as UTF-8. ' +
      `At most max_bytes bytes are read (default ${MAX_BYTES_DEFAULT}, at most ${MAX_BYTES_MAX}): when the file is longer, truncated is true and content holds its first bytes_read bytes. ` +
      'A file that is not text (it holds NUL bytes) answers binary: true and no content. ' +
      'Answers {namespace, path, size_bytes, content_type, content_hash, truncated, bytes_read, binary, content}.',
    inputSchema: Type.Object(
      {
        path: Type.String({ minLength: 1, maxLength: 4096, description: 'The file, e.g. "/notes/plan.md".' }),
        namespace: NamespaceField,
        max_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BYTES_MAX })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      const namespace = files.namespaceFor(caller, input.namespace);
      const head = await files.head(caller, namespace, input.path, clampLimit(input.max_bytes, MAX_BYTES_DEFAULT, MAX_BYTES_MAX));
      const binary = head.bytes.includes(0);
      // Streaming decode holds back a character cut by the byte limit instead of answering U+FFFD for it.
      const content = binary ? null : new TextDecoder('utf-8').decode(head.bytes, { stream: head.truncated });
      return {
        namespace,
        path: head.node.path,
        size_bytes: head.node.size_bytes,
        content_type: head.node.content_type,
        content_hash: head.node.content_hash,
        truncated: head.truncated,
        bytes_read: head.bytes.length,
        binary,
        content,
      };
    },
  });
}

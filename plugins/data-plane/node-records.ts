/**
 * Data-plane facts are records: one KNOW per change, on the namespace's data
 * thread, written by the data-plane plugin as the caller (its acting DID, its
 * next clock), so they fold, are scoped by namespace like every record, and
 * can federate. The bytes live in the blob store, addressed by the hash the
 * record carries.
 *
 * Body `{kind: "core.data.node.v1", op, namespace?, …}`:
 * - `write`   `{path, content_hash, size_bytes, content_type, provenance?: {work_thread?, goal_summary?}}`
 * - `mkdir`   `{path}`
 * - `move`    `{from, to}`
 * - `remove`  `{path, recursive}`
 * - `publish` `{path, storage_class}`
 */
import { canonicalJson } from '../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../core/records/sha256.js';
import { DEFAULT_NAMESPACE } from '../../core/records/namespace-path.js';

export const NODE_KIND = 'core.data.node.v1';
export const NODE_OPS = ['write', 'mkdir', 'move', 'remove', 'publish'] as const;
export type NodeOp = (typeof NODE_OPS)[number];

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The data thread of a namespace: `th_` + SHA-256 of the canonical JSON of `["data", namespace]`. */
export function dataThreadId(namespace: string): string {
  return 'th_' + nobleSha256Hex(canonicalJson(['data', namespace]));
}

export interface WriteProvenance {
  readonly work_thread?: string;
  readonly goal_summary?: string;
}

export type NodeChange =
  | { op: 'write'; path: string; content_hash: string; size_bytes: number; content_type: string; provenance?: WriteProvenance }
  | { op: 'mkdir'; path: string }
  | { op: 'move'; from: string; to: string }
  | { op: 'remove'; path: string; recursive: boolean }
  | { op: 'publish'; path: string; storage_class: string };

/** The record body for a change in `namespace` (the default namespace carries none). */
export function nodeRecordBody(namespace: string, change: NodeChange): Record<string, unknown> {
  return { kind: NODE_KIND, ...(namespace === DEFAULT_NAMESPACE ? {} : { namespace }), ...change };
}

/**
 * Graph node ids on the wire: `actor:<did>`, `thread:<thread id>`,
 * `record:<64 hex>`. A bare DID, thread id or record id is accepted too and
 * its kind inferred (the three syntaxes cannot be confused: a DID starts
 * with `did:`, a thread id with `th_`, a record id is 64 hex digits).
 */
import { LoomError } from '../../core/errors/loom-error.js';
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { isRecordId } from '../../core/records/record-id.js';
import { isThreadId } from '../../core/records/thread-id.js';

export type NodeKind = 'actor' | 'thread' | 'record';

export interface NodeRef {
  readonly kind: NodeKind;
  /** The DID, thread id or record id. */
  readonly key: string;
}

export const NODE_ID_FORMS = 'actor:<did>, thread:<th_…>, record:<64 hex>, or a bare DID, thread id or record id';

export function nodeId(kind: NodeKind, key: string): string {
  return `${kind}:${key}`;
}

/** The node a wire id names, or null when it is no node id at all. */
export function parseNodeId(raw: string): NodeRef | null {
  const colon = raw.indexOf(':');
  const prefix = colon > 0 ? raw.slice(0, colon) : '';
  if (prefix === 'actor' || prefix === 'thread' || prefix === 'record') {
    const ref = inferKind(raw.slice(colon + 1));
    return ref && ref.kind === prefix ? ref : null;
  }
  return inferKind(raw);
}

function inferKind(key: string): NodeRef | null {
  if (key.startsWith('did:')) return didSyntaxError(key) === null ? { kind: 'actor', key } : null;
  if (isThreadId(key)) return { kind: 'thread', key };
  if (isRecordId(key)) return { kind: 'record', key };
  return null;
}

/** Parses query parameter `parameter`, refusing with a 400 that names it and the accepted forms. */
export function requireNodeId(parameter: string, raw: string): NodeRef {
  const ref = parseNodeId(raw);
  if (ref) return ref;
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  throw new LoomError('INVALID_SHAPE', `${parameter}: ${JSON.stringify(shown)} is not a graph node id; expected ${NODE_ID_FORMS}`);
}

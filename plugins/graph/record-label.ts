/** A record node's label: its act, body kind and a short text, so a graph can be read without fetching records. */
import type { LoomRecord } from '../../core/records/record.js';
import { clip } from './graph-state.js';

const TEXT_FIELDS = ['goal', 'title', 'summary', 'verdict', 'topic', 'observation'] as const;
const TEXT_MAX = 80;

export function recordLabel(record: LoomRecord): string {
  const kind = record.body['kind'];
  let label: string = record.act;
  if (typeof kind === 'string' && kind.length > 0) label += ` ${clip(kind, TEXT_MAX)}`;
  for (const field of TEXT_FIELDS) {
    const text = record.body[field];
    if (typeof text === 'string' && text.trim().length > 0) return `${label}: ${clip(text.trim(), TEXT_MAX)}`;
  }
  return label;
}

/**
 * The one-line account of a record body that timelines, frames and digests
 * show: the first non-empty text field, else a few telling markers, else
 * the body's JSON; capped so a fold's memory per record stays small.
 */
import type { JsonObject, JsonValue } from '../../../core/records/json.js';

const TEXT_FIELDS = ['goal', 'text', 'content', 'message', 'summary', 'observation', 'insight', 'rule', 'reason', 'result', 'response', 'title'];

/** Cuts `text` to at most `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…';
}

/** A string field of `body`, clipped; null when absent or not a string. */
export function textField(body: JsonObject, key: string, max: number): string | null {
  const value = body[key];
  return typeof value === 'string' ? clip(value, max) : null;
}

function short(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value.slice(0, 12) : null;
}

export function recordText(body: JsonObject, max = 280): string {
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && value.trim().length > 0) return clip(value.replace(/\s+/g, ' ').trim(), max);
  }
  const parts: string[] = [];
  if (typeof body['kind'] === 'string') parts.push(body['kind']);
  if (typeof body['topic'] === 'string') parts.push(`topic=${body['topic']}`);
  if (typeof body['tool'] === 'string') parts.push(`tool=${body['tool']}`);
  if (typeof body['verdict'] === 'string') parts.push(`verdict=${body['verdict']}`);
  const fulfills = short(body['fulfills']);
  if (fulfills) parts.push(`fulfills ${fulfills}`);
  const cancels = short(body['cancels']);
  if (cancels) parts.push(`cancels ${cancels}`);
  const supersedes = short(body['supersedes']);
  if (supersedes) parts.push(`supersedes ${supersedes}`);
  if (parts.length > 0) return clip(parts.join(' '), max);
  return clip(JSON.stringify(body), max);
}

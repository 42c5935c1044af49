/**
 * Projections of a thread for people: `tui`, a turn-by-turn terminal view,
 * and `messages`, a chat-style message list. Pure over the records.
 */
import type { LoomRecord } from '../../core/records/record.js';
import type { ThreadStateValue } from '../../core/folds/thread-state.js';

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface ProjectedMessage {
  role: MessageRole;
  actor: string;
  act: string;
  clock: number;
  record_id: string;
  content: string;
}

const TEXT_FIELDS = ['goal', 'text', 'content', 'message', 'summary', 'observation', 'insight', 'rule', 'reason', 'result', 'response'];

/** The most readable one-line account of a body. */
export function bodyText(record: LoomRecord): string {
  const body = record.body;
  for (const field of TEXT_FIELDS) {
    const value = body[field];
    if (typeof value === 'string' && value.trim().length > 0) return value;
  }
  const parts: string[] = [];
  if (typeof body['kind'] === 'string') parts.push(body['kind']);
  if (typeof body['topic'] === 'string') parts.push(`topic=${body['topic']}`);
  if (typeof body['tool'] === 'string') parts.push(`tool=${body['tool']}`);
  if (typeof body['verdict'] === 'string') parts.push(`verdict=${body['verdict']}`);
  if (typeof body['fulfills'] === 'string') parts.push(`fulfills ${body['fulfills'].slice(0, 12)}`);
  if (typeof body['cancels'] === 'string') parts.push(`cancels ${body['cancels'].slice(0, 12)}`);
  if (parts.length > 0) return parts.join(' ');
  const json = JSON.stringify(body);
  return json.length > 200 ? json.slice(0, 197) + '...' : json;
}

export function roleOf(record: LoomRecord): MessageRole {
  if (record.act === 'CALL' || (record.act === 'DO' && typeof record.body['tool'] === 'string')) return 'tool';
  if (record.actor.startsWith('did:sync:user:')) return 'user';
  if (record.actor.startsWith('did:sync:system:')) return 'system';
  return 'assistant';
}

export function projectMessages(records: readonly LoomRecord[]): ProjectedMessage[] {
  return records.map((record) => ({
    role: roleOf(record),
    actor: record.actor,
    act: record.act,
    clock: record.clock,
    record_id: record.id,
    content: bodyText(record),
  }));
}

function shortActor(did: string): string {
  const match = /^did:sync:(?:user|agent|system):(.+)$/.exec(did);
  if (match) return match[1]!;
  return did.length > 24 ? did.slice(0, 21) + '...' : did;
}

export function projectTui(state: ThreadStateValue, records: readonly LoomRecord[], width = 100): string {
  const lines: string[] = [];
  lines.push(`thread ${state.thread}`);
  lines.push(`status ${state.status}  records ${state.record_count}  participants ${state.participants.map(shortActor).join(', ') || '-'}`);
  if (state.first_goal) lines.push(`goal   ${state.first_goal}`);
  lines.push('-'.repeat(Math.min(width, 100)));
  let previousActor: string | null = null;
  for (const record of records) {
    const who = shortActor(record.actor);
    if (record.actor !== previousActor) {
      lines.push('');
      lines.push(`${who}:`);
      previousActor = record.actor;
    }
    const prefix = `  [${record.clock}] ${record.act.padEnd(6)} `;
    const text = bodyText(record).replace(/\s+/g, ' ');
    const room = Math.max(20, width - prefix.length);
    lines.push(prefix + (text.length > room ? text.slice(0, room - 3) + '...' : text));
  }
  return lines.join('\n') + '\n';
}

/**
 * A coordination log for the scale benchmarks (fold-scaling, fold-memory):
 * threads of 10 records (a task INTEND assigned to an agent, six messages, the
 * agent's completion claim, a reviewer's verdict judged by the claim, a note),
 * 100 threads interleaved at a time, 10 requesters, 40 agents, 10 reviewers,
 * written straight into a SQLite store through appendMany.
 */
import { nodeSha256Hex } from '../../core/engine/native-hash.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../../core/records/record.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';
import { SqliteRecordStore } from '../../storage/sqlite/sqlite-record-store.js';
import { fmt, log, round } from './harness.js';
import { threadId } from './records.js';

export const PER_THREAD = 10;
const WINDOW_THREADS = 100;

const DOMAINS = ['code', 'docs', 'ops', 'research'];
const requester = (t: number) => `did:sync:user:requester-${t % 10}`;
const agent = (t: number) => `did:sync:agent:worker-${t % 40}`;
const reviewer = (t: number) => `did:sync:user:reviewer-${(t + 3) % 10}`;

/** Position `pos` of thread `t`, given the id of position pos-1 (and the task and claim ids). */
function coordinationRecord(t: number, pos: number, ids: string[], createdAt: number): PreparedRecord {
  const thread = threadId(t);
  const previous = pos === 0 ? [] : [ids[pos - 1]!];
  let fields: RecordFields;
  const base = { thread, data_type: 'SCALAR' as const, judged_by: null as string | null, parents: previous };
  if (pos === 0) {
    fields = { ...base, actor: requester(t), act: 'INTEND', clock: 0, body: { task: true, goal: `task ${t}: ship part ${t % 977}`, assigned_to: agent(t), domain: DOMAINS[t % 4]!, priority: 'medium' } };
  } else if (pos <= 6) {
    const byAgent = pos % 2 === 1;
    fields = { ...base, actor: byAgent ? agent(t) : requester(t), act: byAgent ? 'DO' : 'KNOW', clock: byAgent ? (pos - 1) / 2 : pos / 2, body: { text: `step ${pos} of task ${t}`, kind: byAgent ? 'work.step.v1' : 'work.comment.v1' } };
  } else if (pos === 7) {
    fields = { ...base, actor: agent(t), act: 'KNOW', clock: 3, body: { fulfills: ids[0]!, summary: `done: task ${t}` } };
  } else if (pos === 8) {
    fields = { ...base, actor: reviewer(t), act: 'KNOW', clock: 0, judged_by: ids[7]!, body: { fulfills: ids[0]!, verdict: t % 5 === 0 ? 'reject' : 'accept', summary: 'reviewed' } };
  } else {
    fields = { ...base, actor: reviewer(t), act: 'KNOW', clock: 1, body: { text: `note on task ${t}` } };
  }
  const record = makeRecord(computeRecordId(fields, nodeSha256Hex), fields);
  return { record, namespace: 'default', createdAt };
}

/** Loads n records: windows of 100 threads, position by position, so a thread's records spread over the log. */
export async function loadCoordinationLog(path: string, n: number): Promise<number> {
  const store = new SqliteRecordStore({ path, durability: 'normal' });
  await store.open();
  const start = performance.now();
  const createdAt = Date.now();
  let chunk: PreparedRecord[] = [];
  let pending: Promise<unknown> | null = null;
  const windowSize = WINDOW_THREADS * PER_THREAD;
  for (let w = 0; w * windowSize < n; w++) {
    const ids: string[][] = Array.from({ length: WINDOW_THREADS }, () => []);
    for (let pos = 0; pos < PER_THREAD; pos++) {
      for (let local = 0; local < WINDOW_THREADS; local++) {
        if (w * windowSize + pos * WINDOW_THREADS + local >= n) continue;
        const prepared = coordinationRecord(w * WINDOW_THREADS + local, pos, ids[local]!, createdAt);
        ids[local]!.push(prepared.record.id);
        chunk.push(prepared);
      }
      if (chunk.length >= 4000) {
        if (pending) await pending;
        pending = store.appendMany(chunk);
        chunk = [];
      }
    }
  }
  if (pending) await pending;
  if (chunk.length > 0) await store.appendMany(chunk);
  const count = await store.watermark();
  await store.close();
  log(`  loaded ${fmt(count)} records in ${round((performance.now() - start) / 1000, 1)} s`);
  return Math.ceil(n / PER_THREAD);
}

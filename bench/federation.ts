/**
 * Federation between two real `loom serve --federation` processes on
 * loopback (SQLite, auth on, a peer bearer for the pair):
 * - lag: continuous-mode replication lag under a steady 100 records/s on the
 *   source, from the source's acknowledgement of each POST to the record's
 *   arrival on the target's thread watch (SSE), both timed by this process's
 *   clock. Goal p50 < 10 ms, p99 < 50 ms.
 * - catch-up: records per second a fresh target pulls from a source holding
 *   N records, ÷ the source's own HTTP ingest rate for the same records
 *   (32 concurrent POST /v1/records), measured just before. Goal ≥ 1.
 */
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../test/helpers/auth.js';
import { get, mapLimit, newThread, request } from '../test/helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../test/helpers/loom-process.js';
import { fmt, log, main, percentile, ratioCheck, round, scaled, type Check } from './support/harness.js';

const RATE = 100;
const LAG_RECORDS = scaled(2000, 200);
const CATCH_UP_RECORDS = scaled(20_000, 2000);

interface Instance {
  readonly process: LoomProcess;
  readonly admin: Credential;
  readonly did: string;
}

async function instance(): Promise<Instance> {
  const process = await startLoomProcess({ storage: 'sqlite', args: ['--federation'] });
  const admin = await bootstrapAdmin(process.url);
  return { process, admin, did: (await get(process.url, '/health')).json.instance_did };
}

async function pair(target: Instance, source: Instance, mode: string): Promise<string> {
  const peer = await createAccount(source.process.url, source.admin, `peer-${Date.now()}`, ['federation:sync', 'federation:subscribe', 'records:read']);
  const created = await request(target.process.url, 'POST', '/v1/sync/pairs', { headers: bearer(target.admin), json: { peer_did: source.did, peer_url: source.process.url, peer_token: peer.token, mode, poll_interval_ms: 20 } });
  if (created.status !== 201) throw new Error(`pair: ${created.text}`);
  return created.json.pair_id;
}

const post = (source: Instance, thread: string, clock: number, body: Record<string, unknown>) =>
  request(source.process.url, 'POST', '/v1/records', { headers: bearer(source.admin), json: { thread, actor: source.admin.did, act: 'DO', body, clock, data_type: 'SCALAR', parents: [] } });

/** Arrival times (this process's clock) of records on a thread of `target`, by id. */
function watch(target: Instance, thread: string, arrivals: Map<string, number>, signal: AbortSignal): Promise<void> {
  return (async () => {
    const answer = await fetch(`${target.process.url}/v1/threads/${thread}/watch`, { headers: bearer(target.admin), signal });
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
        const now = performance.now();
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame);
          if (data && /^event: record$/m.test(frame)) arrivals.set((JSON.parse(data[1]!) as { id: string }).id, now);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  })();
}

main(import.meta.url, {
  name: 'federation',
  title: `Federation: continuous replication lag at ${RATE} records/s, and catch-up of ${fmt(CATCH_UP_RECORDS)} records vs HTTP ingest`,
  async run() {
    const processes: LoomProcess[] = [];
    try {
      // Lag.
      const source = await instance();
      const target = await instance();
      processes.push(source.process, target.process);
      const thread = newThread('bench-lag');
      await pair(target, source, 'continuous');
      await post(source, thread, 0, { warm: true });
      const arrivals = new Map<string, number>();
      const stop = new AbortController();
      const watching = watch(target, thread, arrivals, stop.signal);
      const acks = new Map<string, number>();
      const started = performance.now();
      for (let i = 1; i <= LAG_RECORDS; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const answer = await post(source, thread, i, { i });
        acks.set(answer.json.id, performance.now());
      }
      const deadline = performance.now() + 30_000;
      while ([...acks.keys()].some((id) => !arrivals.has(id)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      stop.abort();
      await watching;
      const lags = [...acks].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at);
      const missing = acks.size - lags.length;
      const p50 = percentile(lags, 50);
      const p99 = percentile(lags, 99);
      log(`lag over ${lags.length} records at ${RATE}/s: p50 ${fmt(p50, 2)} ms, p99 ${fmt(p99, 2)} ms, max ${fmt(Math.max(...lags), 1)} ms, missing ${missing}`);

      // Catch-up.
      const full = await instance();
      processes.push(full.process);
      const threads = [newThread('bench-a'), newThread('bench-b'), newThread('bench-c'), newThread('bench-d')];
      const ingestStart = performance.now();
      await mapLimit([...Array(CATCH_UP_RECORDS).keys()], 32, async (i) => {
        const answer = await post(full, threads[i % threads.length]!, Math.floor(i / threads.length), { i, text: 'x'.repeat(64) });
        if (answer.status !== 201) throw new Error(answer.text);
      });
      const ingestSeconds = (performance.now() - ingestStart) / 1000;
      const fresh = await instance();
      processes.push(fresh.process);
      const pullStart = performance.now();
      const pairId = await pair(fresh, full, 'polling');
      for (;;) {
        const stats = (await get(fresh.process.url, `/v1/sync/pairs/${pairId}/stats`, bearer(fresh.admin))).json;
        if (stats.counters.pulled >= CATCH_UP_RECORDS) break;
        if (performance.now() - pullStart > 300_000) throw new Error(`catch-up stalled at ${stats.counters.pulled}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const pullSeconds = (performance.now() - pullStart) / 1000;
      const ingestRate = CATCH_UP_RECORDS / ingestSeconds;
      const pullRate = CATCH_UP_RECORDS / pullSeconds;
      log(`catch-up: ${fmt(pullRate)} records/s pulled vs ${fmt(ingestRate)} records/s HTTP ingest on the source`);

      const checks: Check[] = [
        ratioCheck('continuous lag p50 (ms ÷ 10)', p50 / 10, '<=', 1, `${fmt(p50, 2)} ms over ${lags.length} records, ${missing} missing`),
        ratioCheck('continuous lag p99 (ms ÷ 50)', p99 / 50, '<=', 1, `${fmt(p99, 2)} ms`),
        ratioCheck('catch-up pull rate ÷ source HTTP ingest rate', pullRate / ingestRate, '>=', 1, `${fmt(pullRate)} vs ${fmt(ingestRate)} records/s`),
      ];
      return {
        figures: {
          lag_records: lags.length,
          lag_missing: missing,
          lag_p50_ms: round(p50, 2),
          lag_p99_ms: round(p99, 2),
          lag_max_ms: round(Math.max(...lags), 2),
          catch_up_records: CATCH_UP_RECORDS,
          source_ingest_per_s: round(ingestRate, 0),
          catch_up_per_s: round(pullRate, 0),
        },
        checks,
        notes: [
          'Lag = arrival on the target thread watch (SSE) − acknowledgement of the POST on the source, both on this process clock; it includes the source feed, the page signature and its check, the target ingest and its thread watch.',
          'Catch-up = a polling pair pulling 1000-record signed pages back to back until it has every record; ingest = 32 concurrent POST /v1/records to the source.',
        ],
      };
    } finally {
      for (const process of processes) {
        await process.stop();
        await process.remove();
      }
    }
  },
});

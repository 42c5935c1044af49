/**
 * The thread-watch feed, GET /v1/threads/{id}/watch, over loopback HTTP with
 * a real SQLite store: server-sent events whose id is the record's sequence
 * and whose data is the record JSON; history then live records; only the
 * watched thread; resume with Last-Event-ID or ?after= with no gap and no
 * duplicate; heartbeats on an idle connection; a prompt, clean stop.
 */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { EventSource } from 'eventsource';
import {
  expectEnvelope,
  get,
  mapLimit,
  newThread,
  postJson,
  recordInput,
  SseReader,
  startServer,
  type SseEvent,
  type StartedServer,
} from '../helpers/http-server.js';

const HEARTBEAT_MS = 200;

describe('thread watch over HTTP (SQLite)', function () {
  let server: StartedServer;
  let url: string;
  const readers: SseReader[] = [];
  /** Per thread, the next clock of alice, so every ingest is a new record. */
  const clocks = new Map<string, number>();

  /** Ingests a DO by alice on `thread`; returns the stored record. */
  const ingest = async (thread: string, body: Record<string, unknown> = {}): Promise<any> => {
    const clock = clocks.get(thread) ?? 0;
    clocks.set(thread, clock + 1);
    const answer = await postJson(url, '/v1/records', recordInput({ thread, clock, body }));
    expect(answer.status, answer.text).to.equal(201);
    return answer.json;
  };
  const watch = async (thread: string, headers: Record<string, string> = {}, query = ''): Promise<SseReader> => {
    const reader = await SseReader.open(`${url}/v1/threads/${thread}/watch${query}`, headers);
    readers.push(reader);
    expect(reader.response.status).to.equal(200);
    return reader;
  };
  const records = (events: readonly SseEvent[]) => events.map((e) => JSON.parse(e.data));
  const ids = (events: readonly SseEvent[]) => events.map((e) => Number(e.id));

  before(async () => {
    server = await startServer({ ledger: { watchHeartbeatMs: HEARTBEAT_MS } });
    url = server.url;
  });
  afterEach(() => {
    for (const reader of readers.splice(0)) reader.close();
  });
  after(() => server?.stop());

  it('answers text/event-stream, uncompressed and flushed at once, even when the client accepts gzip', async () => {
    const thread = newThread();
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      httpGet(`${url}/v1/threads/${thread}/watch`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }, resolve).on('error', reject);
    });
    try {
      expect(response.statusCode).to.equal(200);
      expect(response.headers['content-type']).to.match(/^text\/event-stream/);
      expect(response.headers['content-encoding'] ?? 'identity').to.equal('identity');
      expect(response.headers['cache-control']).to.include('no-cache');
      // The raw bytes are readable SSE text, and they arrive without any record being written.
      const first = await new Promise<Buffer>((resolve) => response.once('data', resolve));
      expect(first.toString('utf8')).to.match(/^(retry|:|id|event|data)/);
    } finally {
      response.destroy();
    }
  });

  it('replays the history, then delivers live records as they land, in order, only from that thread', async () => {
    const thread = newThread();
    const elsewhere = newThread();
    const stored = [await ingest(thread, { n: 0 }), await ingest(elsewhere), await ingest(thread, { n: 1 }), await ingest(thread, { n: 2 })];
    const history = stored.filter((r) => r.thread === thread);

    const reader = await watch(thread);
    await reader.untilEvents(3);
    const live = [await ingest(thread, { n: 3 }), await ingest(elsewhere), await ingest(thread, { n: 4 }), await ingest(thread, { n: 5 })];
    await reader.untilEvents(6);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(reader.events).to.have.length(6);
    expect(reader.events.every((e) => e.event === 'record')).to.equal(true);
    expect(records(reader.events)).to.deep.equal([...history, ...live.filter((r) => r.thread === thread)]);
    const sequence = ids(reader.events);
    expect(sequence.every((id, i) => Number.isInteger(id) && (i === 0 || id > sequence[i - 1]!))).to.equal(true);
  });

  it("each event's id is the record's sequence", async () => {
    const thread = newThread();
    for (let i = 0; i < 3; i++) await ingest(thread, { i });
    const reader = await watch(thread);
    await reader.untilEvents(3);
    for (const event of reader.events) {
      const record = JSON.parse(event.data);
      const bySequence = await postJson(url, '/v1/records/query', { filter: { sequence: Number(event.id) } });
      expect(bySequence.json.data.map((r: any) => r.id)).to.deep.equal([record.id]);
    }
    const summary = (await get(url, '/v1/threads?limit=1000')).json.data.find((t: any) => t.thread === thread);
    expect(ids(reader.events)[0]).to.equal(summary.first_sequence);
    expect(ids(reader.events).at(-1)).to.equal(summary.last_sequence);
  });

  it('keeps order and loses nothing under concurrent ingests', async () => {
    const thread = newThread();
    const reader = await watch(thread);
    const inputs = Array.from({ length: 60 }, (_, clock) => recordInput({ thread, clock, body: { clock } }));
    const written = await mapLimit(inputs, 16, async (input) => (await postJson(url, '/v1/records', input)).json);
    await reader.untilEvents(60);
    const sequence = ids(reader.events);
    expect(sequence.every((id, i) => i === 0 || id > sequence[i - 1]!)).to.equal(true);
    expect(records(reader.events).map((r) => r.id)).to.have.members(written.map((r) => r.id));
  });

  it('a watch opened while records are landing sees each of them exactly once (history/live seam)', async () => {
    const thread = newThread();
    const inputs = Array.from({ length: 80 }, (_, clock) => recordInput({ thread, clock, body: { clock } }));
    let landed = 0;
    let opened: Promise<SseReader> | undefined;
    const written = await mapLimit(inputs, 8, async (input) => {
      const record = (await postJson(url, '/v1/records', input)).json;
      if (++landed === 20) opened = watch(thread);
      return record;
    });
    const reader = await opened!;
    await reader.untilEvents(80);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reader.events).to.have.length(80);
    const sequence = ids(reader.events);
    expect(sequence.every((id, i) => i === 0 || id > sequence[i - 1]!)).to.equal(true);
    expect(records(reader.events).map((r) => r.id)).to.have.members(written.map((r) => r.id));
  });

  for (const via of ['Last-Event-ID', '?after='] as const) {
    it(`resumes with ${via}: no gap and no duplicate, across records written while disconnected`, async () => {
      const thread = newThread();
      const elsewhere = newThread();
      const all = [await ingest(thread), await ingest(thread)];

      const first = await watch(thread);
      await first.untilEvents(2);
      all.push(await ingest(thread));
      await first.untilEvents(3);
      first.close();
      await first.ended;
      const lastSeen = first.events.at(-1)!.id!;

      // Written while nobody watches.
      for (let i = 0; i < 3; i++) {
        all.push(await ingest(thread));
        await ingest(elsewhere);
      }

      const second = via === 'Last-Event-ID' ? await watch(thread, { 'last-event-id': lastSeen }) : await watch(thread, {}, `?after=${lastSeen}`);
      await second.untilEvents(3);
      all.push(await ingest(thread));
      await second.untilEvents(4);
      await new Promise((resolve) => setTimeout(resolve, 100));

      const received = [...first.events, ...second.events];
      expect(records(received).map((r) => r.id)).to.deep.equal(all.map((r) => r.id));
      expect(new Set(ids(received)).size).to.equal(received.length);
    });
  }

  it('resumes from the middle of the history', async () => {
    const thread = newThread();
    const all = [await ingest(thread), await ingest(thread), await ingest(thread), await ingest(thread)];
    const full = await watch(thread);
    await full.untilEvents(4);
    const resumed = await watch(thread, { 'last-event-id': full.events[1]!.id! });
    await resumed.untilEvents(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(records(resumed.events).map((r) => r.id)).to.deep.equal(all.slice(2).map((r) => r.id));
  });

  it('sends heartbeat comments on an idle connection', async () => {
    const reader = await watch(newThread());
    await reader.until((r) => r.comments.filter((c) => c.startsWith('heartbeat')).length >= 2, HEARTBEAT_MS * 10, 'two heartbeats');
    expect(reader.events).to.have.length(0);
  });

  it('a standard EventSource client receives record events with lastEventId = sequence', async () => {
    const thread = newThread();
    const first = await ingest(thread, { n: 1 });
    const source = new EventSource(`${url}/v1/threads/${thread}/watch`);
    try {
      const received: MessageEvent[] = [];
      const done = new Promise<void>((resolve, reject) => {
        source.addEventListener('record', (event) => {
          received.push(event);
          if (received.length === 2) resolve();
        });
        source.addEventListener('error', (event) => reject(new Error(`EventSource error: ${JSON.stringify(event)}`)));
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = await ingest(thread, { n: 2 });
      await done;
      expect(received.map((e) => JSON.parse(e.data).id)).to.deep.equal([first.id, second.id]);
      expect(Number(received[1]!.lastEventId)).to.be.above(Number(received[0]!.lastEventId));
    } finally {
      source.close();
    }
  });

  const badRequests: Array<[string, Record<string, string>, string]> = [
    ['a Last-Event-ID that is not a sequence', { 'last-event-id': 'abc' }, ''],
    ['a negative Last-Event-ID', { 'last-event-id': '-1' }, ''],
    ['a fractional Last-Event-ID', { 'last-event-id': '1.5' }, ''],
    ['an ?after= that is not a sequence', {}, '?after=abc'],
  ];
  for (const [name, headers, query] of badRequests) {
    it(`answers 400 INVALID_SHAPE for ${name}`, async () => {
      expectEnvelope(await get(url, `/v1/threads/${newThread()}/watch${query}`, headers), 400, 'INVALID_SHAPE');
    });
  }

  it('answers 400 INVALID_SHAPE for a thread id that is not one', async () => {
    expectEnvelope(await get(url, '/v1/threads/th_nope/watch'), 400, 'INVALID_SHAPE');
  });
});

describe('thread watch over HTTP: stopping the server', function () {
  it('loom.stop() resolves promptly while a watch connection is open, and the stream ends', async () => {
    const server = await startServer({ ledger: { watchHeartbeatMs: HEARTBEAT_MS } });
    let reader: SseReader | undefined;
    try {
      const thread = newThread();
      expect((await postJson(server.url, '/v1/records', recordInput({ thread }))).status).to.equal(201);
      reader = await SseReader.open(`${server.url}/v1/threads/${thread}/watch`);
      await reader.untilEvents(1);

      const started = Date.now();
      await server.loom.stop();
      expect(Date.now() - started).to.be.below(2000);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the stream did not end')), 2000)));
      await Promise.race([reader.ended, timeout]).finally(() => clearTimeout(timer));
      expect(reader.isEnded).to.equal(true);
    } finally {
      reader?.close();
      await server.stop();
    }
  });
});

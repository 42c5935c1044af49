/**
 * Two in-process instances over real HTTP on 127.0.0.1 with a tampering
 * proxy between them: the target's sync pair pulls the source through the
 * proxy, which rewrites the changes feed (JSON pages and the events of the
 * continuous feed). For each mutation, in polling and continuous mode: no
 * tampered record is stored, the pair reports the right error at once, and
 * once the proxy turns honest the target holds exactly the source's records.
 * Also: a pull that makes no progress backs off, and the pair cap refuses.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, postJson, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

type Mutation = 'honest' | 'judged_by' | 'body' | 'extra_field' | 'replay' | 'skip' | 'cut';

const PAGE = 4;
const RECORDS = 24;
const FORGED_JUDGE = 'did:sync:user:forger';

/**
 * Forwards everything to the source; rewrites answers of GET /v1/sync/changes
 * by `mode`. Counts the changes requests it sees.
 */
class TamperingProxy {
  mode: Mutation;
  changesRequests = 0;
  /** The first genuine page with records it passed on (replayed from then on). */
  private firstPage: unknown = null;
  private readonly server: Server;
  private readonly upstreams = new Set<AbortController>();
  url = '';

  constructor(private readonly upstream: string, mode: Mutation) {
    this.mode = mode;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const controller of this.upstreams) controller.abort();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private fetchUpstream(path: string, req: IncomingMessage, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'accept', 'last-event-id']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
    return fetch(this.upstream + path, { headers, ...(signal ? { signal } : {}) });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname !== '/v1/sync/changes') {
      const answer = await this.fetchUpstream(req.url ?? '/', req);
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(await answer.text());
      return;
    }
    this.changesRequests++;
    if (url.searchParams.get('feed') === 'continuous') return this.stream(req, res);
    const answer = await this.fetchUpstream(req.url!, req);
    const text = await answer.text();
    if (answer.status !== 200) {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(text);
      return;
    }
    let page = JSON.parse(text);
    if (this.mode === 'skip' && page.records.length > 0 && page.has_more) {
      // A later genuine page, served in place of the one asked for.
      url.searchParams.set('since', page.next_cursor);
      page = await (await this.fetchUpstream(url.pathname + url.search, req)).json();
    } else page = this.rewrite(page);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(page));
  }

  /** The JSON mutations, shared by both feeds; pages without records pass unchanged (except when replaying). */
  private rewrite(page: any): any {
    if (this.mode === 'replay') {
      if (this.firstPage !== null) return this.firstPage;
      if (page.records.length > 0) this.firstPage = page;
      return page;
    }
    for (const entry of page.records) {
      if (this.mode === 'judged_by') entry.record.judged_by = FORGED_JUDGE;
      if (this.mode === 'body') entry.record.body = { ...entry.record.body, forged: true };
      if (this.mode === 'extra_field') entry.record.extra = 'added in transit';
    }
    return page;
  }

  private async stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write('retry: 1000\n\n');
    if (this.mode === 'cut') {
      res.end();
      return;
    }
    const controller = new AbortController();
    this.upstreams.add(controller);
    res.on('close', () => controller.abort());
    let droppedFirst = false;
    let buffered = '';
    try {
      const answer = await this.fetchUpstream(req.url!, req, controller.signal);
      const decoder = new TextDecoder();
      for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if ((event !== 'changes' && event !== 'heartbeat') || data === undefined) continue;
          let page = JSON.parse(data);
          let name = event;
          if (this.mode === 'skip' && event === 'changes' && !droppedFirst) {
            // The reader gets the next event instead of this one: a skip ahead.
            droppedFirst = true;
            continue;
          }
          if (this.mode !== 'skip') {
            const rewritten = this.rewrite(page);
            if (rewritten !== page) name = 'changes';
            page = rewritten;
          }
          res.write(`id: ${page.next_cursor}\nevent: ${name}\ndata: ${JSON.stringify(page)}\n\n`);
        }
      }
    } catch {
      // The reader went away, or the proxy closed.
    } finally {
      this.upstreams.delete(controller);
      res.end();
    }
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Shown {
  readonly id: string;
  readonly judged_by: string | null;
  readonly body: unknown;
}

async function threadRecords(url: string, thread: string): Promise<Shown[]> {
  const answer = await get(url, `/v1/threads/${thread}/records?limit=100`);
  expect(answer.status, answer.text).to.equal(200);
  return (answer.json.data as Shown[]).map(({ id, judged_by, body }) => ({ id, judged_by, body })).sort((a, b) => a.id.localeCompare(b.id));
}

describe('federation through a tampering proxy', function () {
  this.timeout(60_000);
  let source: StartedServer;
  let target: StartedServer;
  let sourceDid: string;
  let peerToken: string;

  before(async () => {
    source = await startServer({ federation: { heartbeatMs: 100 } });
    // Small pages, quick retries: a case takes well under a second when the fix holds.
    target = await startServer({ federation: { heartbeatMs: 100, pullLimit: PAGE, backoffBaseMs: 20, backoffMaxMs: 200 } });
    sourceDid = (await get(source.url, '/health')).json.instance_did;
    // The pair presents a real bearer of the source, as a deployed pair does (the proxy passes it on).
    const admin = await bootstrapAdmin(source.url);
    peerToken = (await createAccount(source.url, admin, 'peer', ['federation:sync', 'federation:subscribe', 'records:read'])).token;
  });
  after(async () => {
    await target?.stop();
    await source?.stop();
  });

  /** A thread of RECORDS records on the source, half of them with a judged_by. */
  async function sourceThread(): Promise<{ thread: string; records: Shown[] }> {
    const thread = newThread('tamper');
    for (let clock = 0; clock < RECORDS; clock++) {
      const answer = await postJson(source.url, '/v1/records', recordInput({ thread, actor: 'did:sync:user:author', clock, body: { n: clock }, judged_by: clock % 2 === 0 ? null : `did:sync:user:judge-${clock}` }));
      expect(answer.status, answer.text).to.equal(201);
    }
    return { thread, records: await threadRecords(source.url, thread) };
  }

  async function createPair(proxy: TamperingProxy, mode: 'polling' | 'continuous', thread: string): Promise<string> {
    const created = await postJson(target.url, '/v1/sync/pairs', { peer_did: sourceDid, peer_url: proxy.url, peer_token: peerToken, mode, poll_interval_ms: 50, thread_id: thread });
    expect(created.status, created.text).to.equal(201);
    return created.json.pair_id as string;
  }

  const pairOf = async (id: string) => (await get(target.url, `/v1/sync/pairs/${id}`)).json;

  const cases: ReadonlyArray<{ mutation: Mutation; code: string; what: string }> = [
    { mutation: 'judged_by', code: 'SIGNATURE_INVALID', what: 'judged_by replaced on every record' },
    { mutation: 'extra_field', code: 'SIGNATURE_INVALID', what: 'a field added to every record' },
    { mutation: 'body', code: 'TAMPERED', what: 'the body altered' },
    { mutation: 'replay', code: 'UNREQUESTED_PAGE', what: 'the first page replayed for every later request' },
    { mutation: 'skip', code: 'UNREQUESTED_PAGE', what: 'a later genuine page served instead of the next' },
  ];
  for (const mode of ['polling', 'continuous'] as const) {
    for (const { mutation, code, what } of cases) {
      it(`${mode}: ${what}: nothing tampered is stored, last_error ${code} at once, then exactly the source's records`, async () => {
        const { thread, records } = await sourceThread();
        const genuine = new Map(records.map((r) => [r.id, r]));
        const proxy = await new TamperingProxy(source.url, mutation).listen();
        let pairId: string | undefined;
        try {
          const started = Date.now();
          pairId = await createPair(proxy, mode, thread);
          const error = await until('the pair to report an error', async () => (await pairOf(pairId!)).last_error, 5_000);
          expect(error.code, JSON.stringify(error)).to.equal(code);
          expect(Date.now() - started, 'reported on the first pull that met the page').to.be.below(3_000);
          const stored = await threadRecords(target.url, thread);
          for (const record of stored) expect(record, 'only genuine records, judged_by included').to.deep.equal(genuine.get(record.id));
          // Only the replayed page itself (the genuine first page) may have been taken; every other mutation stores nothing.
          expect(stored.length, 'records stored while tampering').to.equal(mutation === 'replay' ? PAGE : 0);
          const stats = (await get(target.url, `/v1/sync/pairs/${pairId}/stats`)).json;
          expect(stats.errors_last_hour, 'the failure is counted').to.be.at.least(1);
          expect(stats.counters.pulled).to.equal(stored.length);

          proxy.mode = 'honest';
          await until('the target to hold every source record', async () => (await threadRecords(target.url, thread)).length === RECORDS, 10_000);
          expect(await threadRecords(target.url, thread), 'exactly the source records, none missing, none extra').to.deep.equal(records);
          expect((await pairOf(pairId)).state).to.equal('running');
        } finally {
          if (pairId) await request(target.url, 'DELETE', `/v1/sync/pairs/${pairId}`);
          await proxy.close();
        }
      });
    }
  }

  for (const { mode, mutation, code } of [
    { mode: 'polling', mutation: 'replay', code: 'UNREQUESTED_PAGE' },
    { mode: 'continuous', mutation: 'cut', code: 'NO_PROGRESS' },
  ] as const) {
    it(`${mode}: a pull that makes no progress (${mutation}) backs off instead of hammering the source`, async () => {
      const { thread } = await sourceThread();
      const proxy = await new TamperingProxy(source.url, mutation).listen();
      let pairId: string | undefined;
      try {
        pairId = await createPair(proxy, mode, thread);
        expect((await until('an error', async () => (await pairOf(pairId!)).last_error, 5_000)).code).to.equal(code);
        const before = proxy.changesRequests;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const pulls = proxy.changesRequests - before;
        // Backoff from 20 ms doubling to 200 ms allows about a dozen pulls in 1.5 s; without it, hundreds.
        expect(pulls, `changes requests in 1.5 s`).to.be.within(1, 25);
        expect((await pairOf(pairId)).retries).to.be.at.least(3);
      } finally {
        if (pairId) await request(target.url, 'DELETE', `/v1/sync/pairs/${pairId}`);
        await proxy.close();
      }
    });
  }

  it('the pair cap refuses one pair more with PAIR_LIMIT_REACHED, and admits again after a delete', async () => {
    const capped = await startServer({ federation: { maxPairs: 2, backoffBaseMs: 1_000 } });
    try {
      const pair = (n: number) => postJson(capped.url, '/v1/sync/pairs', { peer_did: sourceDid, peer_url: `http://127.0.0.1:9/invented-${n}`, peer_token: 'token-for-nobody', mode: 'polling' });
      const first = await pair(1);
      expect(first.status, first.text).to.equal(201);
      expect((await pair(2)).status).to.equal(201);
      expectEnvelope(await pair(3), 409, 'PAIR_LIMIT_REACHED');
      expect((await get(capped.url, '/v1/sync/pairs')).json.data).to.have.length(2);
      expect((await request(capped.url, 'DELETE', `/v1/sync/pairs/${first.json.pair_id}`)).status).to.equal(200);
      expect((await pair(4)).status).to.equal(201);
    } finally {
      await capped.stop();
    }
  });
});

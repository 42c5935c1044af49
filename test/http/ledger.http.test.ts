/**
 * The ledger plugin's records API as a client sees it: real loopback HTTP,
 * a real SQLite store in a temporary directory. Assertions are on statuses
 * and codes, never on message text, except where the spec says a message
 * names something. Threads, folds and configuration are in
 * ledger-threads.http.test.ts; discovery and the HTTP edge in
 * ledger-edge.http.test.ts; the LevelDB comparison in
 * ledger-backends.http.test.ts.
 */
import { expect } from 'chai';
import {
  collectPages,
  expectEnvelope,
  get,
  mapLimit,
  newThread,
  postJson,
  postRaw,
  recordInput,
  request,
  startServer,
  type HttpAnswer,
  type RecordInput,
  type StartedServer,
  postRecord,
} from '../helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:agent:bob';
const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);

/** JSON text of `input` with `field` written as raw JSON text (numbers JSON.stringify cannot write). */
function withRaw(input: RecordInput, field: string, raw: string): string {
  return JSON.stringify({ ...input, [field]: '__RAW__' }).replace('"__RAW__"', raw);
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const ingest = postRecord;

describe('ledger over HTTP: records (SQLite)', function () {
  let server: StartedServer;
  let url: string;

  before(async () => {
    server = await startServer();
    url = server.url;
  });
  after(() => server?.stop());

  describe('POST /v1/records', () => {
    it('stores a new record: 201, the record with its id, and a Location naming it', async () => {
      const input = recordInput({ act: 'INTEND', body: { goal: 'ship it' } });
      const created = await ingest(url, input);
      expect(created.status).to.equal(201);
      expect(created.json.id).to.match(/^[0-9a-f]{64}$/);
      expect(created.json).to.deep.include({ ...input, parents: [], judged_by: null });
      expect(created.headers.get('location')).to.equal(`/v1/records/${created.json.id}`);
    });

    it('answers an identical resend with 200 and the same body', async () => {
      const input = recordInput();
      const first = await ingest(url, input);
      const again = await ingest(url, input);
      expect(first.status).to.equal(201);
      expect(again.status).to.equal(200);
      expect(again.json).to.deep.equal(first.json);
    });

    it('refuses the same (actor, thread, clock) with other content: 409 DUPLICATE_CLOCK', async () => {
      const input = recordInput({ body: { n: 1 } });
      expect((await ingest(url, input)).status).to.equal(201);
      expectEnvelope(await ingest(url, { ...input, body: { n: 2 } }), 409, 'DUPLICATE_CLOCK');
      // Another actor on the same thread and clock has its own sequence; gaps are allowed.
      expect((await ingest(url, { ...input, actor: BOB, body: { n: 2 } })).status).to.equal(201);
      expect((await ingest(url, { ...input, clock: 7, body: { n: 2 } })).status).to.equal(201);
    });

    const invalid: Array<[string, () => RecordInput | string]> = [
      ['not an object (array)', () => '[]'],
      ['not an object (null)', () => 'null'],
      ['not JSON', () => '{"thread":'],
      ['an unknown field', () => recordInput({ extra: 1 })],
      ...(['thread', 'actor', 'act', 'body', 'clock', 'data_type'] as const).map((field): [string, () => RecordInput] => [
        `${field} missing`,
        () => {
          const input = recordInput();
          delete input[field];
          return input;
        },
      ]),
      ['thread without th_', () => recordInput({ thread: HEX_A })],
      ['thread with upper-case hex', () => recordInput({ thread: 'th_' + 'A'.repeat(64) })],
      ['thread too short', () => recordInput({ thread: 'th_abc' })],
      ['thread an unknown reserved name', () => recordInput({ thread: 'th_not_reserved' })],
      ['thread a number', () => recordInput({ thread: 42 })],
      ['actor not a DID', () => recordInput({ actor: 'alice' })],
      ['actor with an unsupported DID method', () => recordInput({ actor: 'did:example:alice' })],
      ['actor did:sync with an unknown kind', () => recordInput({ actor: 'did:sync:robot:x' })],
      ['actor did:key without a multibase key', () => recordInput({ actor: 'did:key:abc' })],
      ['actor a number', () => recordInput({ actor: 7 })],
      ['act lower case', () => recordInput({ act: 'intend' })],
      ['act not one of the 8', () => recordInput({ act: 'JUMP' })],
      ['act null', () => recordInput({ act: null })],
      ['body a string', () => recordInput({ body: 'text' })],
      ['body an array', () => recordInput({ body: [] })],
      ['body null', () => recordInput({ body: null })],
      ['body nested 65 levels', () => recordInput({ body: nested(65) as RecordInput })],
      ['body with a lone surrogate', () => JSON.stringify(recordInput({ body: { s: '__S__' } })).replace('__S__', '\\ud800')],
      ['body.namespace not a string', () => recordInput({ body: { namespace: 5 } })],
      ['clock negative', () => recordInput({ clock: -1 })],
      ['clock fractional', () => recordInput({ clock: 1.5 })],
      ['clock a string', () => recordInput({ clock: '3' })],
      ['clock above 2^53-1', () => recordInput({ clock: 2 ** 53 })],
      ['clock beyond i64 (raw)', () => withRaw(recordInput(), 'clock', '9223372036854775808')],
      ['clock 1e400 (raw)', () => withRaw(recordInput(), 'clock', '1e400')],
      ['data_type lower case', () => recordInput({ data_type: 'scalar' })],
      ['data_type not one of the 6', () => recordInput({ data_type: 'TEXT' })],
      ['parents null', () => recordInput({ parents: null })],
      ['parents a string', () => recordInput({ parents: HEX_A })],
      ['parents with a non-id', () => recordInput({ parents: ['nothex'] })],
      ['parents unsorted', () => recordInput({ parents: [HEX_B, HEX_A] })],
      ['parents with a duplicate', () => recordInput({ parents: [HEX_A, HEX_A] })],
      ['parents over 1000 entries', () => recordInput({ parents: Array.from({ length: 1001 }, (_, i) => i.toString(16).padStart(64, '0')) })],
      ['judged_by a number', () => recordInput({ judged_by: 5 })],
      ['judged_by empty', () => recordInput({ judged_by: '' })],
      ['id that is not the computed id', () => recordInput({ id: 'f'.repeat(64) })],
    ];
    for (const [name, make] of invalid) {
      it(`refuses ${name}: 400 INVALID_SHAPE`, async () => {
        expectEnvelope(await ingest(url, make()), 400, 'INVALID_SHAPE', name);
      });
    }

    // judged_by is not hashed, so canonicalisation never sees it: the validator refuses lone surrogates itself.
    it('refuses judged_by with a lone surrogate: 400 INVALID_SHAPE', async () => {
      const input = JSON.stringify(recordInput({ judged_by: '__J__' })).replace('__J__', 'x\\ud800y');
      expectEnvelope(await ingest(url, input), 400, 'INVALID_SHAPE');
    });

    it('refuses bytes that are not UTF-8: 400 INVALID_SHAPE', async () => {
      const bytes = Buffer.concat([Buffer.from('{"thread":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      expectEnvelope(await postRaw(url, '/v1/records', bytes), 400, 'INVALID_SHAPE');
    });

    it('narrows namespaces: 403 NAMESPACE_REJECTED naming the missing ancestor, until it is declared', async () => {
      const input = recordInput({ body: { namespace: 'acme/web', goal: 'x' } });
      const declare = (namespace_id: string, clock: number, state?: string) =>
        ingest(url, recordInput({ thread: 'th_namespace_registry', act: 'LEARN', body: { namespace_id, ...(state ? { state } : {}) }, clock }));

      const refused = await ingest(url, input);
      expectEnvelope(refused, 403, 'NAMESPACE_REJECTED');
      expect(refused.json.type).to.equal('invalid_request_error');
      expect(refused.json.message).to.include('"acme"');

      expect((await declare('acme', 0)).status).to.equal(201);
      const stillRefused = await ingest(url, input);
      expectEnvelope(stillRefused, 403, 'NAMESPACE_REJECTED');
      expect(stillRefused.json.message).to.include('"acme/web"');

      expect((await declare('acme/web', 1)).status).to.equal(201);
      expect((await ingest(url, input)).status).to.equal(201);

      // An archived ancestor refuses again, and is named.
      expect((await declare('acme', 2, 'archived')).status).to.equal(201);
      const archived = await ingest(url, { ...input, clock: 1 });
      expectEnvelope(archived, 403, 'NAMESPACE_REJECTED');
      expect(archived.json.message).to.include('"acme"');
    });
  });

  describe('GET /v1/records/{id}', () => {
    it('returns the stored record', async () => {
      const created = await ingest(url, recordInput({ body: { hello: 'world' }, judged_by: HEX_A }));
      const fetched = await get(url, `/v1/records/${created.json.id}`);
      expect(fetched.status).to.equal(200);
      expect(fetched.json).to.deep.equal(created.json);
    });

    it('answers 404 NOT_FOUND for an unknown id', async () => {
      expectEnvelope(await get(url, `/v1/records/${'0'.repeat(64)}`), 404, 'NOT_FOUND');
    });

    for (const bad of ['xyz', 'A'.repeat(64), '0'.repeat(63), '0'.repeat(65)]) {
      it(`answers 400 INVALID_SHAPE for the malformed id ${bad.slice(0, 8)}… (${bad.length} chars)`, async () => {
        expectEnvelope(await get(url, `/v1/records/${bad}`), 400, 'INVALID_SHAPE');
      });
    }
  });

  describe('GET /v1/records?thread= and ?actor=', () => {
    const actor = 'did:sync:agent:pager';
    const threads = [newThread(), newThread(), newThread()];
    const byThread = new Map<string, string[]>();
    const byActor: string[] = [];

    before(async () => {
      // In order, so log order is known: the actor writes 6 records on each thread, interleaved, and alice 2 per thread.
      for (let clock = 0; clock < 6; clock++) {
        for (const thread of threads) {
          const mine = await ingest(url, recordInput({ thread, actor, clock, body: { clock } }));
          byActor.push(mine.json.id);
          byThread.set(thread, [...(byThread.get(thread) ?? []), mine.json.id]);
          if (clock < 2) {
            const theirs = await ingest(url, recordInput({ thread, clock, body: { by: 'alice' } }));
            byThread.get(thread)!.push(theirs.json.id);
          }
        }
      }
    });

    it('pages a thread in log order with no duplicate and no gap', async () => {
      const thread = threads[1]!;
      const { items, pages } = await collectPages(url, `/v1/records?thread=${thread}`, 3);
      expect(items.map((r) => r.id)).to.deep.equal(byThread.get(thread));
      expect(items.every((r) => r.thread === thread)).to.equal(true);
      expect(pages).to.equal(3);
    });

    it('pages an actor across threads in log order with no duplicate and no gap', async () => {
      const { items } = await collectPages(url, `/v1/records?actor=${encodeURIComponent(actor)}`, 4);
      expect(items.map((r) => r.id)).to.deep.equal(byActor);
      expect(items.every((r) => r.actor === actor)).to.equal(true);
    });

    it('the default page holds everything when it fits', async () => {
      const page = await get(url, `/v1/records?thread=${threads[0]}`);
      expect(page.json.data.map((r: any) => r.id)).to.deep.equal(byThread.get(threads[0]!));
      expect(page.json.has_more).to.equal(false);
    });

    const badQueries: Array<[string, string]> = [
      ['neither thread nor actor', ''],
      ['both thread and actor', `?thread=${newThread()}&actor=${encodeURIComponent(ALICE)}`],
      ['a limit that is not a number', `?thread=${newThread()}&limit=ten`],
      ['a cursor that is not a cursor', `?thread=${newThread()}&after=abc`],
      ['an unknown parameter', `?thread=${newThread()}&colour=red`],
    ];
    for (const [name, query] of badQueries) {
      it(`answers 400 INVALID_SHAPE for ${name}`, async () => {
        expectEnvelope(await get(url, `/v1/records${query}`), 400, 'INVALID_SHAPE');
      });
    }
  });

  describe('POST /v1/records/query', () => {
    const thread = newThread();
    const other = newThread();
    const acts = ['INTEND', 'DO', 'KNOW', 'LEARN'];
    const query = (body: unknown) => postJson(url, '/v1/records/query', body);
    const clocksOf = (answer: HttpAnswer): number[] => answer.json.data.map((r: any) => r.clock);

    before(async () => {
      // 12 records on `thread`: clock i, act acts[i % 4], priority i % 5, kind on even clocks.
      for (let i = 0; i < 12; i++) {
        const body = { priority: i % 5, ...(i % 2 === 0 ? { kind: 'code_review.request.v1' } : { title: `t${i}` }) };
        expect((await ingest(url, recordInput({ thread, act: acts[i % 4], clock: i, body }))).status).to.equal(201);
      }
      expect((await ingest(url, recordInput({ thread: other, act: 'INTEND', body: { kind: 'code_review.request.v1', priority: 4 } }))).status).to.equal(201);
    });

    const filters: Array<[string, unknown, number[]]> = [
      ['a column equality (sugar for $eq)', { act: 'KNOW' }, [2, 6, 10]],
      ['$gte on a body member', { 'body.priority': { $gte: 3 } }, [3, 4, 8, 9]],
      ['$in on a column', { act: { $in: ['INTEND', 'LEARN'] } }, [0, 3, 4, 7, 8, 11]],
      ['$or of two conditions', { $or: [{ clock: { $lt: 2 } }, { clock: { $gt: 10 } }] }, [0, 1, 11]],
      ['$like on a body member', { 'body.kind': { $like: 'code_review.%' } }, [0, 2, 4, 6, 8, 10]],
      ['$exists false', { 'body.kind': { $exists: false } }, [1, 3, 5, 7, 9, 11]],
      ['$not', { $not: { clock: { $gte: 2 } } }, [0, 1]],
      ['$regex with $options', { 'body.title': { $regex: '^T1', $options: 'i' } }, [1, 11]],
      ['two top-level keys (AND)', { act: 'DO', 'body.priority': { $ne: 0 } }, [1, 9]],
    ];
    for (const [name, filter, clocks] of filters) {
      it(`filters with ${name}`, async () => {
        const answer = await query({ thread, filter });
        expect(answer.status, answer.text).to.equal(200);
        expect(clocksOf(answer)).to.deep.equal(clocks);
        expect(answer.json.matched_total).to.equal(clocks.length);
        expect(answer.json.capped).to.equal(false);
        expect(answer.json.data.every((r: any) => r.thread === thread)).to.equal(true);
      });
    }

    it('thread in the filter works like the shorthand', async () => {
      const answer = await query({ filter: { thread, act: 'KNOW' } });
      expect(clocksOf(answer)).to.deep.equal([2, 6, 10]);
    });

    it('sorts on one key, either direction', async () => {
      expect(clocksOf(await query({ thread, sort: { clock: -1 }, limit: 3 }))).to.deep.equal([11, 10, 9]);
      const byPriority = await query({ thread, sort: { 'body.priority': 1 } });
      const priorities = byPriority.json.data.map((r: any) => r.body.priority);
      expect(priorities).to.deep.equal([...priorities].sort((a, b) => a - b));
    });

    it('pages with limit and offset; capped says more rows exist', async () => {
      const page = await query({ thread, limit: 5, offset: 5 });
      expect(clocksOf(page)).to.deep.equal([5, 6, 7, 8, 9]);
      expect(page.json.capped).to.equal(true);
      expect(page.json.matched_total).to.equal(12);
      const last = await query({ thread, limit: 5, offset: 10 });
      expect(clocksOf(last)).to.deep.equal([10, 11]);
      expect(last.json.capped).to.equal(false);
    });

    it('explain adds the plan with sql, bind_count, indexed_fields and unindexed_fields', async () => {
      const answer = await query({ thread, filter: { 'body.priority': 1 }, explain: true });
      expect(answer.status).to.equal(200);
      expect(answer.json.plan).to.have.all.keys('sql', 'bind_count', 'indexed_fields', 'unindexed_fields');
      expect(answer.json.plan.sql).to.be.a('string').that.is.not.empty;
      expect(answer.json.plan.bind_count).to.be.a('number');
      expect(answer.json.plan.indexed_fields).to.be.an('array');
      expect(answer.json.plan.unindexed_fields).to.be.an('array');
      expect((await query({ thread })).json).to.not.have.property('plan');
    });

    const invalidQueries: Array<[string, unknown]> = [
      ['an unknown field operator', { filter: { clock: { $foo: 1 } } }],
      ['an unknown logical operator', { filter: { $nor: [{ clock: 1 }] } }],
      ['an unknown field path', { filter: { colour: 'red' } }],
      ['bare body as a path', { filter: { body: 1 } }],
      ['a body path with a bad segment', { filter: { 'body.a b': 1 } }],
      ['a type mismatch (clock: "x")', { filter: { clock: 'x' } }],
      ['a type mismatch (act: 5)', { filter: { act: 5 } }],
      ['an act outside the enum', { filter: { act: 'JUMP' } }],
      ['a filter that is an array', { filter: [] }],
      ['a filter that is a string', { filter: 'clock = 1' }],
      ['an empty $and', { filter: { $and: [] } }],
      ['$or that is not an array', { filter: { $or: { clock: 1 } } }],
      ['an empty operator document', { filter: { clock: {} } }],
      ['object equality', { filter: { 'body.a': { b: 1 } } }],
      ['$in that is not an array', { filter: { clock: { $in: 1 } } }],
      ['an invalid $regex', { filter: { 'body.title': { $regex: '(' } } }],
      ['ordering on null', { filter: { clock: { $gt: null } } }],
      ['a filter nested deeper than 10', { filter: nested(12) }],
      ['sort with two keys', { sort: { clock: 1, act: 1 } }],
      ['sort direction 2', { sort: { clock: 2 } }],
      ['a negative limit', { limit: -1 }],
      ['a string limit', { limit: '10' }],
      ['a fractional offset', { offset: 1.5 }],
      ['explain not a boolean', { explain: 'yes' }],
      ['thread not a string', { thread: 5 }],
      ['an unknown top-level field', { where: {} }],
      ['a body that is not an object', [1, 2]],
    ];
    for (const [name, body] of invalidQueries) {
      it(`refuses ${name}: 400 INVALID_QUERY`, async () => {
        expectEnvelope(await query(body), 400, 'INVALID_QUERY', name);
      });
    }

    it('refuses a body that is not JSON or not UTF-8: 400 INVALID_QUERY', async () => {
      expectEnvelope(await postRaw(url, '/v1/records/query', '{"filter":'), 400, 'INVALID_QUERY');
      expectEnvelope(await postRaw(url, '/v1/records/query', Buffer.from([0x7b, 0xff, 0x7d])), 400, 'INVALID_QUERY');
    });

    it('an empty body means match everything', async () => {
      const answer = await request(url, 'POST', '/v1/records/query');
      expect(answer.status).to.equal(200);
      expect(answer.json.matched_total).to.be.at.least(13);
    });
  });

  describe('POST /v1/records/query: limit clamp', () => {
    const thread = newThread();
    const total = 1005;

    before(async function () {
      this.timeout(60_000);
      const statuses = await mapLimit(Array.from({ length: total }, (_, clock) => clock), 16, async (clock) => (await ingest(url, recordInput({ thread, clock }))).status);
      expect(statuses.every((s) => s === 201)).to.equal(true);
    });

    const cases: Array<[string, unknown, number, boolean]> = [
      ['limit 5000 over 1005 rows', {}, 1000, true],
      ['limit 5000 over exactly 1000 rows', { clock: { $lt: 1000 } }, 1000, false],
      ['limit 5000 over 999 rows', { clock: { $lt: 999 } }, 999, false],
    ];
    for (const [name, filter, rows, capped] of cases) {
      it(`${name}: ${rows} rows, capped ${capped}`, async () => {
        const answer = await postJson(url, '/v1/records/query', { thread, filter, limit: 5000 });
        expect(answer.status).to.equal(200);
        expect(answer.json.data).to.have.length(rows);
        expect(answer.json.capped).to.equal(capped);
        expect(answer.json.matched_total).to.equal(capped ? total : rows);
      });
    }

    it('the default limit is 100', async () => {
      const answer = await postJson(url, '/v1/records/query', { thread });
      expect(answer.json.data).to.have.length(100);
      expect(answer.json.capped).to.equal(true);
    });
  });
});

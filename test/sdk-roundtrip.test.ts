/**
 * The generated SDK, through createLoomClient, against a live server on
 * 127.0.0.1 with a temporary SQLite store (hey-api's fastify example, pets.test.ts).
 * Asserts success bodies and, for refusals, the status and the typed
 * ErrorEnvelope's code (never message text).
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { publishedDocumentPath } from '../server/openapi/published-document.js';
import { computeRecordId, createLoomClient, newThreadNonce, taskThreadId, type ErrorEnvelope, type LoomClient, type RecordInput } from '../sdk/index.js';
import { startServer, type StartedServer } from './helpers/start-server.js';

const ALICE = 'did:sync:agent:alice';
const BOB = 'did:sync:agent:bob';
const UNKNOWN_ID = '0'.repeat(64);

/** Fields of a DO record by `actor` on `thread`; valid both as an ingest body and as computeRecordId input. */
function draft(thread: string, actor: string, clock: number, body: { [key: string]: string | number } = { step: clock }) {
  return { parents: [] as string[], thread, actor, act: 'DO' as const, body, clock, data_type: 'SCALAR' as const };
}

/** `error` is typed from the operation's declared errors: ErrorEnvelope, no cast needed. */
function expectRefusal(result: { data?: unknown; error?: ErrorEnvelope; response: Response }, status: number, code: string): void {
  expect(result.response.status).to.equal(status);
  expect(result.data).to.equal(undefined);
  expect(result.error?.object).to.equal('error');
  expect(result.error?.code).to.equal(code);
}

describe('sdk round trip (generated client against a live server)', () => {
  let server: StartedServer;
  let loom: LoomClient;
  const thread = taskThreadId('sdk-roundtrip', newThreadNonce());
  const ids: string[] = [];

  before(async () => {
    server = await startServer({ federation: {} });
    loom = createLoomClient({ baseUrl: server.url });
  });

  after(async () => {
    await server?.stop();
  });

  describe('ingestRecord', () => {
    it('stores a new record (201) whose id the client computes identically', async () => {
      const fields = draft(thread, ALICE, 0);
      const { data, error, response } = await loom.ingestRecord({ body: fields });
      expect(error).to.equal(undefined);
      expect(response.status).to.equal(201);
      expect(data!.id).to.equal(computeRecordId(fields));
      expect(data).to.deep.include({ ...fields, judged_by: null });
      ids.push(data!.id);
    });

    it('answers an identical resend with 200 and the same id', async () => {
      const { data, response } = await loom.ingestRecord({ body: draft(thread, ALICE, 0) });
      expect(response.status).to.equal(200);
      expect(data!.id).to.equal(ids[0]);
    });

    it('refuses other content under the same (actor, thread, clock): 409 DUPLICATE_CLOCK', async () => {
      expectRefusal(await loom.ingestRecord({ body: draft(thread, ALICE, 0, { step: 'other' }) }), 409, 'DUPLICATE_CLOCK');
    });

    it('refuses a malformed record: 400 INVALID_SHAPE', async () => {
      const body: RecordInput = { ...draft(thread, ALICE, 1), clock: -1 };
      expectRefusal(await loom.ingestRecord({ body }), 400, 'INVALID_SHAPE');
    });

    it('stores four more records, ids matching the client-side computation', async () => {
      for (const fields of [draft(thread, ALICE, 1), draft(thread, BOB, 0), draft(thread, ALICE, 2), draft(thread, BOB, 1)]) {
        const { data, response } = await loom.ingestRecord({ body: fields });
        expect(response.status).to.equal(201);
        expect(data!.id).to.equal(computeRecordId(fields));
        ids.push(data!.id);
      }
    });
  });

  describe('reads', () => {
    it('getRecord returns the stored record', async () => {
      const { data, response } = await loom.getRecord({ path: { id: ids[0]! } });
      expect(response.status).to.equal(200);
      expect(data).to.deep.equal({ id: ids[0], ...draft(thread, ALICE, 0), judged_by: null });
    });

    it('getRecord of an unknown id: 404 NOT_FOUND', async () => {
      expectRefusal(await loom.getRecord({ path: { id: UNKNOWN_ID } }), 404, 'NOT_FOUND');
    });

    it('listRecords pages a thread in log order, following next_cursor', async () => {
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      for (;;) {
        const { data } = await loom.listRecords({ query: { thread, limit: 2, ...(after ? { after } : {}) } });
        pages += 1;
        expect(data!.object).to.equal('list');
        expect(data!.data.length).to.be.at.most(2);
        seen.push(...data!.data.map((record) => record.id));
        expect(data!.has_more).to.equal(data!.next_cursor !== null);
        if (data!.next_cursor === null) break;
        after = data!.next_cursor;
      }
      expect(seen).to.deep.equal(ids);
      expect(pages).to.equal(3);
    });

    it('queryRecords filters and explains its plan', async () => {
      const { data, response } = await loom.queryRecords({ body: { thread, filter: { actor: BOB }, sort: { clock: 1 }, explain: true } });
      expect(response.status).to.equal(200);
      expect(data!.data.map((record) => record.id)).to.deep.equal([ids[2], ids[4]]);
      expect(data!.matched_total).to.equal(2);
      expect(data!.capped).to.equal(false);
      expect(data!.plan).to.be.an('object');
      expect(data!.plan!.sql).to.be.a('string');
    });

    it('queryRecords refuses an unknown field: 400 INVALID_QUERY', async () => {
      expectRefusal(await loom.queryRecords({ body: { filter: { no_such_field: 1 } } }), 400, 'INVALID_QUERY');
    });
  });

  describe('threads', () => {
    it('listThreads includes the thread with its record count', async () => {
      const { data } = await loom.listThreads({ query: { limit: 100 } });
      const summary = data!.data.find((t) => t.thread === thread);
      expect(summary).to.deep.include({ object: 'thread', thread, record_count: 5 });
    });

    it('getThreadState reports the highest clock per actor', async () => {
      const { data } = await loom.getThreadState({ path: { id: thread } });
      expect(data!.fold_name).to.equal('thread_state');
      expect(data!.value.actor_clocks).to.deep.equal({ [ALICE]: 2, [BOB]: 1 });
      expect(data!.value.record_count).to.equal(5);
    });

    it('getThreadParticipants lists both actors with their next clock', async () => {
      const { data } = await loom.getThreadParticipants({ path: { id: thread } });
      expect(data!.data.map((p) => [p.actor, p.next_clock])).to.deep.equal([
        [ALICE, 3],
        [BOB, 2],
      ]);
    });

    it('projectThread renders both formats', async () => {
      const tui = await loom.projectThread({ path: { id: thread }, query: { format: 'tui' } });
      expect(tui.data!.format).to.equal('tui');
      expect(tui.data!.text).to.be.a('string').and.not.be.empty;
      const messages = await loom.projectThread({ path: { id: thread }, query: { format: 'messages' } });
      expect(messages.data!.format).to.equal('messages');
      expect(messages.data!.messages!.map((m) => m.record_id)).to.deep.equal(ids);
    });
  });

  describe('discovery', () => {
    it('getCapabilities describes this instance', async () => {
      const { data } = await loom.getCapabilities();
      expect(data!.object).to.equal('capabilities_manifest');
      expect(data!.store_backend).to.equal('sqlite');
      expect(data!.capabilities['records.ingest']).to.equal(true);
    });

    it('getHealth is up', async () => {
      const { data } = await loom.getHealth();
      expect(data!.status).to.equal('ok');
    });

    it('getOpenApi serves the committed contract', async () => {
      const { data } = await loom.getOpenApi();
      expect(data).to.deep.equal(JSON.parse(await readFile(publishedDocumentPath(), 'utf8')));
    });
  });

  describe('client options', () => {
    it('sends the token as a Bearer header on scoped operations only, through the given fetch', async () => {
      const seen = new Map<string, string | null>();
      const spy: typeof fetch = async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init);
        seen.set(new URL(request.url).pathname, request.headers.get('authorization'));
        return fetch(request);
      };
      const client = createLoomClient({ baseUrl: server.url, token: 't0ken', fetch: spy });
      await client.getRecord({ path: { id: ids[0]! } });
      await client.getHealth();
      expect(seen.get(`/v1/records/${ids[0]}`)).to.equal('Bearer t0ken');
      expect(seen.get('/health')).to.equal(null);
    });
  });
});

describe('sdk with auth required (token once per client)', () => {
  let server: StartedServer;

  before(async () => {
    server = await startServer({ auth: { required: true } });
  });
  after(async () => server.stop());

  it('bootstraps, then every call of a client made with the token is authenticated; one without is refused', async () => {
    const { mintSecret, tokenIdOf, formatBearer } = await import('../plugins/auth/bearer-token.js');
    const anonymous = createLoomClient({ baseUrl: server.url });
    const secret = mintSecret();
    const boot = await anonymous.bootstrapServiceAccount({ body: { service_account_id: 'sa_sdk', display_name: 'sdk', with_token: { token_id: tokenIdOf(secret) } } });
    expect(boot.response.status).to.equal(201);
    expect(boot.data?.service_account_id).to.equal('sa_sdk');
    const thread = taskThreadId('sdk-auth', newThreadNonce());
    expectRefusal(await anonymous.ingestRecord({ body: draft(thread, ALICE, 0) as RecordInput }), 401, 'AUTH_REQUIRED');

    const loom = createLoomClient({ baseUrl: server.url, token: formatBearer('prod', 'sa_sdk', secret) });
    const stored = await loom.ingestRecord({ body: draft(thread, ALICE, 0) as RecordInput });
    expect(stored.response.status).to.equal(201);
    expect((await loom.getIdentity()).data).to.include({ service_account_id: 'sa_sdk', is_authenticated: true });
    const created = await loom.createServiceAccount({ body: { name: 'reader', scopes: ['records:read'] } });
    expect(created.data?.api_key).to.be.a('string');
    const reader = createLoomClient({ baseUrl: server.url, token: async () => created.data!.api_key! });
    expect((await reader.getThreadState({ path: { id: thread } })).data?.value.record_count).to.equal(1);
    expectRefusal(await reader.ingestRecord({ body: draft(thread, ALICE, 1) as RecordInput }), 403, 'SCOPE_FORBIDDEN');
  });
});

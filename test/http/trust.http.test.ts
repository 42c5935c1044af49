/**
 * The trust plugin over loopback HTTP (auth required, SQLite): GET /v1/trust
 * (rows, filters, the all-judges grouping, paging), the generic
 * GET /v1/folds/trust, GET /v1/folds/principal_trust (DIDs merged through
 * real grants, ETag and 304, the root parameter), an alias judging its own
 * principal's work left out, decay under a driven clock, and a
 * thread-grained credential whose answers rest only on its thread.
 *
 * The server is composed here (ledger, auth, trust, actors) rather than with
 * startServer, so the test does not depend on the reference server's
 * plugin list.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../core/plugin/logger.js';
import { createLoom, type Loom } from '../../core/server/create-loom.js';
import { actorsPlugin } from '../../plugins/actors/index.js';
import { authPlugin } from '../../plugins/auth/index.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';
import { trustPlugin } from '../../plugins/trust/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, request } from '../helpers/http-server.js';

const DAY_MS = 86_400_000;
const LEAD = 'did:sync:user:lead';
const BOB = 'did:sync:agent:bob';
const REVIEWER = 'did:sync:user:reviewer';
const AUDITOR = 'did:sync:user:auditor';
const ALICE = 'did:sync:user:alice';
const ALICE_BOT = 'did:sync:agent:alice-bot';

describe('trust over HTTP', function () {
  this.timeout(60_000);
  let loom: Loom;
  let dataDir: string;
  let url: string;
  let admin: Credential;
  let offset = 0;
  const clocks = new Map<string, number>();
  const THREAD_A = newThread('trust-a');
  const THREAD_B = newThread('trust-b');

  const post = async (thread: string, actor: string, act: string, body: Record<string, unknown>, judged_by: string | null = null): Promise<string> => {
    const slot = `${actor} ${thread}`;
    const clock = (clocks.get(slot) ?? -1) + 1;
    clocks.set(slot, clock);
    const answer = await request(url, 'POST', '/v1/records', { json: { parents: [], thread, actor, act, body, clock, data_type: 'SCALAR', judged_by }, headers: bearer(admin) });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  };
  /** A task on `thread` assigned to `worker`, its claim, and a verdict by each [judge, word]. */
  const judgedTask = async (thread: string, worker: string, domain: string, verdicts: Array<[string, string]>) => {
    const task = await post(thread, LEAD, 'INTEND', { task: true, goal: 'ship it', assigned_to: worker, domain });
    const claim = await post(thread, worker, 'KNOW', { fulfills: task, summary: 'shipped' });
    const ids: string[] = [];
    for (const [judge, word] of verdicts) ids.push(await post(thread, judge, 'KNOW', { fulfills: claim, verdict: word, summary: 'reviewed' }, claim));
    return ids;
  };
  const trust = async (query = '', who: Credential = admin) => {
    const answer = await get(url, `/v1/trust${query}`, bearer(who));
    expect(answer.status, answer.text).to.equal(200);
    return answer.json;
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'loom-trust-http-'));
    loom = await createLoom({
      store: new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite'), durability: 'normal' }),
      dataDir,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      clock: () => Date.now() + offset,
      plugins: [ledgerPlugin, { plugin: authPlugin, options: { required: true } }, trustPlugin, actorsPlugin],
    });
    url = await loom.start();
    admin = await bootstrapAdmin(url);
    // Alice joins (a membership grant) and delegates to her bot: the bot resolves to her (spec §5.4 rule 8).
    const invite = await request(url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label: 'alice' } }, headers: bearer(admin) });
    expect(invite.status, invite.text).to.equal(201);
    const joined = await request(url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
    expect(joined.status, joined.text).to.equal(201);
    expect(joined.json.principal).to.equal(ALICE);
    const bot = await request(url, 'POST', '/v1/grants', { json: { aud: ALICE_BOT, scopes: ['records:read'], with_token: true }, headers: bearer(joined.json.token) });
    expect(bot.status, bot.text).to.equal(201);

    await judgedTask(THREAD_A, BOB, 'code', [
      [REVIEWER, 'accept'],
      [AUDITOR, 'reject'],
    ]);
    await judgedTask(THREAD_A, BOB, 'code', [[REVIEWER, 'approved']]);
    await judgedTask(THREAD_B, ALICE, 'docs', [
      [REVIEWER, 'accept'],
      [ALICE_BOT, 'accept'], // her own alias: no evidence, at read time
    ]);
    await judgedTask(THREAD_B, ALICE_BOT, 'docs', [[AUDITOR, 'pass']]);
  });
  after(async () => {
    await loom?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('GET /v1/trust: one row per (actor, domain, judge), best first, with counts, weights and score', async () => {
    const list = await trust();
    expect(list).to.include({ object: 'list', has_more: false, next_cursor: null, half_life_days: 90 });
    expect(list.watermark).to.be.a('number').greaterThan(0);
    expect(Date.parse(list.as_of) % 60_000).to.equal(0);
    const rows = list.data.map((r: any) => [r.actor, r.domain, r.judged_by, r.successes, r.failures]);
    expect(rows).to.have.deep.members([
      [BOB, 'code', REVIEWER, 2, 0],
      [BOB, 'code', AUDITOR, 0, 1],
      [ALICE, 'docs', REVIEWER, 1, 0],
      [ALICE_BOT, 'docs', AUDITOR, 1, 0],
    ]);
    expect(list.data[0]).to.deep.include({ object: 'trust_score', actor: BOB, judged_by: REVIEWER, total: 2, raw_rate: 1, judges: 1 });
    expect(list.data[0].score).to.be.closeTo(0.3424, 1e-4); // Wilson lower bound of 2/2
    expect(list.data[0].weighted_total).to.be.closeTo(2, 1e-3);
    expect(list.data[0].last_verdict).to.match(/^[0-9a-f]{64}$/);
    const scores = list.data.map((r: any) => r.score);
    expect(scores).to.deep.equal([...scores].sort((a: number, b: number) => b - a));
    expect(list.stats).to.deep.include({ verdicts: 6, in_force: 6, self_judgments: 0, unattributed: 0 });
  });

  it('filters, aggregates all judges with group=actor_domain, and pages', async () => {
    expect((await trust(`?actor=${BOB}`)).data).to.have.length(2);
    expect((await trust(`?judged_by=${AUDITOR}`)).data.map((r: any) => r.actor).sort()).to.deep.equal([ALICE_BOT, BOB].sort());
    expect((await trust('?domain=docs')).data).to.have.length(2);
    const grouped = await trust(`?actor=${BOB}&group=actor_domain`);
    expect(grouped.data).to.have.length(1);
    expect(grouped.data[0]).to.deep.include({ actor: BOB, domain: 'code', judged_by: null, judges: 2, successes: 2, failures: 1, total: 3 });
    const first = await trust('?limit=3');
    expect(first.data).to.have.length(3);
    expect(first).to.include({ has_more: true, next_cursor: '3' });
    const rest = await trust(`?limit=3&after=${first.next_cursor}`);
    expect(rest).to.include({ has_more: false, next_cursor: null });
    expect([...first.data, ...rest.data]).to.deep.equal((await trust()).data);
    // Out-of-bounds limits are clamped (spec §8), a limit that is not a number is refused.
    expect((await trust('?limit=0')).data).to.have.length(1);
    for (const bad of ['?group=everyone', '?limit=x', '?after=x', '?colour=red']) expectEnvelope(await get(url, `/v1/trust${bad}`, bearer(admin)), 400, 'INVALID_SHAPE', bad);
    expectEnvelope(await get(url, '/v1/trust'), 401, 'AUTH_REQUIRED');
  });

  it('leaves out a verdict by an alias on its own principal’s work (resolved through the grant)', async () => {
    const rows = (await trust(`?actor=${ALICE}`)).data;
    expect(rows.map((r: any) => r.judged_by)).to.deep.equal([REVIEWER]);
  });

  it('GET /v1/folds/trust is the fold’s value: the same rows', async () => {
    const answer = await get(url, '/v1/folds/trust', bearer(admin));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.fold_name).to.equal('trust');
    expect(answer.json.value.rows).to.deep.equal((await trust('?limit=1000')).data);
  });

  it('GET /v1/folds/principal_trust merges a person’s DIDs, serves its cache key as an ETag and answers 304', async () => {
    const answer = await get(url, '/v1/folds/principal_trust', bearer(admin));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json).to.include({ fold_name: 'principal_trust' });
    expect(answer.json.cache_key).to.match(/^principal_trust@\d+:\d+$/);
    expect(answer.headers.get('etag')).to.equal(`"${answer.json.cache_key}"`);
    expect(answer.json.value).to.include({ root: '⊤', half_life_days: 90 });
    const alice = answer.json.value.rows.find((r: any) => r.principal === ALICE);
    expect(alice).to.deep.include({ object: 'principal_trust', domain: 'docs', dids: [ALICE_BOT, ALICE].sort(), successes: 2, failures: 0, judges: 2 });
    expect(answer.json.value.rows.find((r: any) => r.principal === BOB)).to.deep.include({ dids: [BOB], successes: 2, failures: 1 });
    const again = await request(url, 'GET', '/v1/folds/principal_trust', { headers: { ...bearer(admin), 'if-none-match': answer.headers.get('etag')! } });
    expect(again.status).to.equal(304);
    const whole = await get(url, `/v1/folds/principal_trust?root=${encodeURIComponent('⊤')}`, bearer(admin));
    expect(whole.status).to.equal(200);
    expect(whole.json.value).to.deep.equal(answer.json.value);
    expectEnvelope(await get(url, '/v1/folds/principal_trust?root=did:web:peer.example', bearer(admin)), 400, 'INVALID_SHAPE');
  });

  it('a new verdict changes the cache key; 90 days later every verdict weighs half', async () => {
    const before = (await get(url, '/v1/folds/principal_trust', bearer(admin))).json.cache_key;
    await judgedTask(THREAD_A, BOB, 'code', [[REVIEWER, 'accept']]);
    const after = (await get(url, '/v1/folds/principal_trust', bearer(admin))).json.cache_key;
    expect(after).to.not.equal(before);
    const fresh = (await trust(`?actor=${BOB}&judged_by=${REVIEWER}`)).data[0];
    offset = 90 * DAY_MS;
    try {
      const aged = (await trust(`?actor=${BOB}&judged_by=${REVIEWER}`)).data[0];
      expect(aged).to.deep.include({ successes: 3, total: 3 });
      expect(aged.weighted_total).to.be.closeTo(fresh.weighted_total / 2, 1e-3);
      expect(aged.score).to.be.lessThan(fresh.score);
    } finally {
      offset = 0;
    }
  });

  it('feeds the actor directory its trust by domain (all judges together)', async () => {
    const answer = await get(url, `/v1/actors/lookup?did=${encodeURIComponent(BOB)}`, bearer(admin));
    expect(answer.status, answer.text).to.equal(200);
    const grouped = (await trust(`?actor=${BOB}&group=actor_domain`)).data[0];
    expect(answer.json.trust).to.deep.equal({ code: { score: grouped.score, total: grouped.total } });
  });

  it('announces itself in the capabilities manifest: flags and conventions.trust_path', async () => {
    const answer = await get(url, '/v1/capabilities', bearer(admin));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.conventions.trust_path).to.equal('/v1/trust');
    expect(answer.json.capabilities).to.include({ 'trust.scores': true, 'trust.principal_trust': true });
  });

  it('a thread-grained credential is answered from its thread alone', async () => {
    const reader = await createAccount(url, admin, 'thread-a reader', [`thread:${THREAD_A}:read`]);
    const list = await trust('', reader);
    expect(list.data.map((r: any) => r.actor)).to.satisfy((actors: string[]) => actors.length > 0 && actors.every((a) => a === BOB));
    expect(JSON.stringify(list)).to.not.contain(ALICE).and.not.contain(THREAD_B);
    const fold = await get(url, '/v1/folds/trust', bearer(reader));
    expect(fold.status, fold.text).to.equal(200);
    expect(JSON.stringify(fold.json)).to.not.contain(ALICE);
    const principals = await get(url, '/v1/folds/principal_trust', bearer(reader));
    expect(principals.status, principals.text).to.equal(200);
    expect(principals.json.cache_key).to.match(/~restricted$/);
    expect(principals.json.value.rows.map((r: any) => r.principal)).to.deep.equal([BOB]);
  });
});

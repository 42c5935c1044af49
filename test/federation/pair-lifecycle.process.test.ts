/**
 * The federation pair's life between two real Loom processes on loopback
 * (issue 35, second part; goal 6): killing the peer makes the pair
 * `degraded` within 3 failed polls, with last_error and the next retry,
 * backoff never past the poll interval; restarting it brings the pair back
 * to `active` within one poll interval, 0 records lost, 0 duplicated.
 * Pause and resume (a paused side pulls nothing and serves nothing), the
 * mode and poll interval, refresh with a changed manifest, notify-revoke.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bearer } from '../helpers/auth.js';
import { get, newThread, request } from '../helpers/http-server.js';
import { type LoomProcess } from '../helpers/loom-process.js';
import { until } from '../helpers/until.js';
import { type Instance, hasRecord, pairOn, recordWriter, startInstance, threadIds } from './federated-instances.js';

const write = recordWriter('lifecycle');

const INTERVAL_MS = 1_000;

const post = (instance: Instance, path: string, json?: unknown) => request(instance.process.url, 'POST', path, { headers: bearer(instance.admin), ...(json !== undefined ? { json } : {}) });

describe('federation pair lifecycle between two loom processes', function () {
  this.timeout(180_000);
  let a: Instance;
  let b: Instance;
  let pairId = '';
  const started: LoomProcess[] = [];

  before(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
    started.push(a.process, b.process);
    const posture = await post(b, '/v1/config/federation_pairing', { default_posture: 'open' });
    expect(posture.status, posture.text).to.equal(201);
    const paired = await post(a, '/v1/federation/pairs', { url: b.process.url, poll_interval_ms: INTERVAL_MS });
    expect(paired.status, paired.text).to.equal(201);
    // polling is the default mode (spec §2.8), here every second.
    expect(paired.json).to.include({ state: 'active', mode: 'polling', poll_interval_ms: INTERVAL_MS });
    pairId = paired.json.pair_id;
    // B pulls A on its own schedule: every second too.
    const set = await post(b, `/v1/federation/pairs/${pairId}/settings`, { poll_interval_ms: INTERVAL_MS });
    expect(set.status, set.text).to.equal(200);
  });
  after(async () => {
    for (const process of started) await process.stop();
    for (const dir of new Set(started.map((p) => p.dataDir))) await import('node:fs/promises').then((fs) => fs.rm(dir, { recursive: true, force: true }));
  });

  it('kill the peer: degraded within 3 failed polls, with last_error and next retry; restart: active within one poll interval, 0 lost, 0 duplicated', async () => {
    const thread = newThread('lifecycle');
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push(await write(b, thread));
    await until('the first records on A', 10_000, async () => (await Promise.all(before.map((id) => hasRecord(a, id)))).every(Boolean));

    await b.process.kill();
    const killedAt = Date.now();
    const degraded = await until('degraded', 20_000, async () => {
      const pair = await pairOn(a, pairId);
      return pair.state === 'degraded' ? pair : null;
    });
    const detectMs = Date.now() - killedAt;
    expect(degraded.last_error.code).to.equal('CONNECT_REFUSED');
    expect(degraded.degraded_at).to.be.a('string');
    expect(degraded.retries, 'degraded at the 3rd failed poll').to.be.within(3, 4);
    expect(degraded.next_retry_at).to.be.a('string');
    // Backoff never past the poll interval, however long the outage.
    await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL_MS));
    const stats = (await get(a.process.url, `/v1/sync/pairs/${degraded.sync_pair_id}/stats`, bearer(a.admin))).json;
    expect(stats.poll_interval.backoff_ms).to.be.at.most(INTERVAL_MS);
    const still = await pairOn(a, pairId);
    expect(still.state).to.equal('degraded');
    expect(Date.parse(still.next_retry_at) - Date.now()).to.be.at.most(INTERVAL_MS + 100);
    // The list says why too.
    const listed = (await get(a.process.url, '/v1/federation/pairs', bearer(a.admin))).json.data.find((p: { pair_id: string }) => p.pair_id === pairId);
    expect(listed).to.include({ state: 'degraded' });

    b = await startInstance({ existing: b, samePort: true });
    started.push(b.process);
    const restartedAt = Date.now();
    await until('active again', 10_000, async () => (await pairOn(a, pairId)).state === 'active');
    const recoverMs = Date.now() - restartedAt;
    const after: string[] = [];
    for (let i = 0; i < 5; i++) after.push(await write(b, thread));
    await until('every record on A', 10_000, async () => (await Promise.all(after.map((id) => hasRecord(a, id)))).every(Boolean));
    const ids = await threadIds(a, thread);
    expect(ids.length, '0 duplicated').to.equal(10);
    expect([...ids].sort(), '0 lost').to.deep.equal([...before, ...after].sort());
    console.log(`      degraded detected after ${detectMs} ms (3 failed polls at a ${INTERVAL_MS} ms interval); active ${recoverMs} ms after the restart`);
    expect(recoverMs).to.be.at.most(INTERVAL_MS + 500);
  });

  it('pause: this side pulls nothing and serves nothing (PAIR_PAUSED); resume: both ways again', async () => {
    await until('B active', 10_000, async () => (await pairOn(b, pairId)).state === 'active');
    const paused = await post(a, `/v1/federation/pairs/${pairId}/pause`);
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.json).to.include({ state: 'paused' });
    // B's token for A is refused while A is paused.
    const held = JSON.parse(await readFile(join(b.process.dataDir, 'plugins', 'federation', 'pair-secrets.json'), 'utf8'));
    const tokenForA = held[paused.json.sync_pair_id];
    expect(tokenForA).to.be.a('string');
    const refused = await get(a.process.url, '/v1/sync/changes', { authorization: `Bearer ${tokenForA}` });
    expect(refused.status).to.equal(409);
    expect(refused.json.code).to.equal('PAIR_PAUSED');
    const thread = newThread('paused');
    const onB = await write(b, thread);
    const onA = await write(a, thread);
    // B's pulls of A fail, so B reads degraded with A's reason.
    const there = await until('B degraded', 10_000, async () => {
      const pair = await pairOn(b, pairId);
      return pair.state === 'degraded' ? pair : null;
    });
    expect(there.last_error.message).to.contain('PAIR_PAUSED');
    expect(await hasRecord(a, onB)).to.equal(false);
    expect(await hasRecord(b, onA)).to.equal(false);
    // Idempotent.
    expect((await post(a, `/v1/federation/pairs/${pairId}/pause`)).json.state).to.equal('paused');

    const resumed = await post(a, `/v1/federation/pairs/${pairId}/resume`);
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.json.state).to.equal('active');
    await until('both records across', 10_000, async () => (await hasRecord(a, onB)) && (await hasRecord(b, onA)));
    await until('B active again', 5_000, async () => (await pairOn(b, pairId)).state === 'active');
  });

  it('set-mode on-demand pulls only on refresh; set-poll-interval reaches the sync pair', async () => {
    const onDemand = await post(a, `/v1/federation/pairs/${pairId}/settings`, { mode: 'on-demand' });
    expect(onDemand.status, onDemand.text).to.equal(200);
    expect(onDemand.json.mode).to.equal('on-demand');
    const thread = newThread('on-demand');
    const id = await write(b, thread);
    await new Promise((resolve) => setTimeout(resolve, 2.5 * INTERVAL_MS));
    expect(await hasRecord(a, id), 'on-demand does not poll').to.equal(false);
    const refreshed = await post(a, `/v1/federation/pairs/${pairId}/refresh`);
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(refreshed.json.manifest_changed).to.equal(false);
    await until('the record after refresh', 5_000, () => hasRecord(a, id));

    const polling = await post(a, `/v1/federation/pairs/${pairId}/settings`, { mode: 'polling', poll_interval_ms: 2_000 });
    expect(polling.json).to.include({ mode: 'polling', poll_interval_ms: 2_000 });
    const sync = (await get(a.process.url, `/v1/sync/pairs/${polling.json.sync_pair_id}`, bearer(a.admin))).json;
    expect(sync).to.include({ mode: 'polling', poll_interval_ms: 2_000 });
    const bad = await post(a, `/v1/federation/pairs/${pairId}/settings`, { poll_interval_ms: 5 });
    expect(bad.status).to.equal(400);
    await post(a, `/v1/federation/pairs/${pairId}/settings`, { poll_interval_ms: INTERVAL_MS });
  });

  it("refresh records peer_manifest_changed when the peer's manifest changed, and verifies it", async () => {
    const before = await pairOn(a, pairId);
    expect(before.peer_manifest.consent_policy.default_posture).to.equal('open');
    expect((await post(b, '/v1/config/federation_pairing', { default_posture: 'pair-then-ask' })).status).to.equal(201);
    const refreshed = await post(a, `/v1/federation/pairs/${pairId}/refresh`);
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(refreshed.json).to.include({ manifest_changed: true, state: 'active' });
    expect(refreshed.json.peer_manifest.consent_policy.default_posture).to.equal('pair-then-ask');
    expect(refreshed.json.peer_manifest_changed_at).to.be.a('string');
    const again = await post(a, `/v1/federation/pairs/${pairId}/refresh`);
    expect(again.json.manifest_changed).to.equal(false);
  });

  it('notify-revoke tells a peer that missed the revocation', async () => {
    expect((await post(a, `/v1/federation/pairs/${pairId}/notify-revoke`)).json.code).to.equal('PAIR_STATE_CONFLICT');
    await b.process.stop();
    const revoked = await post(a, `/v1/federation/pairs/${pairId}/revoke`, { reason: 'lifecycle test' });
    expect(revoked.json).to.include({ state: 'revoked', peer_notified: false });
    b = await startInstance({ existing: b, samePort: true });
    started.push(b.process);
    expect((await pairOn(b, pairId)).state).to.not.equal('revoked');
    const told = await post(a, `/v1/federation/pairs/${pairId}/notify-revoke`);
    expect(told.status, told.text).to.equal(200);
    expect(told.json).to.include({ state: 'revoked', peer_notified: true });
    const there = await pairOn(b, pairId);
    expect(there).to.include({ state: 'revoked', revoked_by: 'peer', revoked_reason: 'lifecycle test' });
  });
});

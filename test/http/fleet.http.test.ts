/**
 * The fleet plugin over real HTTP (spec §6): freezes (soft and hard, with the
 * grace window under a driven clock), the emergency stop (writes refused and
 * RECONCILE's dispatch held), thaw and idempotent controls, who may write
 * control records, malformed control records, heartbeats on
 * th_instance_registry, and controls surviving a restart on both backends.
 * Polls for asynchronous effects (dispatches, heartbeats), never sleeps a
 * fixed time.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, postJson, postRecord, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const WORK = ['INTEND', 'DO', 'CALL'] as const;
const NOTES = ['KNOW', 'LEARN'] as const;

/** Waits until `probe` answers something `done` accepts; fails with the last answer after `timeoutMs`. */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A record of `act` in `namespace` ('default': no body.namespace) on a fresh thread. */
function work(act: string, namespace: string, actor = ALICE) {
  return recordInput({ act, actor, body: { goal: `${act} in ${namespace}`, ...(namespace === 'default' ? {} : { namespace }) } });
}

/** Declares namespaces on th_namespace_registry, each at the next clock of one declaring actor per server. */
function declarer(url: string, headers: Record<string, string> = {}, actor = 'did:sync:user:ns-admin') {
  let clock = 0;
  return async (...ids: string[]) => {
    for (const namespace_id of ids) {
      const answer = await request(url, 'POST', '/v1/records', {
        json: recordInput({ thread: 'th_namespace_registry', act: 'LEARN', actor, body: { namespace_id }, clock: clock++ }),
        headers,
      });
      expect(answer.status, answer.text).to.equal(201);
    }
  };
}

const fleet = async (url: string, headers: Record<string, string> = {}) => {
  const answer = await get(url, '/v1/fleet', headers);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
};

function expectFrozen(answer: HttpAnswer, namespace: string, where: string): void {
  expectEnvelope(answer, 403, 'FORBIDDEN', where);
  expect(answer.json.message, where).to.contain(`namespace ${namespace} `).and.to.contain(`loom fleet thaw ${namespace}`);
}

describe('fleet over HTTP: freezes, emergency stop, heartbeats', function () {
  this.timeout(60_000);

  describe('freezes and the emergency stop (SQLite, driven clock)', () => {
    let server: StartedServer;
    let url: string;
    let fakeNow = Date.now();
    let declare: (...ids: string[]) => Promise<void>;

    const freeze = (json: Record<string, unknown>) => postJson(url, '/v1/fleet/freeze', json);
    const thaw = (json: Record<string, unknown>) => postJson(url, '/v1/fleet/thaw', json);
    const emergency = (json: Record<string, unknown>) => postJson(url, '/v1/fleet/emergency', json);

    before(async () => {
      server = await startServer({ clock: () => fakeNow });
      url = server.url;
      declare = declarer(url);
      await declare('acme', 'acme/prod', 'acme2', 'other', 'hardco', 'hardco/eu', 'thawco', 'emco');
    });
    after(() => server?.stop());

    it('a soft freeze refuses INTEND, DO and CALL in the namespace and its descendants; KNOW and LEARN pass; elsewhere nothing changes', async () => {
      const frozen = await freeze({ namespace: 'acme', level: 'soft', reason: 'incident 42' });
      expect(frozen.status, frozen.text).to.equal(200);
      expect(frozen.json).to.include({ object: 'fleet_control', changed: true });
      expect(frozen.json.record).to.include({ thread: 'th_fleet_control', act: 'LEARN', actor: 'did:sync:user:operator' });
      expect(frozen.json.record.body).to.include({ kind: 'core.fleet.freeze.v1', target_namespace: 'acme', level: 'soft', reason: 'incident 42' });
      expect(frozen.json.record.body.at).to.equal(new Date(fakeNow).toISOString());

      for (const namespace of ['acme', 'acme/prod']) {
        for (const act of WORK) expectFrozen(await postRecord(url, work(act, namespace)), 'acme', `${act} in ${namespace}`);
        for (const act of NOTES) {
          const answer = await postRecord(url, work(act, namespace));
          expect(answer.status, `${act} in ${namespace}: ${answer.text}`).to.equal(201);
        }
      }
      // A sibling whose name starts with the frozen one is not a descendant.
      for (const namespace of ['acme2', 'other', 'default']) {
        for (const act of [...WORK, ...NOTES]) {
          const answer = await postRecord(url, work(act, namespace));
          expect(answer.status, `${act} in ${namespace}: ${answer.text}`).to.equal(201);
        }
      }

      const status = await fleet(url);
      expect(status.object).to.equal('fleet');
      expect(status.emergency).to.equal(null);
      const acme = status.freezes.find((f: { namespace: string }) => f.namespace === 'acme');
      expect(acme).to.deep.include({ level: 'soft', hard: false, hard_after: null, reason: 'incident 42', record_id: frozen.json.record.id });

      expect((await thaw({ namespace: 'acme' })).json.changed).to.equal(true);
      expect((await postRecord(url, work('DO', 'acme/prod'))).status).to.equal(201);
    });

    it('a hard freeze refuses work during its grace window and every write after it (driven clock)', async () => {
      const frozen = await freeze({ namespace: 'hardco', level: 'hard', grace_secs: 60, reason: 'drain' });
      expect(frozen.status, frozen.text).to.equal(200);
      expect(frozen.json.record.body).to.include({ level: 'hard', grace_secs: 60 });
      const since = fakeNow;

      let status = await fleet(url);
      let entry = status.freezes.find((f: { namespace: string }) => f.namespace === 'hardco');
      expect(entry).to.deep.include({ level: 'hard', hard: false, since: new Date(since).toISOString(), hard_after: new Date(since + 60_000).toISOString() });

      // In the grace window: notes pass, work is refused.
      expect((await postRecord(url, work('KNOW', 'hardco'))).status).to.equal(201);
      expectFrozen(await postRecord(url, work('DO', 'hardco')), 'hardco', 'DO during grace');
      fakeNow = since + 59_000;
      expect((await postRecord(url, work('LEARN', 'hardco'))).status).to.equal(201);

      // Past the grace window: every write there, and in its descendants, is refused.
      fakeNow = since + 61_000;
      for (const namespace of ['hardco', 'hardco/eu']) {
        for (const act of [...NOTES, ...WORK]) {
          const refused = await postRecord(url, work(act, namespace));
          expectFrozen(refused, 'hardco', `${act} in ${namespace} after grace`);
          expect(refused.json.message).to.contain('hard-frozen');
        }
      }
      expect((await postRecord(url, work('KNOW', 'other'))).status).to.equal(201);
      status = await fleet(url);
      entry = status.freezes.find((f: { namespace: string }) => f.namespace === 'hardco');
      expect(entry).to.include({ hard: true });

      const thawed = await thaw({ namespace: 'hardco', reason: 'done' });
      expect(thawed.json).to.include({ changed: true });
      expect(thawed.json.record.body).to.include({ kind: 'core.fleet.thaw.v1', target_namespace: 'hardco', reason: 'done', at: new Date(fakeNow).toISOString() });
      expect((await postRecord(url, work('KNOW', 'hardco'))).status).to.equal(201);
      expect((await postRecord(url, work('DO', 'hardco'))).status).to.equal(201);
    });

    it('thaw restores writes; thawing a namespace that is not frozen and freezing again at the same soft level write nothing', async () => {
      const never = await thaw({ namespace: 'never-frozen' });
      expect(never.status, never.text).to.equal(200);
      expect(never.json).to.deep.equal({ object: 'fleet_control', changed: false, record: null });

      expect((await freeze({ namespace: 'thawco' })).json.changed).to.equal(true);
      const again = await freeze({ namespace: 'thawco', level: 'soft' });
      expect(again.status).to.equal(200);
      expect(again.json).to.deep.equal({ object: 'fleet_control', changed: false, record: null });
      expect((await fleet(url)).freezes.filter((f: { namespace: string }) => f.namespace === 'thawco')).to.have.length(1);
      expectFrozen(await postRecord(url, work('INTEND', 'thawco')), 'thawco', 'INTEND while frozen');

      const thawed = await thaw({ namespace: 'thawco' });
      expect(thawed.json.changed).to.equal(true);
      for (const act of [...WORK, ...NOTES]) expect((await postRecord(url, work(act, 'thawco'))).status, act).to.equal(201);
      expect((await fleet(url)).freezes.map((f: { namespace: string }) => f.namespace)).to.not.include('thawco');
      expect((await thaw({ namespace: 'thawco' })).json.changed).to.equal(false);
    });

    it('the emergency stop refuses work in every namespace, holds routing dispatches, and clearing it resumes both', async () => {
      const dispatched = async () => {
        const answer = await get(url, '/v1/folds/dispatches');
        expect(answer.status, answer.text).to.equal(200);
        return answer.json.value.totals.dispatched as number;
      };
      const health = async () => {
        const answer = await get(url, '/v1/engine/health');
        expect(answer.status, answer.text).to.equal(200);
        return answer.json;
      };
      const rule = await postJson(url, '/v1/config/routing_rule', { name: 'fleet-know', expression: 'record.act == "KNOW"', target: 'did:sync:agent:x' });
      expect(rule.status, rule.text).to.equal(201);
      const trigger = await postJson(url, '/v1/config/event_trigger', { name: 'fleet-probe', match: 'act=KNOW,body.probe=trigger', target: 'did:sync:agent:y', goal: 'look' });
      expect(trigger.status, trigger.text).to.equal(201);
      try {
        // The route works before the stop: a KNOW is dispatched.
        const before = await dispatched();
        expect((await postRecord(url, work('KNOW', 'emco'))).status).to.equal(201);
        await until(dispatched, (n) => n === before + 1, 'the KNOW to be dispatched');

        const stopped = await emergency({ active: true, reason: 'drill' });
        expect(stopped.status, stopped.text).to.equal(200);
        expect(stopped.json.changed).to.equal(true);
        expect(stopped.json.record.body).to.include({ kind: 'core.fleet.emergency.v1', active: true, reason: 'drill' });
        expect((await emergency({ active: true })).json).to.deep.equal({ object: 'fleet_control', changed: false, record: null });
        const status = await fleet(url);
        expect(status.emergency).to.deep.include({ reason: 'drill', record_id: stopped.json.record.id });

        for (const namespace of ['default', 'emco', 'acme/prod']) {
          for (const act of WORK) {
            const refused = await postRecord(url, work(act, namespace));
            expectEnvelope(refused, 403, 'FORBIDDEN', `${act} in ${namespace}`);
            expect(refused.json.message).to.contain('emergency stop').and.to.contain('loom fleet emergency --clear');
          }
        }

        // A KNOW is accepted, routed, and held: no dispatch record.
        const heldBefore = (await health()).reconcile.held as number;
        const dispatchedBefore = await dispatched();
        expect((await postRecord(url, work('KNOW', 'default'))).status).to.equal(201);
        await until(health, (h) => h.reconcile.held === heldBefore + 1, 'the dispatch to be held');
        expect(await dispatched()).to.equal(dispatchedBefore);
        // A trigger match is suppressed as held (and its routing job held too).
        const triggerHeldBefore = (await health()).triggers.suppressions.held as number;
        expect((await postRecord(url, recordInput({ act: 'KNOW', body: { probe: 'trigger' } }))).status).to.equal(201);
        const held = await until(health, (h) => h.reconcile.held === heldBefore + 2, 'the second dispatch to be held');
        expect(held.triggers.suppressions.held).to.equal(triggerHeldBefore + 1);
        expect(held.triggers.firings).to.equal(0);
        expect(await dispatched()).to.equal(dispatchedBefore);

        const cleared = await emergency({ active: false, reason: 'over' });
        expect(cleared.json.changed).to.equal(true);
        expect(cleared.json.record.body).to.include({ active: false });
        expect((await fleet(url)).emergency).to.equal(null);
        expect((await emergency({ active: false })).json.changed).to.equal(false);

        expect((await postRecord(url, work('DO', 'default'))).status).to.equal(201);
        expect((await postRecord(url, work('KNOW', 'default'))).status).to.equal(201);
        await until(dispatched, (n) => n === dispatchedBefore + 1, 'the KNOW after clearing to be dispatched');
        // The held ones stay held: only the new KNOW was dispatched.
        const after = await health();
        expect(after.reconcile.held).to.equal(heldBefore + 2);
        expect(await dispatched()).to.equal(dispatchedBefore + 1);
      } finally {
        await postJson(url, '/v1/config/routing_rule', { name: 'fleet-know', remove: true });
        await postJson(url, '/v1/config/event_trigger', { name: 'fleet-probe', remove: true });
      }
    });

    it('the control routes check their input: 400 INVALID_SHAPE, nothing written', async () => {
      const before = await fleet(url);
      for (const [path, json] of [
        ['/v1/fleet/freeze', { namespace: 'Bad Namespace' }],
        ['/v1/fleet/freeze', { namespace: 'default/x' }],
        ['/v1/fleet/freeze', { namespace: 'acme', level: 'frozen' }],
        ['/v1/fleet/freeze', { namespace: 'acme', level: 'hard', grace_secs: 86_401 }],
        ['/v1/fleet/freeze', { namespace: 'acme', extra: true }],
        ['/v1/fleet/freeze', {}],
        ['/v1/fleet/thaw', { namespace: '' }],
        ['/v1/fleet/emergency', { active: 'yes' }],
        ['/v1/fleet/emergency', { active: true, reason: 'x'.repeat(501) }],
      ] as const) {
        expectEnvelope(await postJson(url, path, json), 400, 'INVALID_SHAPE', `${path} ${JSON.stringify(json).slice(0, 80)}`);
      }
      expect(await fleet(url)).to.deep.equal(before);
    });

    it('refuses a malformed control record through POST /v1/records: 400 INVALID_SHAPE; a well-formed one applies', async () => {
      const control = (body: Record<string, unknown>, act = 'LEARN', clock = 0) => recordInput({ thread: 'th_fleet_control', act, actor: ALICE, clock, body });
      const now = () => new Date(fakeNow).toISOString();
      const malformed: Array<[string, Record<string, unknown>, string?]> = [
        ['a freeze without target_namespace', { kind: 'core.fleet.freeze.v1', level: 'soft', at: now() }],
        ['at an hour behind the instance clock', { kind: 'core.fleet.freeze.v1', target_namespace: 'acme', at: new Date(fakeNow - 3_600_000).toISOString() }],
        ['at an hour ahead', { kind: 'core.fleet.thaw.v1', target_namespace: 'acme', at: new Date(fakeNow + 3_600_000).toISOString() }],
        ['at without an offset', { kind: 'core.fleet.thaw.v1', target_namespace: 'acme', at: now().replace('Z', '') }],
        ['no at', { kind: 'core.fleet.emergency.v1', active: true }],
        ['an unknown kind', { kind: 'core.fleet.melt.v1', target_namespace: 'acme', at: now() }],
        ['an unknown level', { kind: 'core.fleet.freeze.v1', target_namespace: 'acme', level: 'frozen', at: now() }],
        ['a negative grace', { kind: 'core.fleet.freeze.v1', target_namespace: 'acme', level: 'hard', grace_secs: -1, at: now() }],
        ['a malformed namespace', { kind: 'core.fleet.freeze.v1', target_namespace: 'Acme//x', at: now() }],
        ['emergency without active', { kind: 'core.fleet.emergency.v1', at: now() }],
        ['a DO instead of a LEARN', { kind: 'core.fleet.freeze.v1', target_namespace: 'acme', at: now() }, 'DO'],
      ];
      for (const [what, body, act] of malformed) expectEnvelope(await postRecord(url, control(body, act)), 400, 'INVALID_SHAPE', what);
      expect((await fleet(url)).freezes.map((f: { namespace: string }) => f.namespace)).to.not.include('acme');

      const written = await postRecord(url, control({ kind: 'core.fleet.freeze.v1', target_namespace: 'acme', level: 'soft', at: now() }));
      expect(written.status, written.text).to.equal(201);
      expect((await fleet(url)).freezes.find((f: { namespace: string }) => f.namespace === 'acme')).to.include({ record_id: written.json.id, level: 'soft' });
      expectFrozen(await postRecord(url, work('DO', 'acme')), 'acme', 'DO after a control record written directly');
      expect((await thaw({ namespace: 'acme' })).json.changed).to.equal(true);
    });
  });

  describe('who may control the fleet (auth required)', () => {
    let server: StartedServer;
    let url: string;
    let admin: Credential;
    let worker: Credential;
    let fakeNow = Date.now();

    before(async () => {
      server = await startServer({ auth: { required: true }, clock: () => fakeNow });
      url = server.url;
      admin = await bootstrapAdmin(url);
      worker = await createAccount(url, admin, 'worker', ['records:read', 'records:write', 'config:read']);
    });
    after(() => server?.stop());

    const as = (credential: Credential, method: string, path: string, json?: unknown) => request(url, method, path, { ...(json !== undefined ? { json } : {}), headers: bearer(credential) });

    it('a non-admin can read the fleet but neither freeze through the route nor write a control record', async () => {
      expect((await as(worker, 'GET', '/v1/fleet')).status).to.equal(200);
      for (const [path, json] of [
        ['/v1/fleet/freeze', { namespace: 'default' }],
        ['/v1/fleet/thaw', { namespace: 'default' }],
        ['/v1/fleet/emergency', { active: true }],
      ] as const) {
        expectEnvelope(await as(worker, 'POST', path, json), 403, 'SCOPE_FORBIDDEN', path);
      }
      const direct = await as(worker, 'POST', '/v1/records', recordInput({ thread: 'th_fleet_control', act: 'LEARN', actor: worker.did, body: { kind: 'core.fleet.emergency.v1', active: true, at: new Date(fakeNow).toISOString() } }));
      expectEnvelope(direct, 403, 'FORBIDDEN', 'control record by a non-admin');
      expect(direct.json.message).to.contain('admin');
      const status = await as(worker, 'GET', '/v1/fleet');
      expect(status.json.emergency).to.equal(null);
      expect(status.json.freezes).to.deep.equal([]);
    });

    it('during a hard freeze of default past its grace window, the admin can still thaw', async () => {
      const frozen = await as(admin, 'POST', '/v1/fleet/freeze', { namespace: 'default', level: 'hard', grace_secs: 60 });
      expect(frozen.status, frozen.text).to.equal(200);
      expect(frozen.json.record).to.include({ actor: admin.did, thread: 'th_fleet_control' });
      fakeNow += 61_000;
      expect((await as(worker, 'GET', '/v1/fleet')).json.freezes[0]).to.include({ namespace: 'default', hard: true });

      expectFrozen(await as(worker, 'POST', '/v1/records', work('KNOW', 'default', worker.did)), 'default', 'KNOW by the worker');
      expectFrozen(await as(admin, 'POST', '/v1/records', work('KNOW', 'default', admin.did)), 'default', 'KNOW by the admin');

      const thawed = await as(admin, 'POST', '/v1/fleet/thaw', { namespace: 'default', reason: 'recovered' });
      expect(thawed.status, thawed.text).to.equal(200);
      expect(thawed.json.changed).to.equal(true);
      expect(thawed.json.record).to.include({ actor: admin.did, thread: 'th_fleet_control' });
      expect((await as(worker, 'POST', '/v1/records', work('KNOW', 'default', worker.did))).status).to.equal(201);
      expect((await as(worker, 'POST', '/v1/records', work('DO', 'default', worker.did))).status).to.equal(201);
    });

    it('a heartbeat forged by a client is refused (403 FORBIDDEN) and does not show up as an instance', async () => {
      const forged = await as(worker, 'POST', '/v1/records', recordInput({
        thread: 'th_instance_registry',
        act: 'DO',
        actor: worker.did,
        body: { topic: 'heartbeat', kind: 'core.instance.heartbeat.v1', instance_did: worker.did, version: '9.9.9', health: 'ok', interval_secs: 3600, at: new Date().toISOString() },
      }));
      expect(forged.status, forged.text).to.equal(403);
      expect(forged.json.code).to.equal('FORBIDDEN');
      const listed = (await as(worker, 'GET', '/v1/fleet')).json.instances.map((i: { instance_did: string }) => i.instance_did);
      expect(listed, `forged heartbeat answered ${forged.status}`).to.not.include(worker.did);
    });
  });

  describe('heartbeats', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ fleet: { heartbeat: true, heartbeatIntervalMs: 100 } });
    });
    after(() => server?.stop());

    it('GET /v1/fleet lists this instance, live and ok, and its heartbeat advances', async () => {
      const did = server.loom.info.instanceDid;
      const mine = (status: { instances: Array<{ instance_did: string; clock: number }> }) => status.instances.find((i) => i.instance_did === did);
      const first = mine(await until(() => fleet(server.url), (s) => mine(s) !== undefined, 'the first heartbeat'))!;
      expect(first).to.deep.include({ live: true, version: server.loom.info.version, health: 'ok', endpoint: null, interval_secs: 0.1, active_dispatches: 0 });
      const later = mine(await until(() => fleet(server.url), (s) => mine(s)!.clock >= first.clock + 3, 'three more heartbeats'))! as unknown as Record<string, any>;
      expect(later.live).to.equal(true);
      expect(Date.parse(later.at)).to.be.greaterThan(Date.parse((first as unknown as Record<string, any>).at));
      expect(later.sequence).to.be.greaterThan((first as unknown as Record<string, any>).sequence);

      const records = await get(server.url, '/v1/records?thread=th_instance_registry&limit=100');
      expect(records.status, records.text).to.equal(200);
      expect(records.json.data.length).to.be.at.least(4);
      for (const record of records.json.data) {
        expect(record).to.include({ act: 'DO', actor: did, thread: 'th_instance_registry' });
        expect(record.body).to.include({ topic: 'heartbeat', kind: 'core.instance.heartbeat.v1', instance_did: did });
      }
      // The engine's clocks on the thread are consecutive.
      const clocks = records.json.data.map((r: { clock: number }) => r.clock);
      expect(clocks).to.deep.equal(clocks.map((_: number, i: number) => clocks[0] + i));
    });
  });

  for (const storage of ['sqlite', 'level'] as const) {
    describe(`restart (${storage})`, () => {
      let dataDir: string;
      let server: StartedServer | undefined;
      before(async () => {
        dataDir = await mkdtemp(join(tmpdir(), 'loom-fleet-restart-'));
      });
      after(async () => {
        await server?.stop();
        await rm(dataDir, { recursive: true, force: true });
      });

      it('a freeze and the emergency stop survive stop and start on the same data directory', async () => {
        server = await startServer({ storage, dataDir, keepDataDir: true });
        await declarer(server.url)('acme');
        expect((await postJson(server.url, '/v1/fleet/freeze', { namespace: 'acme', level: 'hard', grace_secs: 0, reason: 'before restart' })).json.changed).to.equal(true);
        expect((await postJson(server.url, '/v1/fleet/emergency', { active: true })).json.changed).to.equal(true);
        const before = await fleet(server.url);
        await server.stop();
        server = undefined;

        server = await startServer({ storage, dataDir, keepDataDir: true });
        const after = await fleet(server.url);
        expect(after.freezes).to.deep.equal(before.freezes);
        expect(after.emergency).to.deep.equal(before.emergency);
        expectFrozen(await postRecord(server.url, work('KNOW', 'acme')), 'acme', 'KNOW in acme after restart');
        expectEnvelope(await postRecord(server.url, work('DO', 'default')), 403, 'FORBIDDEN', 'DO in default after restart');

        expect((await postJson(server.url, '/v1/fleet/emergency', { active: false })).json.changed).to.equal(true);
        expect((await postJson(server.url, '/v1/fleet/thaw', { namespace: 'acme' })).json.changed).to.equal(true);
        expect((await postRecord(server.url, work('DO', 'acme'))).status).to.equal(201);
        expect((await postRecord(server.url, recordInput({ thread: newThread() }))).status).to.equal(201);
      });
    });
  }
});

/**
 * The rules plugin over loopback HTTP: the configuration door for rule
 * expressions, permission rules as an ingest gate (fail closed, scoping,
 * the administrator's configuration escape hatch, hot reload), routing
 * (priority, first match wins, the dispatch record's shape), event triggers
 * (causal-chain protection, ping-pong, cooldown under a burst), schedule
 * triggers and TICK drift under a controlled clock, RECONCILE's bounds under
 * a burst with a slow adapter, restarts on both drivers, and POST /v1/dispatch.
 */
import { expect } from 'chai';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolve } from '../../core/di/token.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { dispatchThreadId } from '../../core/records/thread-id.js';
import { AdapterRegistryToken, type Dispatch } from '../../plugins/rules/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, mapLimit, newThread, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const ENGINE = 'did:sync:system:loom-engine';
const KIND_DISPATCH = 'core.dispatch.v1';
const KIND_DRIFT = 'core.engine.drift.v1';

type Headers = Record<string, string>;

/** Polls `probe` every 15 ms until it returns something truthy (returned), or fails after `timeoutMs`. */
async function until<T>(probe: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)?.slice(0, 300)})`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

interface Write {
  thread?: string;
  actor?: string;
  act?: string;
  body?: Record<string, unknown>;
  clock?: number;
  parents?: string[];
}

/** POST /v1/records with a record on a fresh thread by default (clock 0, no parents). */
function write(url: string, input: Write = {}, headers: Headers = {}): Promise<HttpAnswer> {
  return request(url, 'POST', '/v1/records', {
    json: { thread: newThread('rules'), actor: 'did:sync:user:alice', act: 'KNOW', body: {}, clock: 0, parents: [], data_type: 'SCALAR', ...input },
    headers,
  });
}

/** Writes and expects 201; answers the stored record. */
async function written(url: string, input: Write = {}, headers: Headers = {}): Promise<any> {
  const answer = await write(url, input, headers);
  expect(answer.status, answer.text).to.equal(201);
  return answer.json;
}

async function config(url: string, topic: string, fields: Record<string, unknown>, headers: Headers = {}): Promise<HttpAnswer> {
  return request(url, 'POST', `/v1/config/${topic}`, { json: fields, headers });
}

async function configured(url: string, topic: string, fields: Record<string, unknown>, headers: Headers = {}): Promise<any> {
  const answer = await config(url, topic, fields, headers);
  expect(answer.status, answer.text).to.equal(201);
  return answer.json;
}

async function health(url: string, headers: Headers = {}): Promise<any> {
  const answer = await get(url, '/v1/engine/health', headers);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
}

async function dispatchFold(url: string, headers: Headers = {}): Promise<{ watermark: number; value: any }> {
  const answer = await get(url, '/v1/folds/dispatches', headers);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
}

async function dispatches(url: string, headers: Headers = {}): Promise<any> {
  return (await dispatchFold(url, headers)).value;
}

/** Every dispatch the fold knows (open and recently closed). */
function allDispatches(value: any): any[] {
  return [...value.open, ...value.recent_closed];
}

function bySource(value: any, source: string): any[] {
  return allDispatches(value).filter((entry) => entry.source === source);
}

/** Waits until RECONCILE has handled every record up to the current head, dispatches written. */
async function caughtUp(url: string, headers: Headers = {}, timeoutMs = 5000): Promise<void> {
  const { watermark } = await dispatchFold(url, headers);
  await until(async () => (await health(url, headers)).reconcile.checkpoint >= watermark, timeoutMs, `reconcile checkpoint ≥ ${watermark}`);
}

async function threadRecords(url: string, thread: string, headers: Headers = {}): Promise<any[]> {
  const answer = await get(url, `/v1/threads/${thread}/records?limit=100`, headers);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json.data;
}

/** A plugin that registers one dispatch adapter for one target (the rules plugin's AdapterRegistry, injected). */
function adapterPlugin(name: string, target: string, deliver: (dispatch: Dispatch) => Promise<void>) {
  return definePlugin({
    name: `${name}-adapter`,
    version: '1.0.0',
    dependencies: ['rules'],
    register(scope) {
      resolve(scope.container, AdapterRegistryToken).register({ name, description: `test adapter for ${target}`, accepts: (t) => t === target, deliver }, `${name}-adapter`);
    },
  });
}

describe('rules over HTTP', function () {
  this.timeout(30_000);

  describe('the configuration door', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer();
    });
    after(async () => server.stop());

    it('refuses rule expressions that do not parse, use a variable out of context or yield no bool, through POST /v1/config and POST /v1/records alike; nothing is stored', async () => {
      const url = server.url;
      const statsBefore = (await get(url, '/v1/engine/expression_cache/stats')).json;
      const refusals: Array<[string, Record<string, unknown>, string]> = [
        ['routing_rule', { name: 'bad-parse', expression: "record.act ==", target: 'did:sync:agent:x', priority: 1 }, 'does not parse'],
        ['routing_rule', { name: 'bad-caller', expression: 'caller.admin', target: 'did:sync:agent:x', priority: 1 }, 'Unknown variable: caller'],
        ['routing_rule', { name: 'bad-int', expression: '1 + 1', target: 'did:sync:agent:x', priority: 1 }, 'yields int'],
        ['permission_rule', { name: 'bad-parse', expression: '(record.act', effect: 'deny', priority: 1 }, 'does not parse'],
        ['permission_rule', { name: 'bad-var', expression: "foo == 'x'", effect: 'deny', priority: 1 }, 'Unknown variable: foo'],
        ['permission_rule', { name: 'bad-string', expression: "'allow'", effect: 'allow', priority: 1 }, 'yields string'],
      ];
      for (const [topic, fields, problem] of refusals) {
        const door = await config(url, topic, fields);
        expectEnvelope(door, 400, 'INVALID_SHAPE', `${topic} ${fields['expression']}`);
        expect(door.json.message).to.include(topic).and.to.include(problem);
        const learn = await write(url, { thread: 'th_engine_config', actor: 'did:sync:user:configurer', act: 'LEARN', body: { topic, ...fields } });
        expectEnvelope(learn, 400, 'INVALID_SHAPE', `LEARN ${topic} ${fields['expression']}`);
        expect(learn.json.message).to.include(problem);
      }
      // A routing rule with a malformed target is refused the same way.
      const badTarget = await config(url, 'routing_rule', { name: 'bad-target', expression: 'true', target: 'not a did' });
      expectEnvelope(badTarget, 400, 'INVALID_SHAPE');
      expect(badTarget.json.message).to.include('target');

      for (const topic of ['routing_rule', 'permission_rule']) {
        const stored = await get(url, `/v1/config/${topic}`);
        expect(stored.status, stored.text).to.equal(200);
        expect(stored.json.value ?? {}, topic).to.deep.equal({});
      }
      const warnings = await get(url, '/v1/config/warnings');
      expect(warnings.json.value, 'no refused record reached the log').to.deep.equal([]);
      const configThread = await threadRecords(url, 'th_engine_config');
      expect(configThread.filter((r) => r.body.topic === 'routing_rule' || r.body.topic === 'permission_rule')).to.deep.equal([]);
      const statsAfter = (await get(url, '/v1/engine/expression_cache/stats')).json;
      expect(statsAfter.compile_errors - statsBefore.compile_errors).to.be.at.least(refusals.length);

      // The door is not shut: a well-formed rule goes in.
      await configured(url, 'routing_rule', { name: 'good', expression: "record.act == 'DO' && has(record.body.never)", target: 'did:sync:agent:x', priority: 1 });
      const routing = await get(url, '/v1/config/routing_rule');
      expect(Object.keys(routing.json.value)).to.deep.equal(['good']);
    });
  });

  describe('permission rules (auth required)', () => {
    let server: StartedServer;
    let url: string;
    let admin: Credential;
    let writer: Credential;
    let configurer: Credential;
    let adminClock = 0;

    before(async () => {
      server = await startServer({ auth: { required: true } });
      url = server.url;
      admin = await bootstrapAdmin(url);
      writer = await createAccount(url, admin, 'writer', ['records:read', 'records:write']);
      configurer = await createAccount(url, admin, 'configurer', ['records:read', 'records:write', 'config:write']);
      for (const namespace_id of ['secret', 'secret/inner', 'secretive']) {
        const declared = await write(url, { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id }, clock: adminClock++ }, bearer(admin));
        expect(declared.status, declared.text).to.equal(201);
      }
    });
    after(async () => server.stop());

    const byWriter = (body: Record<string, unknown> = {}, act = 'KNOW') => write(url, { actor: writer.did, act, body }, bearer(writer));

    it('rules apply only while permissions.enabled; then the first matching rule decides, nothing matching or an erroring rule denies, and changes apply on the very next request', async () => {
      const ruleWrite = (fields: Record<string, unknown>) => configured(url, 'permission_rule', fields, bearer(admin));
      const denied = async (answer: HttpAnswer, names: string | null) => {
        expectEnvelope(answer, 403, 'FORBIDDEN');
        if (names === null) expect(answer.json.message).to.include('no permission rule allows this write');
        else expect(answer.json.message).to.include(`"${names}"`);
      };

      // Disabled: even a deny-everything rule does not apply.
      await ruleWrite({ name: 'deny-everything', expression: 'true', effect: 'deny', priority: 1000 });
      expect((await health(url, bearer(admin))).permissions).to.include({ enabled: false });
      expect((await byWriter({ n: 1 })).status).to.equal(201);
      await ruleWrite({ name: 'deny-everything', remove: true });

      // Enabled with no rule: fails closed.
      await configured(url, 'permissions', { enabled: true }, bearer(admin));
      expect((await health(url, bearer(admin))).permissions).to.include({ enabled: true, rules: 0 });
      await denied(await byWriter({ n: 2 }), null);

      // An allow rule admits, on the very next request.
      await ruleWrite({ name: 'allow-writes', expression: "record.act in ['KNOW', 'DO', 'LEARN'] && !caller.admin", effect: 'allow', priority: 0 });
      expect((await byWriter({ n: 3 })).status).to.equal(201);

      // A higher-priority deny rule that matches refuses, naming itself; one that does not match lets the allow rule decide.
      await ruleWrite({ name: 'deny-secret', expression: 'has(record.body.secret)', effect: 'deny', priority: 10 });
      await denied(await byWriter({ secret: 'x' }), 'deny-secret');
      expect((await byWriter({ open: 'x' })).status).to.equal(201);
      // A lower-priority deny loses to the allow rule above it.
      await ruleWrite({ name: 'deny-low', expression: 'true', effect: 'deny', priority: -5 });
      expect((await byWriter({ n: 4 })).status).to.equal(201);

      // An expression that errors on this record fails closed and is counted.
      const errorsBefore = (await health(url, bearer(admin))).permissions.evaluation_errors;
      await ruleWrite({ name: 'err-rule', expression: 'record.body.missing == 1', effect: 'allow', priority: 20 });
      const erroring = await byWriter({ n: 5 });
      await denied(erroring, 'err-rule');
      expect(erroring.json.message).to.include('could not be evaluated');
      expect((await health(url, bearer(admin))).permissions.evaluation_errors).to.equal(errorsBefore + 1);
      // The same rule holds on a record that has the field: allow.
      expect((await byWriter({ missing: 1 })).status).to.equal(201);

      // Hot reload: removing the rule takes effect on the next request, no restart.
      await ruleWrite({ name: 'err-rule', remove: true });
      expect((await byWriter({ n: 6 })).status).to.equal(201);
      expect((await get(url, '/v1/config/permission_rule', bearer(admin))).json.value).to.have.all.keys('allow-writes', 'deny-secret', 'deny-low');
    });

    it('acts and namespaces scope a rule (a namespace covers its descendants only)', async () => {
      await configured(url, 'permission_rule', { name: 'deny-learn', expression: 'true', effect: 'deny', priority: 30, acts: ['LEARN'] }, bearer(admin));
      expectEnvelope(await byWriter({ n: 1 }, 'LEARN'), 403, 'FORBIDDEN');
      expect((await byWriter({ n: 1 }, 'LEARN')).json.message).to.include('"deny-learn"');
      expect((await byWriter({ n: 1 }, 'KNOW')).status).to.equal(201);
      expect((await byWriter({ n: 1 }, 'DO')).status).to.equal(201);

      await configured(url, 'permission_rule', { name: 'deny-ns', expression: 'true', effect: 'deny', priority: 40, namespaces: ['secret'] }, bearer(admin));
      for (const namespace of ['secret', 'secret/inner']) {
        const answer = await byWriter({ namespace });
        expectEnvelope(answer, 403, 'FORBIDDEN', namespace);
        expect(answer.json.message).to.include('"deny-ns"');
      }
      expect((await byWriter({ namespace: 'secretive' })).status, 'a sibling with a common prefix is not covered').to.equal(201);
      expect((await byWriter({})).status).to.equal(201);
      // ns is in the expression's context too.
      await configured(url, 'permission_rule', { name: 'deny-ns-expr', expression: "ns == 'secretive'", effect: 'deny', priority: 50 }, bearer(admin));
      expect((await byWriter({ namespace: 'secretive' })).json.message).to.include('"deny-ns-expr"');
      await configured(url, 'permission_rule', { name: 'deny-ns-expr', remove: true }, bearer(admin));
      expect((await byWriter({ namespace: 'secretive' })).status).to.equal(201);
    });

    it('under a deny-all rule an administrator can still write th_engine_config (and so lift it); nobody else can', async () => {
      await configured(url, 'permission_rule', { name: 'deny-all', expression: 'true', effect: 'deny', priority: 999 }, bearer(admin));
      const writerRefused = await byWriter({ n: 1 });
      expectEnvelope(writerRefused, 403, 'FORBIDDEN');
      expect(writerRefused.json.message).to.include('"deny-all"');
      // The administrator is not exempt elsewhere.
      expectEnvelope(await write(url, { actor: admin.did, body: {} }, bearer(admin)), 403, 'FORBIDDEN');
      // A non-admin with config:write is refused on th_engine_config, through both doors.
      const viaDoor = await config(url, 'permissions', { enabled: false }, bearer(configurer));
      expectEnvelope(viaDoor, 403, 'FORBIDDEN');
      expect(viaDoor.json.message).to.include('"deny-all"');
      expectEnvelope(await write(url, { thread: 'th_engine_config', actor: configurer.did, act: 'LEARN', body: { topic: 'permissions', enabled: false } }, bearer(configurer)), 403, 'FORBIDDEN');
      expect((await health(url, bearer(admin))).permissions.enabled).to.equal(true);

      // The administrator's LEARN through POST /v1/records passes (a harmless rule), then the config door lifts enforcement.
      const adminConfigClock = (await get(url, '/v1/threads/th_engine_config/state', bearer(admin))).json.value.actor_clocks?.[admin.did];
      expect(adminConfigClock, 'the admin already wrote configuration').to.be.a('number');
      const learn = await write(url, { thread: 'th_engine_config', actor: admin.did, act: 'LEARN', body: { topic: 'permission_rule', name: 'noted', expression: 'false', effect: 'deny' }, clock: adminConfigClock + 1 }, bearer(admin));
      expect(learn.status, learn.text).to.equal(201);
      await configured(url, 'permissions', { enabled: false }, bearer(admin));
      expect((await byWriter({ n: 2 })).status).to.equal(201);
      await configured(url, 'permissions', { enabled: true }, bearer(admin));
      expectEnvelope(await byWriter({ n: 3 }), 403, 'FORBIDDEN');
      await configured(url, 'permission_rule', { name: 'deny-all', remove: true }, bearer(admin));
      expect((await byWriter({ n: 4 })).status).to.equal(201);
      const counters = (await health(url, bearer(admin))).permissions;
      expect(counters.denials).to.be.at.least(5);
    });
  });

  describe('routing', () => {
    let server: StartedServer;
    let url: string;
    before(async () => {
      server = await startServer();
      url = server.url;
      await configured(url, 'routing_rule', { name: 'route-fast', expression: "has(record.body.lane) && record.body.lane == 'fast'", target: 'did:sync:agent:fast', priority: 10 });
      await configured(url, 'routing_rule', { name: 'route-any', expression: 'has(record.body.lane)', target: 'did:sync:agent:any', priority: 1, goal: 'look at it' });
      await configured(url, 'routing_rule', { name: 'aa-other', expression: 'has(record.body.other)', target: 'did:sync:agent:other', priority: 1 });
      await configured(url, 'routing_rule', { name: 'zz-off', expression: 'true', target: 'did:sync:agent:never', priority: 100, enabled: false });
    });
    after(async () => server.stop());

    it('GET /v1/config/rules lists the rules in evaluation order (enabled, priority, name)', async () => {
      const answer = await get(url, '/v1/config/rules');
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.data.map((rule: any) => rule.name)).to.deep.equal(['route-fast', 'aa-other', 'route-any', 'zz-off']);
      expect(answer.json.data[0]).to.include({ target: 'did:sync:agent:fast', priority: 10, enabled: true });
      expect(answer.json.data[0].record_id).to.be.a('string');
      expect((await health(url)).routing.rules).to.equal(3);
    });

    it('dispatches a matching record once, to the first matching rule’s target, on the derived dispatch thread', async () => {
      const fast = await written(url, { body: { lane: 'fast', other: true } });
      const slow = await written(url, { body: { lane: 'slow' } });
      const none = await written(url, { body: { unrelated: true } });
      const fulfilling = await written(url, { body: { lane: 'fast', fulfills: 'something' } });
      await caughtUp(url);
      const value = await dispatches(url);
      expect(bySource(value, none.id), 'no rule matches').to.deep.equal([]);
      expect(bySource(value, fulfilling.id), 'records that fulfil are not routed').to.deep.equal([]);
      expect(allDispatches(value).filter((entry) => entry.target === 'did:sync:agent:never'), 'a disabled rule never routes').to.deep.equal([]);

      const [fastEntry, ...moreFast] = bySource(value, fast.id);
      expect(moreFast, 'first match wins: one dispatch').to.deep.equal([]);
      expect(fastEntry).to.include({ target: 'did:sync:agent:fast', parent_thread: fast.thread, adapter: 'record', status: 'open' });
      expect(fastEntry.origin).to.deep.equal({ type: 'rule', name: 'route-fast' });
      const [slowEntry, ...moreSlow] = bySource(value, slow.id);
      expect(moreSlow).to.deep.equal([]);
      expect(slowEntry).to.include({ target: 'did:sync:agent:any', goal: 'look at it' });
      expect(slowEntry.origin).to.deep.equal({ type: 'rule', name: 'route-any' });

      for (const [entry, parent] of [
        [fastEntry, fast],
        [slowEntry, slow],
      ] as const) {
        const answer = await get(url, `/v1/records/${entry.id}`);
        expect(answer.status, answer.text).to.equal(200);
        const record = answer.json.record ?? answer.json;
        expect(record).to.include({ act: 'DO', actor: ENGINE, clock: 0 });
        expect(record.parents).to.deep.equal([parent.id]);
        expect(record.body).to.include({ kind: KIND_DISPATCH, target: entry.target, parent_thread: parent.thread, source: parent.id, dispatch_handled: true });
        expect(record.body.origin).to.deep.equal(entry.origin);
        expect(record.thread).to.equal(dispatchThreadId(parent.thread, entry.target, record.body.dispatched_at));
        expect(entry.thread).to.equal(record.thread);
      }

      // Still once after more traffic has gone by.
      await written(url, { body: { lane: 'slow' } });
      await caughtUp(url);
      const later = await dispatches(url);
      expect(bySource(later, fast.id)).to.have.length(1);
      expect(bySource(later, slow.id)).to.have.length(1);
    });

    it('retiring a rule routes the next record by the next rule in order', async () => {
      await configured(url, 'routing_rule', { name: 'route-fast', remove: true });
      const record = await written(url, { body: { lane: 'fast' } });
      await caughtUp(url);
      const [entry, ...more] = bySource(await dispatches(url), record.id);
      expect(more).to.deep.equal([]);
      expect(entry.origin).to.deep.equal({ type: 'rule', name: 'route-any' });
      expect((await get(url, '/v1/config/rules')).json.data.map((rule: any) => rule.name)).to.deep.equal(['aa-other', 'route-any', 'zz-off']);
    });
  });

  describe('event triggers', () => {
    let server: StartedServer;
    let url: string;
    before(async () => {
      server = await startServer();
      url = server.url;
    });
    after(async () => server.stop());

    const firings = async (name: string) => (await dispatches(url)).triggers[name]?.firings ?? 0;

    it('a match trigger fires once per matching record; a reply descended from its firing does not fire it again (causal chain)', async () => {
      await configured(url, 'event_trigger', { name: 'on-done', match: 'act=KNOW,body.topic=done', target: 'did:sync:agent:finisher', goal: 'wrap up', cooldown: 0, max_concurrent: 10 });
      const listed = (await get(url, '/v1/triggers')).json.data.find((t: any) => t.name === 'on-done');
      expect(listed).to.include({ cooldown: 0, max_concurrent: 10, firings: 0, schedule: null });

      await written(url, { act: 'DO', body: { topic: 'done' } }); // act does not match
      const done = await written(url, { body: { topic: 'done' } });
      await caughtUp(url);
      const [entry, ...more] = bySource(await dispatches(url), done.id);
      expect(more).to.deep.equal([]);
      expect(entry).to.include({ target: 'did:sync:agent:finisher', goal: 'wrap up' });
      expect(entry.origin).to.deep.equal({ type: 'trigger', name: 'on-done' });
      expect(await firings('on-done')).to.equal(1);

      const before = (await health(url)).triggers.suppressions.causal_chain;
      await written(url, { thread: entry.thread, actor: 'did:sync:agent:finisher', body: { topic: 'done' }, parents: [entry.id] });
      await until(async () => (await health(url)).triggers.suppressions.causal_chain === before + 1, 5000, 'a causal-chain suppression');
      await caughtUp(url);
      expect(await firings('on-done')).to.equal(1);
      // A grandchild is suppressed too.
      const reply = (await threadRecords(url, entry.thread)).find((r) => r.actor === 'did:sync:agent:finisher');
      await written(url, { thread: entry.thread, actor: 'did:sync:agent:helper', body: { topic: 'done' }, parents: [reply.id] });
      await until(async () => (await health(url)).triggers.suppressions.causal_chain === before + 2, 5000, 'a second causal-chain suppression');
      await caughtUp(url);
      expect(await firings('on-done')).to.equal(1);
      expect((await get(url, '/v1/triggers')).json.data.find((t: any) => t.name === 'on-done')).to.include({ firings: 1, open_firings: 1 });
    });

    it('two triggers whose targets answer each other do not ping-pong', async () => {
      await configured(url, 'event_trigger', { name: 'ping-a', match: 'act=KNOW,body.topic=a', target: 'did:sync:agent:bee', goal: 'answer with b', cooldown: 0, max_concurrent: 10 });
      await configured(url, 'event_trigger', { name: 'ping-b', match: 'act=KNOW,body.topic=b', target: 'did:sync:agent:ay', goal: 'answer with a', cooldown: 0, max_concurrent: 10 });
      const suppressedBefore = (await health(url)).triggers.suppressions.causal_chain;
      await written(url, { body: { topic: 'a' } });
      // The targets answer every dispatch they get, citing it, for as long as dispatches keep coming.
      const answered = new Set<string>();
      for (let round = 0; round < 6; round++) {
        await caughtUp(url);
        const fresh = allDispatches(await dispatches(url)).filter((e) => e.origin.type === 'trigger' && e.origin.name.startsWith('ping-') && !answered.has(e.id));
        if (fresh.length === 0) break;
        for (const e of fresh) {
          answered.add(e.id);
          await written(url, { thread: e.thread, actor: e.target, body: { topic: e.origin.name === 'ping-a' ? 'b' : 'a' }, parents: [e.id] });
        }
      }
      await caughtUp(url);
      const value = await dispatches(url);
      expect(value.triggers['ping-a']?.firings).to.equal(1);
      expect(value.triggers['ping-b']?.firings).to.equal(1);
      expect(answered.size).to.equal(2);
      expect((await health(url)).triggers.suppressions.causal_chain).to.equal(suppressedBefore + 1);
    });

    it('max_concurrent bounds the open firings of a trigger; completing one frees its slot', async () => {
      await configured(url, 'event_trigger', { name: 'two-at-once', match: 'act=KNOW,body.topic=mc', target: 'did:sync:agent:mc', goal: 'one of two', cooldown: 0, max_concurrent: 2 });
      const before = (await health(url)).triggers.suppressions.max_concurrent;
      const records: any[] = [];
      for (let i = 0; i < 3; i++) {
        records.push(await written(url, { body: { topic: 'mc', i } }));
        await caughtUp(url);
      }
      let value = await dispatches(url);
      expect(value.triggers['two-at-once'].firings).to.equal(2);
      expect(bySource(value, records[2].id), 'the third waits for a free slot').to.deep.equal([]);
      expect((await health(url)).triggers.suppressions.max_concurrent).to.equal(before + 1);
      const [first] = bySource(value, records[0].id);
      await written(url, { thread: first.thread, actor: 'did:sync:agent:mc', body: { fulfills: first.id }, parents: [first.id] });
      const fourth = await written(url, { body: { topic: 'mc', i: 3 } });
      await caughtUp(url);
      value = await dispatches(url);
      expect(value.triggers['two-at-once'].firings).to.equal(3);
      expect(bySource(value, fourth.id)).to.have.length(1);
      expect((await get(url, '/v1/triggers')).json.data.find((t: any) => t.name === 'two-at-once')).to.include({ open_firings: 2, firings: 3 });
    });

    it('a burst of 50 matching records under a 60 s cooldown fires once and counts 49 cooldown suppressions', async () => {
      await configured(url, 'event_trigger', { name: 'burst', match: 'act=KNOW,body.topic=burst', target: 'did:sync:agent:burst', goal: 'once', cooldown: 60, max_concurrent: 10 });
      const before = (await health(url)).triggers;
      const records = await mapLimit(Array.from({ length: 50 }, (_, i) => i), 50, (i) => written(url, { body: { topic: 'burst', i } }));
      await caughtUp(url);
      const after = (await health(url)).triggers;
      expect(after.firings - before.firings).to.equal(1);
      expect(after.suppressions.cooldown - before.suppressions.cooldown).to.equal(49);
      const value = await dispatches(url);
      expect(value.triggers['burst'].firings).to.equal(1);
      const fired = allDispatches(value).filter((e) => e.origin.name === 'burst');
      expect(fired).to.have.length(1);
      expect(records.map((r: any) => r.id)).to.include(fired[0].source);
    });
  });

  describe('schedule triggers and TICK under a controlled clock', () => {
    let server: StartedServer;
    let url: string;
    let fakeNow = Date.parse('2030-01-01T00:00:30.000Z');
    const at = (iso: string) => {
      fakeNow = Date.parse(iso);
    };
    before(async () => {
      server = await startServer({ clock: () => fakeNow, rules: { schedulerIntervalMs: 50, tickIntervalMs: 100 } });
      url = server.url;
    });
    after(async () => server.stop());

    const firingsOf = async (name: string) => (await dispatches(url)).triggers[name]?.firings ?? 0;

    it('a */5 schedule fires once per boundary crossed, never twice in one window', async () => {
      // A per-minute probe shows when the scheduler has stepped at a given clock reading: it fires once per step that crosses a minute.
      await configured(url, 'event_trigger', { name: 'probe', schedule: '* * * * *', target: 'did:sync:agent:probe', goal: 'tick', cooldown: 0, max_concurrent: 1000 });
      // The scheduler starts counting a new trigger when it first sees it: advance minute by minute until the probe fires.
      for (let minute = 1; ; minute++) {
        at(`2030-01-01T00:0${minute}:30.000Z`);
        const fired = await until(async () => (await firingsOf('probe')) >= 1, 1500, 'probe').catch(() => false);
        if (fired) break;
        if (minute >= 3) throw new Error('the scheduler never fired the probe');
      }
      let probes = await firingsOf('probe');
      expect(probes).to.equal(1);
      /** Moves the clock, then waits for the probe's firing that proves the scheduler stepped at that reading. */
      const stepAt = async (iso: string) => {
        at(iso);
        probes++;
        await until(async () => (await firingsOf('probe')) === probes, 3000, `probe firing ${probes} at ${iso}`);
      };

      const configRecord = await configured(url, 'event_trigger', { name: 'every-5', schedule: '*/5 * * * *', target: 'did:sync:agent:cron', goal: 'periodic', cooldown: 0, max_concurrent: 10 });
      const listed = (await get(url, '/v1/triggers')).json.data.find((t: any) => t.name === 'every-5');
      expect(listed.next_run_at).to.equal('2030-01-01T00:05:00.000Z');
      // The scheduler steps (and sees every-5) within the first window: no firing yet.
      await stepAt('2030-01-01T00:04:30.000Z');
      expect(await firingsOf('every-5')).to.equal(0);

      await stepAt('2030-01-01T00:05:10.000Z');
      await until(async () => (await firingsOf('every-5')) === 1, 3000, 'the first */5 firing');
      const first = allDispatches(await dispatches(url)).filter((e) => e.origin.name === 'every-5');
      expect(first).to.have.length(1);
      expect(first[0]).to.include({ target: 'did:sync:agent:cron', parent_thread: 'th_engine_config', source: configRecord.id });
      expect(Date.parse(first[0].dispatched_at) - Date.parse('2030-01-01T00:05:10.000Z')).to.be.within(0, 999);
      expect(first[0].origin).to.deep.equal({ type: 'trigger', name: 'every-5' });
      expect(first[0].thread).to.equal(dispatchThreadId('th_engine_config', 'did:sync:agent:cron', first[0].dispatched_at));

      // Later in the same window: the scheduler steps, every-5 does not fire.
      await stepAt('2030-01-01T00:07:40.000Z');
      await stepAt('2030-01-01T00:09:59.000Z');
      expect(await firingsOf('every-5')).to.equal(1);

      // The next boundary: a second firing (cooldown 0), and only one.
      await stepAt('2030-01-01T00:10:05.000Z');
      await until(async () => (await firingsOf('every-5')) === 2, 3000, 'the second */5 firing');
      await stepAt('2030-01-01T00:11:05.000Z');
      expect(await firingsOf('every-5')).to.equal(2);
      const triggers = (await health(url)).triggers;
      expect(triggers.suppressions).to.include({ cooldown: 0, max_concurrent: 0 });
      await configured(url, 'event_trigger', { name: 'probe', remove: true });
      await configured(url, 'event_trigger', { name: 'every-5', remove: true });
    });

    it('TICK notes an unacknowledged dispatch past its timeout once, and an acknowledged one as overdue', async () => {
      const parent = await written(url, { body: { work: true } });
      const dispatch = async (secs: number) => {
        const answer = await request(url, 'POST', '/v1/dispatch', { json: { actor_did: 'did:sync:agent:slowpoke', goal: `within ${secs}s`, thread_id: parent.thread, budget: { max_duration_secs: secs } } });
        expect(answer.status, answer.text).to.equal(201);
        fakeNow += 1;
        return answer.json;
      };
      const start = fakeNow;
      const d300 = await dispatch(300);
      const d600 = await dispatch(600);
      // The target acknowledges the 600 s one (but never finishes it).
      await written(url, { thread: d600.thread, actor: 'did:sync:agent:slowpoke', body: { note: 'on it' }, parents: [d600.id] });
      const driftNotes = async (thread: string) => (await threadRecords(url, thread)).filter((r) => r.body.kind === KIND_DRIFT);

      fakeNow = start + 299_000;
      const drifted = (await health(url)).tick.drift_noted;
      const runs = (await health(url)).tick.runs;
      await until(async () => (await health(url)).tick.runs >= runs + 2, 3000, 'two TICK runs');
      expect(await driftNotes(d300.thread)).to.deep.equal([]);

      fakeNow = start + 301_000;
      const [note, ...more] = await until(async () => {
        const notes = await driftNotes(d300.thread);
        return notes.length > 0 ? notes : null;
      }, 3000, 'a drift note');
      expect(more).to.deep.equal([]);
      expect(note).to.include({ act: 'KNOW', actor: ENGINE, thread: d300.thread });
      expect(note.body).to.include({ kind: KIND_DRIFT, reason: 'unacknowledged', dispatch: d300.id, timeout_secs: 300 });
      expect(note.parents).to.deep.equal([d300.id]);

      // Further TICKs (the 600 s dispatch drifting shows they ran) do not note it again.
      fakeNow = start + 700_000;
      const [overdue] = await until(async () => {
        const notes = await driftNotes(d600.thread);
        return notes.length > 0 ? notes : null;
      }, 3000, 'the 600 s drift note');
      expect(overdue.body).to.include({ reason: 'overdue', dispatch: d600.id });
      const runsNow = (await health(url)).tick.runs;
      await until(async () => (await health(url)).tick.runs >= runsNow + 2, 3000, 'two more TICK runs');
      expect(await driftNotes(d300.thread)).to.have.length(1);
      expect(await driftNotes(d600.thread)).to.have.length(1);
      expect((await health(url)).tick.drift_noted).to.be.at.least(drifted + 2);
      const open = (await dispatches(url)).open;
      expect(open.find((e: any) => e.id === d300.id)).to.include({ drift: 'unacknowledged', status: 'open' });
      expect(open.find((e: any) => e.id === d600.id)).to.include({ drift: 'overdue', status: 'acknowledged' });
    });
  });

  describe('max_concurrent while a delivery is still in progress', () => {
    const GATED = 'did:sync:agent:gated';
    const releases: Array<() => void> = [];
    let delivering = 0;
    let server: StartedServer;
    let url: string;
    before(async () => {
      const plugin = adapterPlugin('gated', GATED, async () => {
        delivering++;
        await new Promise<void>((resolve) => releases.push(resolve));
        delivering--;
      });
      server = await startServer({ plugins: [{ plugin }] });
      url = server.url;
    });
    after(async () => {
      for (const release of releases.splice(0)) release();
      await server.stop();
    });

    it('a second firing is admitted while the first is still being delivered (max_concurrent 2)', async () => {
      await configured(url, 'event_trigger', { name: 'gated', match: 'act=KNOW,body.topic=gated', target: GATED, goal: 'slow to accept', cooldown: 0, max_concurrent: 2 });
      const first = await written(url, { body: { topic: 'gated', i: 1 } });
      await until(async () => delivering === 1 && bySource(await dispatches(url), first.id).length === 1, 3000, 'the first firing written and delivering');
      const second = await written(url, { body: { topic: 'gated', i: 2 } });
      await until(async () => (await health(url)).reconcile.considered >= 2, 3000, 'the second record considered');
      const third = await written(url, { body: { topic: 'gated', i: 3 } });
      await until(async () => (await health(url)).reconcile.considered >= 3, 3000, 'the third record considered');
      await until(async () => delivering === 2 || (await health(url)).triggers.suppressions.max_concurrent > 1, 3000, 'the second delivery or a second suppression');
      const value = await dispatches(url);
      expect(bySource(value, second.id), 'one firing open of two allowed').to.have.length(1);
      expect(bySource(value, third.id), 'two open: the third is suppressed').to.deep.equal([]);
      expect((await health(url)).triggers.suppressions.max_concurrent).to.equal(1);
    });
  });

  describe('RECONCILE under a 4× burst through a slow adapter', () => {
    const SLOW = 'did:sync:agent:slow';
    const probe = { current: 0, max: 0, delivered: 0, seen: new Map<string, number>() };
    const slowAdapterPlugin = definePlugin({
      name: 'slow-adapter',
      version: '1.0.0',
      dependencies: ['rules'],
      register(scope) {
        resolve(scope.container, AdapterRegistryToken).register(
          {
            name: 'slow',
            description: 'A test adapter that takes ~30 ms per delivery.',
            accepts: (target) => target === SLOW,
            deliver: async (dispatch) => {
              probe.current++;
              probe.max = Math.max(probe.max, probe.current);
              try {
                await new Promise((resolve) => setTimeout(resolve, 30));
              } finally {
                probe.current--;
              }
              probe.delivered++;
              if (dispatch.source !== null) probe.seen.set(dispatch.source, (probe.seen.get(dispatch.source) ?? 0) + 1);
            },
          },
          'slow-adapter',
        );
      },
    });
    let server: StartedServer;
    let url: string;
    before(async () => {
      server = await startServer({ plugins: [{ plugin: slowAdapterPlugin }], rules: { reconcileConcurrency: 4, reconcileQueueCapacity: 16 } });
      url = server.url;
    });
    after(async () => server.stop());

    it('keeps at most 4 deliveries in flight and 16 queued, and dispatches every record exactly once', async () => {
      const adapters = (await get(url, '/v1/adapters')).json.data;
      // The work plugin's adapter (dispatches to members with a model) registers first; the test's follows.
      expect(adapters.map((a: any) => [a.name, a.owner, a.fallback])).to.deep.equal([
        ['member-run', 'work', false],
        ['slow', 'slow-adapter', false],
        ['record', 'rules', true],
      ]);
      await configured(url, 'routing_rule', { name: 'to-slow', expression: "has(record.body.load) && record.body.load in ['steady', 'burst']", target: SLOW, priority: 1 });

      const ids: string[] = [];
      // Steady load: 50 records, a few at a time.
      for (let batch = 0; batch < 10; batch++) {
        const batchRecords = await Promise.all(Array.from({ length: 5 }, (_, i) => written(url, { body: { load: 'steady', i: batch * 5 + i } })));
        ids.push(...batchRecords.map((r) => r.id));
      }
      // Then four times as many at once, in parallel batches.
      const burst = await mapLimit(Array.from({ length: 200 }, (_, i) => i), 40, (i) => written(url, { body: { load: 'burst', i } }));
      ids.push(...burst.map((r: any) => r.id));

      await until(() => probe.delivered >= ids.length, 20_000, `${ids.length} deliveries`);
      await caughtUp(url, {}, 10_000);
      expect(probe.max).to.equal(4);
      const reconcile = (await health(url)).reconcile;
      expect(reconcile).to.include({ concurrency: 4, queue_capacity: 16, delivery_failures: 0 });
      expect(reconcile.max_in_flight).to.be.at.most(4);
      expect(reconcile.max_queue_depth).to.be.at.most(16);
      expect(reconcile.max_queue_depth, 'the burst filled the queue (back-pressure engaged)').to.equal(16);
      expect(reconcile.dispatched).to.equal(ids.length);
      expect(reconcile.delivered).to.equal(ids.length);

      const value = await dispatches(url);
      const toSlow = allDispatches(value).filter((e) => e.target === SLOW);
      expect(toSlow).to.have.length(ids.length);
      const counts = new Map<string, number>();
      for (const entry of toSlow) {
        expect(entry.adapter).to.equal('slow');
        counts.set(entry.source, (counts.get(entry.source) ?? 0) + 1);
      }
      const wrong = ids.filter((id) => counts.get(id) !== 1 || probe.seen.get(id) !== 1);
      expect(wrong, 'records not dispatched and delivered exactly once').to.deep.equal([]);
      expect(counts.size).to.equal(ids.length);
    });
  });

  for (const storage of ['sqlite', 'level'] as const) {
    describe(`restart (${storage})`, () => {
      let server: StartedServer;
      after(async () => server?.stop());

      it('saves the RECONCILE checkpoint in the plugin data directory; records still queued at stop are dispatched after a restart', async () => {
        const SLUGGISH = 'did:sync:agent:sluggish';
        let delayMs = 150;
        const plugin = adapterPlugin('sluggish', SLUGGISH, () => new Promise((resolve) => setTimeout(resolve, delayMs)));
        const options = { storage, keepDataDir: true, plugins: [{ plugin }], rules: { reconcileConcurrency: 1, reconcileQueueCapacity: 2 } };
        let running = await startServer(options);
        const dataDir = running.dataDir;
        try {
          await configured(running.url, 'routing_rule', { name: 'to-sluggish', expression: 'has(record.body.sluggish)', target: SLUGGISH });
          const ids: string[] = [];
          for (let i = 0; i < 8; i++) ids.push((await written(running.url, { body: { sluggish: i } })).id);
          await until(async () => (await dispatches(running.url)).totals.dispatched >= 1, 3000, 'the first dispatch');
          expect((await dispatches(running.url)).totals.dispatched, 'work is still queued when the instance stops').to.be.below(ids.length);
          await running.stop();
          expect(await readdir(join(dataDir, 'plugins', 'rules')).catch(() => [] as string[])).to.include('reconcile-checkpoint.json');
          delayMs = 0;
          running = await startServer({ ...options, dataDir });
          await until(async () => {
            const value = await dispatches(running.url);
            return ids.every((id) => bySource(value, id).length === 1);
          }, 5000, 'every record dispatched exactly once after the restart');
          expect((await health(running.url)).errors.count).to.equal(0);
        } finally {
          await running.stop();
          await rm(dataDir, { recursive: true, force: true });
        }
      });

      it('rules, triggers and permissions stay in force; earlier dispatches are kept and none is repeated', async () => {
        server = await startServer({ storage, keepDataDir: true });
        let url = server.url;
        await configured(url, 'routing_rule', { name: 'route-restart', expression: 'has(record.body.route)', target: 'did:sync:agent:restart', priority: 5 });
        await configured(url, 'event_trigger', { name: 'restart-trigger', match: 'act=KNOW,body.topic=restart', target: 'did:sync:agent:trig', goal: 'go', cooldown: 0, max_concurrent: 10 });
        await configured(url, 'permission_rule', { name: 'allow-all', expression: 'true', effect: 'allow', priority: 0 });
        await configured(url, 'permission_rule', { name: 'deny-forbidden', expression: 'has(record.body.forbidden)', effect: 'deny', priority: 10 });
        await configured(url, 'event_trigger', { name: 'restart-cool', match: 'act=KNOW,body.topic=cool', target: 'did:sync:agent:cool', goal: 'hourly at most', cooldown: 3600, max_concurrent: 10 });
        await configured(url, 'permissions', { enabled: true });
        expectEnvelope(await write(url, { body: { forbidden: true } }), 403, 'FORBIDDEN');

        const sources: string[] = [];
        for (let i = 0; i < 3; i++) sources.push((await written(url, { body: { route: i } })).id);
        const triggering = await written(url, { body: { topic: 'restart' } });
        sources.push(triggering.id, (await written(url, { body: { topic: 'cool' } })).id);
        await caughtUp(url);
        const before = await dispatches(url);
        expect(before.totals.dispatched).to.equal(5);
        const beforeIds = allDispatches(before).map((e: any) => e.id).sort();
        expect(before.triggers['restart-trigger'].firings).to.equal(1);
        expect(before.triggers['restart-cool'].firings).to.equal(1);
        const [firing] = bySource(before, triggering.id);

        const restart = async () => {
          const dataDir = server.dataDir;
          await server.stop();
          server = await startServer({ storage, dataDir, keepDataDir: true });
          url = server.url;
        };
        const check = async (expectedTotal: number, round: number) => {
          expect((await get(url, '/v1/config/rules')).json.data.map((r: any) => r.name)).to.deep.equal(['route-restart']);
          expect((await get(url, '/v1/triggers')).json.data.find((t: any) => t.name === 'restart-trigger')).to.include({ firings: 1 });
          const refused = await write(url, { body: { forbidden: true } });
          expectEnvelope(refused, 403, 'FORBIDDEN');
          expect(refused.json.message).to.include('"deny-forbidden"');
          // The cooldown comes back from the dispatches fold; the causal chain is walked in the store.
          await written(url, { body: { topic: 'cool', round } });
          await written(url, { thread: firing.thread, actor: 'did:sync:agent:trig', body: { topic: 'restart', round }, parents: [firing.id], clock: round });
          // A new matching record is dispatched; once it is, every earlier record has been seen again too.
          const fresh = await written(url, { body: { route: 'after' } });
          await caughtUp(url);
          const after = await dispatches(url);
          expect(bySource(after, fresh.id)).to.have.length(1);
          expect(after.totals.dispatched).to.equal(expectedTotal);
          for (const id of beforeIds) expect(allDispatches(after).map((e: any) => e.id)).to.include(id);
          for (const source of sources) expect(bySource(after, source), source).to.have.length(1);
          expect(after.triggers['restart-trigger'].firings).to.equal(1);
          expect(after.triggers['restart-cool'].firings).to.equal(1);
          const suppressions = (await health(url)).triggers.suppressions;
          expect(suppressions.cooldown, 'cooldown after restart').to.be.at.least(1);
          expect(suppressions.causal_chain, 'causal chain after restart').to.be.at.least(1);
          return fresh.id as string;
        };

        await restart();
        sources.push(await check(6, 0));

        // A crash before the checkpoint was saved: RECONCILE reads the whole log again and still dispatches nothing twice.
        const dataDir = server.dataDir;
        await server.stop();
        await mkdir(join(dataDir, 'plugins', 'rules'), { recursive: true });
        await writeFile(join(dataDir, 'plugins', 'rules', 'reconcile-checkpoint.json'), JSON.stringify({ after: 0 }) + '\n');
        server = await startServer({ storage, dataDir, keepDataDir: true });
        url = server.url;
        await check(7, 1);
        const duplicates = (await health(url)).reconcile;
        expect(duplicates.dispatched).to.equal(1);
      });

    });
  }

  describe('POST /v1/dispatch', () => {
    let server: StartedServer;
    let url: string;
    before(async () => {
      server = await startServer();
      url = server.url;
    });
    after(async () => server.stop());

    it('writes a manual dispatch on the derived thread, refuses bad input, and a fulfilling record closes it', async () => {
      const parent = await written(url, { body: { task: 'build' } });
      const answer = await request(url, 'POST', '/v1/dispatch', { json: { actor_did: 'did:sync:agent:worker', goal: 'build it', thread_id: parent.thread } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.json).to.include({ object: 'dispatch', target: 'did:sync:agent:worker', status: 'queued', adapter: 'record', parent_thread: parent.thread, goal: 'build it' });
      expect(answer.json.id).to.be.a('string');
      expect(answer.json.thread).to.equal(dispatchThreadId(parent.thread, 'did:sync:agent:worker', answer.json.dispatched_at));
      expect(answer.json.record).to.include({ id: answer.json.id, thread: answer.json.thread, act: 'DO' });
      expect(answer.json.record.body).to.include({ kind: KIND_DISPATCH, target: 'did:sync:agent:worker' });
      expect(answer.json.budget).to.deep.equal({ max_cost_usd: 1, max_duration_secs: 300 });

      expectEnvelope(await request(url, 'POST', '/v1/dispatch', { json: { actor_did: 'did:sync:agent:worker', goal: 'x', thread_id: newThread('empty') } }), 404, 'NOT_FOUND');
      expectEnvelope(await request(url, 'POST', '/v1/dispatch', { json: { actor_did: 'not-a-did', goal: 'x', thread_id: parent.thread } }), 400, 'INVALID_SHAPE');
      expectEnvelope(await request(url, 'POST', '/v1/dispatch', { json: { actor_did: 'did:sync:agent:worker', goal: 'x', thread_id: 'th_nope' } }), 400, 'INVALID_SHAPE');

      const open = await until(async () => (await dispatches(url)).open.find((e: any) => e.id === answer.json.id), 3000, 'the open dispatch');
      expect(open).to.include({ status: 'open', thread: answer.json.thread });
      expect(open.origin).to.deep.include({ type: 'manual' });
      const completedBefore = (await dispatches(url)).totals.completed;

      await written(url, { thread: answer.json.thread, actor: 'did:sync:agent:worker', act: 'KNOW', body: { fulfills: answer.json.id, result: 'built' }, parents: [answer.json.id] });
      const value = await dispatches(url);
      expect(value.open.map((e: any) => e.id)).to.not.include(answer.json.id);
      const closed = value.recent_closed.find((e: any) => e.id === answer.json.id);
      expect(closed).to.include({ status: 'completed', thread: answer.json.thread });
      expect(value.totals.completed).to.equal(completedBefore + 1);
    });
  });
});

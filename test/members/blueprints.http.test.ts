/**
 * Blueprints over real HTTP (spec §4.7 POST /v1/blueprints/materialize, §7)
 * on SQLite and LevelDB: the plan lists exactly the records apply writes;
 * consent by plan hash (428, 409); signatures (a tampered or untrusted one
 * is 403 BLUEPRINT_UNSIGNED) and unsigned blueprints from operators behind
 * the configuration flag; a bounded caller's blueprint checked whole under
 * its own grant; extends; and a restart. Every refusal is shown to leave
 * the log head where it was.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstanceKey } from '../../plugins/federation/index.js';
import { signBlueprint, type Blueprint } from '../../plugins/members/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_ADMIN, TOOL_READ, TOOL_WRITE } from './member-tools-plugin.js';

const MATERIALIZE = '/v1/blueprints/materialize';

function reviewTeam(name = 'review-team'): Blueprint {
  return {
    blueprint_version: 1,
    name,
    description: 'A reviewer and a summarizer.',
    prompts: { review: 'You review pull requests. Be specific.', summary: 'You summarize threads in five lines.' },
    actors: [
      { label: 'Reviewer', prompt: 'review', work_loop: { model: 'claude-sonnet-4-6', tools: [TOOL_READ], max_turns: 8 } },
      { label: 'Summarizer', prompt: 'summary', work_loop: { model: 'claude-haiku-4-5', tools: [TOOL_READ, TOOL_WRITE], max_turns: 3 } },
      { label: 'Clerk', work_loop: { model: 'gpt-5-mini' }, declares_kinds: ['notes.entry.v1'] },
    ],
  };
}

for (const storage of ['sqlite', 'level'] as const) {
  describe(`blueprints over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let writer: Credential;
    const trusted = InstanceKey.fromSeed(randomBytes(32));
    const stranger = InstanceKey.fromSeed(randomBytes(32));

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true }, plugins: [memberToolsPlugin] });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown): Promise<HttpAnswer> => request(server.url, method, path, { headers: bearer(who), ...(json === undefined ? {} : { json }) });
    const materialize = (who: Credential, json: unknown) => call('POST', MATERIALIZE, who, json);
    const head = () => server.loom.engine.store.watermark();
    /** Refused with `code`, nothing written; the envelope is returned for its details. */
    const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>): Promise<Record<string, any>> => {
      const before = await head();
      const answer = await send();
      expect(answer.status, answer.text.slice(0, 300)).to.equal(status);
      expect(answer.json).to.include({ object: 'error', code });
      expect(await head(), `${code} wrote nothing`).to.equal(before);
      return answer.json;
    };
    const config = async (topic: string, fields: Record<string, unknown>) => {
      const answer = await call('POST', `/v1/config/${topic}`, admin, fields);
      expect(answer.status, answer.text).to.equal(201);
    };

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-blueprints-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      writer = await createAccount(server.url, admin, 'writer', ['records:read', 'records:write']);
      await config('blueprint_signers', { signer: trusted.did, note: 'the platform team' });
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('plans as a dry run, then apply writes exactly the planned records, in order, with the planned ids', async () => {
      const blueprint = signBlueprint(trusted, reviewTeam());
      const before = await head();
      const plan = await materialize(writer, { blueprint, dry_run: true });
      expect(plan.status, plan.text).to.equal(200);
      expect(await head(), 'a dry run writes nothing').to.equal(before);
      expect(plan.json).to.include({ object: 'blueprint_plan', name: 'review-team', applied: false, admitted_as: 'trusted_signer', signer: trusted.did });
      expect(plan.json.plan_hash).to.match(/^[0-9a-f]{64}$/);
      expect(plan.json.records.map((r: { role: string }) => r.role)).to.deep.equal(['prompt', 'prompt', 'definition', 'definition', 'definition', 'blueprint']);
      expect(plan.json.members.map((m: { label: string; change: string }) => [m.label, m.change])).to.deep.equal([
        ['Reviewer', 'created'],
        ['Summarizer', 'created'],
        ['Clerk', 'created'],
      ]);

      const applied = await materialize(writer, { blueprint, accept_plan: plan.json.plan_hash });
      expect(applied.status, applied.text).to.equal(201);
      expect(applied.json).to.include({ applied: true, plan_hash: plan.json.plan_hash, blueprint_record: plan.json.blueprint_record });
      expect(applied.json.records).to.deep.equal(plan.json.records);
      expect(applied.json.members).to.deep.equal(plan.json.members);
      // The log itself: exactly the planned records were appended, in the planned order.
      const written = await server.loom.engine.store.changesSince(before);
      expect(written.map((s) => s.record.id)).to.deep.equal(plan.json.records.map((r: { record: { id: string } }) => r.record.id));
      for (const [index, stored] of written.entries()) {
        const { id: _id, ...fields } = plan.json.records[index].record;
        expect({ ...stored.record }, `record ${index}`).to.deep.include(fields);
      }
      // Each definition points at its words, read back through the record door.
      const reviewer = plan.json.records.find((r: { role: string; member: string }) => r.role === 'definition' && r.member === plan.json.members[0].actor_did).record;
      const promptId = reviewer.body.work_loop.system_prompt_ref.slice('record:'.length);
      const words = await call('GET', `/v1/records/${promptId}`, admin);
      expect(words.json.body).to.include({ kind: 'core.actor.prompt.v1', text: 'You review pull requests. Be specific.', actor_did: plan.json.members[0].actor_did });
      expect(reviewer.body).to.include({ kind: 'core.actor.definition.v1', owner: writer.did, by: writer.did, version: 1, change: 'defined' });
      const roster = await call('GET', '/v1/self/workspace', writer);
      expect(roster.json.assistants.map((row: { label: string }) => row.label)).to.include.members(['Reviewer', 'Summarizer', 'Clerk']);

      // Materialized as it is: the plan is empty, and applying it writes nothing (200).
      const again = await materialize(writer, { blueprint, dry_run: true });
      expect(again.json.records).to.deep.equal([]);
      expect(again.json.blueprint_record).to.equal(null);
      expect(again.json.members.map((m: { change: string }) => m.change)).to.deep.equal(['unchanged', 'unchanged', 'unchanged']);
      const head2 = await head();
      const noop = await materialize(writer, { blueprint, accept_plan: again.json.plan_hash });
      expect(noop.status, noop.text).to.equal(200);
      expect(noop.json).to.include({ applied: true });
      expect(await head()).to.equal(head2);
    });

    it('asks for consent with the plan (428), refuses another hash (409) and a plan gone stale, then applies the reviewed hash', async () => {
      const blueprint = signBlueprint(trusted, { ...reviewTeam('consent-team'), actors: [{ label: 'Consenter', work_loop: { model: 'gpt-5', max_turns: 2 } }], prompts: {} });
      const asked = await refused(428, 'PLAN_CONSENT_REQUIRED', () => materialize(writer, { blueprint }));
      expect(asked.plan_hash).to.match(/^[0-9a-f]{64}$/);
      expect(asked.plan).to.include({ object: 'blueprint_plan', plan_hash: asked.plan_hash, applied: false });
      expect(asked.plan.records).to.have.length(2);
      const wrong = await refused(409, 'PLAN_HASH_MISMATCH', () => materialize(writer, { blueprint, accept_plan: 'e'.repeat(64) }));
      expect(wrong.plan_hash).to.equal(asked.plan_hash);
      await refused(422, 'INVALID_BODY', () => materialize(writer, { blueprint, accept_plan: 'not-a-hash' }));
      // The member changes after the review: the reviewed plan no longer says what apply would write.
      const defined = await call('POST', '/v1/actors/define', writer, { label: 'Consenter', work_loop: { model: 'gpt-5', max_turns: 9 } });
      expect(defined.status).to.equal(201);
      const stale = await refused(409, 'PLAN_HASH_MISMATCH', () => materialize(writer, { blueprint, accept_plan: asked.plan_hash }));
      expect(stale.plan_hash).to.not.equal(asked.plan_hash);
      expect(stale.plan.members[0]).to.include({ change: 'updated' });
      // An unrelated registry write moves clocks but not the hash.
      expect((await call('POST', '/v1/actors/define', admin, { label: 'bystander' })).status).to.equal(201);
      const applied = await materialize(writer, { blueprint, accept_plan: stale.plan_hash });
      expect(applied.status, applied.text).to.equal(201);
      const version = await call('GET', `/v1/records/${applied.json.members[0].definition}`, admin);
      expect(version.json.parents).to.deep.equal([defined.json.definition]);
      expect(version.json.body).to.include({ version: 2 });
      expect(version.json.body.work_loop).to.include({ max_turns: 2 });
    });

    it('refuses a tampered signed blueprint, or one signed by an untrusted key, with 403 BLUEPRINT_UNSIGNED, writing nothing', async () => {
      const signed = signBlueprint(trusted, reviewTeam('tamper-team'));
      const plan = await materialize(writer, { blueprint: signed, dry_run: true });
      expect(plan.status, plan.text).to.equal(200);
      const tampered: Blueprint = { ...signed, actors: signed.actors.map((a, i) => (i === 0 ? { ...a, work_loop: { ...a.work_loop, tools: [TOOL_READ, TOOL_WRITE] } } : a)) };
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: tampered, accept_plan: plan.json.plan_hash }));
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: tampered, dry_run: true }));
      const forged: Blueprint = { ...signed, signature: { ...signed.signature!, signer: stranger.did } };
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: forged, dry_run: true }));
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: signBlueprint(stranger, reviewTeam('tamper-team')), dry_run: true }));
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: { ...signed, signature: { alg: 'Ed25519', signer: 'did:web:example.com', value: 'AAAA' } }, dry_run: true }));
    });

    it('takes unsigned blueprints from operators only, and only where blueprints_allow_unsigned is on; still by plan hash', async () => {
      const unsigned = reviewTeam('operator-team');
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: unsigned, dry_run: true }));
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(admin, { blueprint: unsigned, dry_run: true }));
      await config('blueprints_allow_unsigned', { enabled: true });
      try {
        await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(writer, { blueprint: unsigned, dry_run: true }));
        // Signed by a key not trusted here: no better than unsigned, so an operator may still install it.
        const strangers = await materialize(admin, { blueprint: signBlueprint(stranger, unsigned), dry_run: true });
        expect(strangers.json).to.include({ admitted_as: 'operator_unsigned', signer: stranger.did });
        // A signature that does not verify is never downgraded to "unsigned".
        const signed = signBlueprint(trusted, unsigned);
        await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(admin, { blueprint: { ...signed, name: 'renamed-team' }, dry_run: true }));
        const asked = await refused(428, 'PLAN_CONSENT_REQUIRED', () => materialize(admin, { blueprint: unsigned }));
        expect(asked.plan).to.include({ admitted_as: 'operator_unsigned', signer: null });
        const applied = await materialize(admin, { blueprint: unsigned, accept_plan: asked.plan_hash });
        expect(applied.status, applied.text).to.equal(201);
        const record = await call('GET', `/v1/records/${applied.json.blueprint_record}`, admin);
        expect(record.json.body).to.include({ kind: 'core.actor.blueprint.v1', name: 'operator-team', owner: admin.did, admitted_as: 'operator_unsigned', signer: null });
        // An operator is not held to the reach bounds (as at define).
        const wide = await materialize(admin, { blueprint: { ...unsigned, name: 'wide-team', prompts: {}, actors: [{ label: 'Rotator', work_loop: { tools: [TOOL_ADMIN] }, write_admit: ['admin'] }] }, dry_run: true });
        expect(wide.status, wide.text).to.equal(200);
      } finally {
        await config('blueprints_allow_unsigned', { enabled: false });
      }
      await refused(403, 'BLUEPRINT_UNSIGNED', () => materialize(admin, { blueprint: unsigned, dry_run: true }));
    });

    it("checks a bounded caller's every actor under its own grant before anything is written: one refusal refuses the whole blueprint", async () => {
      const base = reviewTeam('bounded-team');
      const withTool = (tools: string[], extra: Record<string, unknown> = {}) => signBlueprint(trusted, { ...base, actors: [...base.actors, { label: 'Overreach', work_loop: { tools }, ...extra }] });
      await refused(403, 'TOOL_NOT_IN_REACH', () => materialize(writer, { blueprint: withTool([TOOL_ADMIN]), dry_run: true }));
      const plan = await materialize(admin, { blueprint: withTool([TOOL_ADMIN]), dry_run: true });
      expect(plan.status, 'the same blueprint is within an operator\'s reach').to.equal(200);
      await refused(403, 'TOOL_NOT_IN_REACH', () => materialize(writer, { blueprint: withTool([TOOL_ADMIN]), accept_plan: plan.json.plan_hash }));
      await refused(403, 'WRITE_KIND_NOT_ADMITTED', () => materialize(writer, { blueprint: withTool([], { write_admit: ['admin'] }) }));
      await refused(403, 'WRITE_KIND_NOT_ADMITTED', () => materialize(writer, { blueprint: withTool([], { declares_kinds: ['core.identity.grant.v1'] }) }));
      await refused(422, 'TOOL_NOT_DECLARED', () => materialize(writer, { blueprint: withTool(['no_such_tool']) }));
      await refused(422, 'MODEL_UNKNOWN', () => materialize(writer, { blueprint: withTool([], { work_loop: { model: 'gpt-0' } }) }));
      await refused(403, 'DAILY_CAP_TOO_WIDE', () => materialize(writer, { blueprint: withTool([], { work_loop: { daily_cost_cap_usd: 500 } }) }));
      await refused(422, 'WORK_PROMPT_UNRESOLVED', () => materialize(writer, { blueprint: withTool([], { work_loop: { system_prompt_ref: `record:${'0'.repeat(64)}` } }) }));
      const roster = await call('GET', '/v1/self/workspace', writer);
      expect(roster.json.assistants.map((row: { label: string }) => row.label)).to.not.include('Overreach');
    });

    it('refuses malformed blueprints by name, writing nothing', async () => {
      const good = reviewTeam('malformed-team');
      const send = (blueprint: unknown, extra: Record<string, unknown> = {}) => () => materialize(admin, { blueprint, dry_run: true, ...extra });
      await refused(400, 'MISSING_FIELD', () => materialize(admin, { dry_run: true }));
      await refused(422, 'INVALID_BODY', send(signBlueprint(trusted, good), { regime: 'team' }));
      await refused(422, 'INVALID_BODY', send({ ...good, blueprint_version: 2 }));
      await refused(422, 'INVALID_BODY', send({ ...good, name: 'Not A Name' }));
      await refused(422, 'INVALID_BODY', send({ ...good, surprise: true }));
      await refused(422, 'INVALID_BODY', send({ ...good, actors: [] }));
      await refused(422, 'INVALID_BODY', send({ ...good, actors: [{ label: 'x', work_loop: { reach: ['a'] } }] }));
      const signed = (blueprint: Blueprint) => send(signBlueprint(trusted, blueprint));
      await refused(400, 'MISSING_FIELD', signed({ ...good, actors: [{ label: '  ' }] }));
      await refused(422, 'INVALID_BODY', signed({ ...good, actors: [...good.actors, { label: 'Reviewer' }] }));
      await refused(422, 'INVALID_BODY', signed({ ...good, actors: [{ label: 'x', prompt: 'nowhere' }], prompts: {} }));
      await refused(422, 'INVALID_BODY', signed({ ...good, actors: [{ label: 'x', prompt: 'review', work_loop: { system_prompt_ref: `record:${'0'.repeat(64)}` } }] }));
      await refused(422, 'INVALID_BODY', signed({ ...good, prompts: { ...good.prompts, unused: 'words nobody reads' } }));
      await refused(422, 'INVALID_BODY', signed({ ...good, prompts: { ...good.prompts, 'bad name': 'x' } }));
    });

    it('extends blueprints already materialized, by name (the caller\'s own) or record id; unknown ones are 404', async () => {
      const base = signBlueprint(trusted, reviewTeam('base-team'));
      const plan = await materialize(writer, { blueprint: base, dry_run: true });
      const applied = await materialize(writer, { blueprint: base, accept_plan: plan.json.plan_hash });
      expect(applied.status, applied.text).to.equal(201);
      const child = signBlueprint(trusted, {
        blueprint_version: 1,
        name: 'child-team',
        prompts: { review: 'You review pull requests. Be kind.' },
        actors: [{ label: 'Clerk', work_loop: { model: 'gpt-5' } }, { label: 'Tester', work_loop: { model: 'gpt-5-mini', tools: [TOOL_READ] } }],
      });
      await refused(404, 'NOT_FOUND', () => materialize(writer, { blueprint: child, extends: ['no-such-team'], dry_run: true }));
      await refused(404, 'NOT_FOUND', () => materialize(writer, { blueprint: child, extends: ['f'.repeat(64)], dry_run: true }));
      // Another caller's name is not the writer's: by name, a caller extends its own.
      await refused(404, 'NOT_FOUND', () => materialize(admin, { blueprint: child, extends: ['base-team'], dry_run: true }));
      await refused(422, 'INVALID_BODY', () => materialize(writer, { blueprint: child, extends: ['base-team', applied.json.blueprint_record], dry_run: true }));
      const extended = await materialize(writer, { blueprint: child, extends: ['base-team'], dry_run: true });
      expect(extended.status, extended.text).to.equal(200);
      expect(extended.json.extends).to.deep.equal([applied.json.blueprint_record]);
      // Reviewer: inherited, its words overridden; Summarizer: inherited as is; Clerk: overridden in place; Tester: new.
      expect(extended.json.members.map((m: { label: string; change: string }) => [m.label, m.change])).to.deep.equal([
        ['Reviewer', 'updated'],
        ['Summarizer', 'unchanged'],
        ['Clerk', 'updated'],
        ['Tester', 'created'],
      ]);
      expect(extended.json.records.map((r: { role: string }) => r.role)).to.deep.equal(['prompt', 'definition', 'definition', 'definition', 'blueprint']);
      const record = extended.json.records.at(-1).record;
      expect(record.parents).to.deep.equal([applied.json.blueprint_record]);
      expect(Object.keys(record.body.prompts).sort()).to.deep.equal(['review', 'summary']);
      expect(record.body.prompts.review).to.equal('You review pull requests. Be kind.');
      // By record id, the same resolution.
      const byId = await materialize(writer, { blueprint: child, extends: [applied.json.blueprint_record], dry_run: true });
      expect(byId.json.plan_hash).to.equal(extended.json.plan_hash);
      const done = await materialize(writer, { blueprint: child, extends: ['base-team'], accept_plan: extended.json.plan_hash });
      expect(done.status, done.text).to.equal(201);
    });

    it('after a restart, names still resolve and a materialized blueprint still plans as unchanged', async () => {
      const child = signBlueprint(trusted, {
        blueprint_version: 1,
        name: 'child-team',
        prompts: { review: 'You review pull requests. Be kind.' },
        actors: [{ label: 'Clerk', work_loop: { model: 'gpt-5' } }, { label: 'Tester', work_loop: { model: 'gpt-5-mini', tools: [TOOL_READ] } }],
      });
      const before = await materialize(writer, { blueprint: child, extends: ['base-team'], dry_run: true });
      expect(before.json.records).to.deep.equal([]);
      await server.stop();
      await start();
      const after = await materialize(writer, { blueprint: child, extends: ['base-team'], dry_run: true });
      expect(after.status, after.text).to.equal(200);
      expect(after.json).to.deep.equal(before.json);
      const late = await materialize(writer, { blueprint: signBlueprint(trusted, { blueprint_version: 1, name: 'after-restart', actors: [{ label: 'Late' }] }), extends: ['child-team'], dry_run: true });
      expect(late.status, late.text).to.equal(200);
      expect(late.json.members.map((m: { label: string }) => m.label)).to.deep.equal(['Reviewer', 'Summarizer', 'Clerk', 'Tester', 'Late']);
      expectEnvelope(await call('POST', MATERIALIZE, writer, 'not json at all'), 422, 'INVALID_BODY');
    });
  });
}

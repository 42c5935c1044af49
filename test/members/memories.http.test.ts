/**
 * Member memory and export / import over real HTTP (spec §4.15) on SQLite
 * and LevelDB: add, supersede, list with every filter and search, cancel;
 * who may (owner, the member itself, an operator); every refusal by name,
 * each proving the log head did not move; export and import between two
 * members of one instance (the two-process test carries a bundle between
 * instances); memories surviving a restart.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from '../../core/di/token.js';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { nodeSha256Hex } from '../../core/engine/native-hash.js';
import { memberThreadId } from '../../core/records/thread-id.js';
import { FindServiceToken } from '../../plugins/search/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { earnTrust } from './member-trust-fixture.js';

/** A bundle's digest recomputed after an edit (what a careful forger would do). */
const redigest = (bundle: Record<string, unknown>) => {
  const { digest: _digest, ...content } = bundle;
  return { ...content, digest: `sha256:${nodeSha256Hex(canonicalJson(content))}` };
};

for (const storage of ['sqlite', 'level'] as const) {
  describe(`member memory and export / import over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let owner: Credential;
    let stranger: Credential;
    let self: Credential;
    let member: string;

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true } });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown, actAs?: string): Promise<HttpAnswer> =>
      request(server.url, method, path, { headers: { ...bearer(who), ...(actAs ? { 'x-service-actor': actAs } : {}) }, ...(json === undefined ? {} : { json }) });
    const head = () => server.loom.engine.store.watermark();
    const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>) => {
      const before = await head();
      const answer = await send();
      expectEnvelope(answer, status, code);
      expect(await head(), `${code} wrote nothing`).to.equal(before);
    };
    const memories = (did: string) => `/v1/actors/${did}/memories`;
    const add = async (did: string, body: Record<string, unknown>, who = owner) => {
      const answer = await call('POST', memories(did), who, body);
      expect(answer.status, answer.text).to.equal(201);
      return answer.json;
    };
    const names = async (query = '', did = member, who = owner) => {
      const answer = await call('GET', `${memories(did)}${query}`, who);
      expect(answer.status, answer.text).to.equal(200);
      return answer.json.data.map((m: { name: string }) => m.name);
    };
    const define = async (who: Credential, label: string) => {
      const answer = await call('POST', '/v1/actors/define', who, { label, work_loop: { model: 'gpt-5' } });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.actor_did as string;
    };

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-memories-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      owner = await createAccount(server.url, admin, 'owner', ['records:read', 'records:write']);
      stranger = await createAccount(server.url, admin, 'stranger', ['records:read', 'records:write']);
      member = await define(owner, 'Reviewer');
      self = await createAccount(server.url, admin, 'reviewer-itself', ['records:read', 'records:write'], [member]);
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('adds a memory on the member’s memory thread with defaults, supersedes by name and cancels with a record history keeps', async () => {
      const created = await add(member, { name: 'deploy-days', memory_type: 'project', description: 'We deploy on Tuesdays.' });
      expect(created).to.include({ object: 'memory', name: 'deploy-days', status: 'created', thread: memberThreadId(member, 'memory'), superseded: null });
      let [row] = (await call('GET', memories(member), owner)).json.data;
      expect(row).to.include({ object: 'memory', name: 'deploy-days', memory_type: 'project', confidence: 0.8, source_thread: null, domain: null, record: created.record, by: owner.did, imported_from: null });
      expect(row.tags).to.deep.equal([]);
      const newer = await add(member, { name: 'deploy-days', memory_type: 'project', description: 'We deploy on Fridays now.', tags: ['ops', 'ops', ' release '], confidence: 0.95 });
      expect(newer.superseded).to.equal(created.record);
      [row] = (await call('GET', memories(member), owner)).json.data;
      expect(row).to.include({ description: 'We deploy on Fridays now.', confidence: 0.95, record: newer.record });
      expect(row.tags).to.deep.equal(['ops', 'release']);
      expect((await call('GET', `/v1/records/${newer.record}`, admin)).json.parents).to.deep.equal([created.record]);
      const cancelled = await call('DELETE', `${memories(member)}/deploy-days`, owner);
      expect(cancelled.status, cancelled.text).to.equal(200);
      expect(cancelled.json).to.include({ object: 'memory', name: 'deploy-days', status: 'cancelled' });
      const cancellation = await call('GET', `/v1/records/${cancelled.json.record}`, admin);
      expect(cancellation.json.body).to.include({ kind: 'core.actor.memory.v1', status: 'cancelled', name: 'deploy-days' });
      expect(cancellation.json.parents).to.deep.equal([newer.record]);
      expect(await names()).to.deep.equal([]);
      await refused(404, 'MEMORY_NOT_FOUND', () => call('DELETE', `${memories(member)}/deploy-days`, owner));
      // A name is one path segment, percent-encoded like any other.
      await add(member, { name: 'odd name?%', memory_type: 'user', description: 'x' });
      expect((await call('DELETE', `${memories(member)}/${encodeURIComponent('odd name?%')}`, owner)).json).to.include({ name: 'odd name?%', status: 'cancelled' });
    });

    it('filters by type and domain exactly, pages with limit (clamped to 100), and searches words, tags and fresh memories', async () => {
      await add(member, { name: 'style', memory_type: 'feedback', description: 'Prefer small pull requests.', domain: 'code', tags: ['review'] });
      await add(member, { name: 'who', memory_type: 'user', description: 'The team lead is Ada.', domain: 'people' });
      await add(member, { name: 'lint', memory_type: 'skill', description: 'Run the linter before every review.', domain: 'code' });
      await add(member, { name: 'docs link', memory_type: 'reference', description: 'The runbook lives in the wiki.', tags: ['Runbook'] });
      expect(await names()).to.deep.equal(['docs link', 'lint', 'who', 'style']);
      expect(await names('?type=skill')).to.deep.equal(['lint']);
      expect(await names('?domain=code')).to.deep.equal(['lint', 'style']);
      expect(await names('?domain=code&type=feedback')).to.deep.equal(['style']);
      expect(await names('?domain=Code')).to.deep.equal([]);
      const page = await call('GET', `${memories(member)}?limit=2`, owner);
      expect(page.json.data).to.have.length(2);
      expect(page.json.has_more).to.equal(true);
      const clamped = await call('GET', `${memories(member)}?limit=5000`, owner);
      expect(clamped.status).to.equal(200);
      expect(clamped.json.has_more).to.equal(false);
      // Once the find index has the records, search ranks through it.
      await resolve(server.loom.container, FindServiceToken).caughtUp();
      expect(await names('?search=linter')).to.deep.equal(['lint']);
      expect(await names('?search=wiki')).to.deep.equal(['docs link']);
      expect(await names('?search=runbook')).to.deep.equal(['docs link']);
      expect(await names('?search=review&domain=code')).to.have.members(['lint', 'style']);
      expect(await names('?search=nothing-like-it')).to.deep.equal([]);
      // A memory the index has not reached yet is found by its words all the same.
      await add(member, { name: 'fresh', memory_type: 'insight', description: 'Reviews go faster in the morning.' });
      expect(await names('?search=morning')).to.deep.equal(['fresh']);
      expect(await names('?search=')).to.have.length(5);
    });

    it('lets the owner, the member itself and an operator in; anyone else is refused, and refusals write nothing', async () => {
      expect((await call('GET', memories(member), admin)).status).to.equal(200);
      const own = await call('POST', memories(member), self, { name: 'self-note', memory_type: 'insight', description: 'I wrote this myself.' }, member);
      expect(own.status, own.text).to.equal(201);
      const listed = await call('GET', memories(member), self, undefined, member);
      expect(listed.json.data.find((m: { name: string }) => m.name === 'self-note').by).to.equal(member);
      await refused(403, 'FORBIDDEN', () => call('GET', memories(member), stranger));
      await refused(403, 'FORBIDDEN', () => call('POST', memories(member), stranger, { name: 'x', memory_type: 'user', description: 'y' }));
      await refused(403, 'FORBIDDEN', () => call('DELETE', `${memories(member)}/self-note`, stranger));
      // The member's credential acting as itself, not as the member, is a stranger.
      await refused(403, 'FORBIDDEN', () => call('GET', memories(member), self));
      const nobody = 'did:sync:agent:nobody-0000000000000000';
      await refused(404, 'ACTOR_UNKNOWN', () => call('GET', memories(nobody), admin));
      await refused(404, 'ACTOR_UNKNOWN', () => call('POST', memories(nobody), admin, { name: 'x', memory_type: 'user', description: 'y' }));
      await refused(404, 'ACTOR_UNKNOWN', () => call('DELETE', `${memories(nobody)}/x`, admin));
    });

    it('refuses every malformed memory by name, writing nothing', async () => {
      const post = (body: unknown) => () => call('POST', memories(member), owner, body);
      await refused(400, 'MISSING_FIELD', post({ memory_type: 'user', description: 'no name' }));
      await refused(400, 'MISSING_FIELD', post({ name: '  ', memory_type: 'user', description: 'blank name' }));
      await refused(400, 'MISSING_FIELD', post({ name: 'x', description: 'no type' }));
      await refused(400, 'MISSING_FIELD', post({ name: 'x', memory_type: 'user' }));
      await refused(422, 'INVALID_BODY', post({ name: 'x', memory_type: 'opinion', description: 'y' }));
      await refused(422, 'INVALID_BODY', post({ name: 'x', memory_type: 'user', description: 'y', confidence: 1.5 }));
      await refused(422, 'INVALID_BODY', post({ name: 'x', memory_type: 'user', description: 'y', tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }));
      await refused(422, 'INVALID_BODY', post({ name: 'x', memory_type: 'user', description: 'y', source_thread: 'not-a-thread' }));
      await refused(422, 'INVALID_BODY', post({ name: 'a/b', memory_type: 'user', description: 'y' }));
      await refused(422, 'INVALID_BODY', post({ name: 'x', memory_type: 'user', description: 'y', surprise: true }));
      await refused(422, 'INVALID_BODY', post([1, 2]));
      await refused(400, 'INVALID_QUERY', () => call('GET', `${memories(member)}?type=opinion`, owner));
      await refused(400, 'INVALID_QUERY', () => call('GET', `${memories(member)}?colour=red`, owner));
      const ok = await call('POST', memories(member), owner, { name: 'x', memory_type: 'user', description: 'y', source_thread: newThread('origin') });
      expect(ok.status, ok.text).to.equal(201);
    });

    it('keeps memory and imported-trust records to the doors: POST /v1/records is refused even for an admin', async () => {
      const thread = memberThreadId(member, 'memory');
      await refused(403, 'FORBIDDEN', () =>
        call('POST', '/v1/records', admin, recordInput({ thread, actor: admin.did, act: 'LEARN', body: { kind: 'core.actor.memory.v1', status: 'created', name: 'planted', memory_type: 'user', description: 'x', meta: { member } } })),
      );
      await refused(403, 'FORBIDDEN', () =>
        call('POST', '/v1/records', admin, recordInput({ thread: memberThreadId(member, 'trust'), actor: admin.did, act: 'LEARN', body: { kind: 'core.trust.imported.v1', worker: member, discount: 1, domains: [] } })),
      );
    });

    it('exports identity, trust (judged here), skills and, when asked, memories, under a digest of the canonical content', async () => {
      await earnTrust(server.url, admin, self, member, { domain: 'code', accepts: 6, rejects: 1 });
      const bare = await call('GET', `/v1/actors/${member}/export`, owner);
      expect(bare.status, bare.text).to.equal(200);
      const bundle = bare.json;
      expect(Object.keys(bundle).sort()).to.deep.equal(['bundle_version', 'digest', 'identity', 'object', 'patterns', 'skills', 'trust_profile']);
      expect(bundle).to.include({ object: 'member_bundle', bundle_version: 1 });
      expect(bundle.identity).to.deep.equal({ did: member, display_name: 'Reviewer', category: 'llm', status: 'active' });
      expect(bundle.skills.map((s: { name: string }) => s.name)).to.deep.equal(['lint']);
      expect(bundle.patterns).to.deep.equal([]);
      const [code] = bundle.trust_profile.domains;
      expect(code).to.include({ domain: 'code', successes: 6, failures: 1, judges: 1 });
      expect(redigest(bundle).digest).to.equal(bundle.digest);
      const full = (await call('GET', `/v1/actors/${member}/export?include_memories=true`, self, undefined, member)).json;
      expect(full.memories.map((m: { name: string }) => m.name)).to.include.members(['style', 'who', 'docs link', 'self-note']);
      expect(full.memories.some((m: { memory_type: string }) => m.memory_type === 'skill')).to.equal(false);
      await refused(403, 'FORBIDDEN', () => call('GET', `/v1/actors/${member}/export`, stranger));
      await refused(404, 'ACTOR_UNKNOWN', () => call('GET', '/v1/actors/did:sync:agent:nobody-0000000000000000/export', admin));
    });

    it('imports into a member of the same label: refusals and a dry run write nothing; merge keeps what is held; trust arrives discounted', async () => {
      const bundle = (await call('GET', `/v1/actors/${member}/export?include_memories=true`, owner)).json;
      const target = await define(stranger, 'reviewer');
      const other = await define(stranger, 'writer');
      const path = `/v1/actors/${target}/import`;
      const importAs = (who: Credential, body: Record<string, unknown>, actAs?: string) => () => call('POST', path, who, body, actAs);
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: { ...bundle, identity: { ...bundle.identity, display_name: 'Edited' } } }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: { ...bundle, digest: `sha256:${'0'.repeat(64)}` } }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: redigest({ ...bundle, bundle_version: 2 }) }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: redigest({ ...bundle, skills: [{ ...bundle.skills[0], memory_type: 'user' }] }) }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: redigest({ ...bundle, trust_profile: { ...bundle.trust_profile, domains: [{ ...bundle.trust_profile.domains[0], weighted_total: 999 }] } }) }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle: { ...bundle, surprise: 1 } }));
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle, trust_discount: 1.5 }));
      await refused(400, 'IMPORT_FAILED', () => call('POST', `/v1/actors/${other}/import`, stranger, { bundle }));
      await refused(404, 'ACTOR_UNKNOWN', () => call('POST', '/v1/actors/did:sync:agent:reviewer-0000000000000000/import', admin, { bundle }));
      await refused(403, 'FORBIDDEN', importAs(owner, { bundle }));
      const dry = await call('POST', path, stranger, { bundle, dry_run: true });
      expect(dry.status, dry.text).to.equal(200);
      expect(dry.json).to.include({ object: 'member_import', did: target, source_did: member, dry_run: true, skills_imported: 1, pattern_count: 0, trust_domains_imported: 1 });
      expect(await names('', target, stranger)).to.deep.equal([]);
      await add(target, { name: 'who', memory_type: 'user', description: 'Held before the import.' }, stranger);
      await refused(400, 'IMPORT_FAILED', importAs(stranger, { bundle }));
      const before = await head();
      const imported = await call('POST', path, stranger, { bundle, merge: true });
      expect(imported.status, imported.text).to.equal(201);
      expect(imported.json).to.include({ dry_run: false, skills_imported: 1, memories_skipped: 1, trust_domains_imported: 1, display_name: 'reviewer', category: 'llm', status: 'active' });
      expect(imported.json.memories_imported).to.equal(bundle.memories.length - 1);
      expect(imported.json.memory_type_counts).to.include({ skill: 1 });
      expect(await head()).to.be.greaterThan(before);
      const held = (await call('GET', memories(target), stranger)).json.data;
      expect(held.find((m: { name: string }) => m.name === 'who')).to.include({ description: 'Held before the import.', imported_from: null });
      expect(held.find((m: { name: string }) => m.name === 'lint').imported_from).to.deep.equal({ did: member, instance: bundle.trust_profile.instance, digest: bundle.digest });
      const [summary] = imported.json.trust_summaries;
      expect(summary.imported_score).to.be.below(summary.source_score);
      expect(summary.imported_weighted_total).to.be.closeTo(bundle.trust_profile.domains[0].weighted_total / 2, 1e-4);
      const trust = await call('GET', `/v1/trust?actor=${encodeURIComponent(target)}`, admin);
      const [row] = trust.json.data;
      expect(row).to.include({ actor: target, domain: 'code', judged_by: stranger.did, successes: 6, failures: 1 });
      expect(row.score).to.be.at.most(bundle.trust_profile.domains[0].score);
      // Imported trust is not passed on: the target's own export shows none.
      expect((await call('GET', `/v1/actors/${target}/export`, stranger)).json.trust_profile.domains).to.deep.equal([]);
      // Importing the same bundle again replaces the import: trust is not counted twice.
      expect((await call('POST', path, stranger, { bundle, merge: true })).status).to.equal(201);
      const again = (await call('GET', `/v1/trust?actor=${encodeURIComponent(target)}`, admin)).json.data;
      expect(again.map((r: { total: number }) => r.total)).to.deep.equal([7]);
    });

    it('refuses a retired member new memories and imports, but keeps its memories readable', async () => {
      const retiree = await define(owner, 'retiree');
      await add(retiree, { name: 'kept', memory_type: 'user', description: 'still here' });
      expect((await call('DELETE', `/v1/actors/${retiree}/definition`, owner)).status).to.equal(200);
      await refused(409, 'ACTOR_RETIRED', () => call('POST', memories(retiree), owner, { name: 'new', memory_type: 'user', description: 'x' }));
      const bundle = (await call('GET', `/v1/actors/${retiree}/export`, owner)).json;
      expect(bundle.identity.status).to.equal('retired');
      await refused(409, 'ACTOR_RETIRED', () => call('POST', `/v1/actors/${retiree}/import`, owner, { bundle }));
      expect(await names('', retiree)).to.deep.equal(['kept']);
    });

    it('keeps every memory across a restart', async () => {
      const before = (await call('GET', `${memories(member)}?limit=100`, owner)).json;
      await server.stop();
      await start();
      const after = await call('GET', `${memories(member)}?limit=100`, owner);
      expect(after.status, after.text).to.equal(200);
      expect(after.json).to.deep.equal(before);
      const capabilities = await call('GET', '/v1/capabilities', admin);
      expect(JSON.stringify(capabilities.json)).to.include('members.memory');
    });
  });
}

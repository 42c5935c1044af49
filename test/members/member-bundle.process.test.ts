/**
 * A member carried between two real Loom processes (SQLite → LevelDB, spec
 * §4.15): exported with its memories from one, imported into the member of
 * the same label on the other. Memories, skills and discounted trust arrive;
 * a dry run and a damaged bundle store nothing.
 */
import { expect } from 'chai';
import { memberThreadId } from '../../core/records/thread-id.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { earnTrust } from './member-trust-fixture.js';

describe('a member bundle between two loom processes', function () {
  this.timeout(180_000);
  const started: LoomProcess[] = [];
  let source: LoomProcess;
  let target: LoomProcess;

  before(async () => {
    [source, target] = await Promise.all([startLoomProcess({ storage: 'sqlite' }), startLoomProcess({ storage: 'level' })]);
    started.push(source, target);
  });
  after(async () => {
    for (const process of started) {
      await process.stop();
      await process.remove();
    }
  });

  const call = (url: string, method: string, path: string, who: Credential, json?: unknown) => request(url, method, path, { headers: bearer(who), ...(json === undefined ? {} : { json }) });

  it('carries memories, skills and discounted trust; a dry run and a damaged bundle store nothing', async () => {
    const adminA = await bootstrapAdmin(source.url);
    const defined = await call(source.url, 'POST', '/v1/actors/define', adminA, { label: 'Reviewer', work_loop: { model: 'gpt-5' } });
    expect(defined.status, defined.text).to.equal(201);
    const memberA = defined.json.actor_did as string;
    const asMember = await createAccount(source.url, adminA, 'reviewer-runner', ['records:read', 'records:write'], [memberA]);
    await earnTrust(source.url, adminA, asMember, memberA, { domain: 'code', accepts: 8, rejects: 2 });
    for (const memory of [
      { name: 'lint', memory_type: 'skill', description: 'Run the linter before every review.', tags: ['review'] },
      { name: 'deploy-days', memory_type: 'project', description: 'We deploy on Fridays.', domain: 'ops', confidence: 0.9 },
      { name: 'lead', memory_type: 'user', description: 'The team lead is Ada.' },
    ]) {
      expect((await call(source.url, 'POST', `/v1/actors/${memberA}/memories`, adminA, memory)).status).to.equal(201);
    }
    const exported = await call(source.url, 'GET', `/v1/actors/${memberA}/export?include_memories=true`, adminA);
    expect(exported.status, exported.text).to.equal(200);
    const bundle = exported.json;
    const [sourceTrust] = bundle.trust_profile.domains;
    expect(sourceTrust).to.include({ domain: 'code', successes: 8, failures: 2 });

    const adminB = await bootstrapAdmin(target.url);
    const ownerB = await createAccount(target.url, adminB, 'owner', ['records:read', 'records:write']);
    const memberB = (await call(target.url, 'POST', '/v1/actors/define', ownerB, { label: 'Reviewer', work_loop: { model: 'gpt-5' } })).json.actor_did as string;
    const importPath = `/v1/actors/${memberB}/import`;
    const trustOf = async () => (await get(target.url, `/v1/trust?actor=${encodeURIComponent(memberB)}`, bearer(adminB))).json.data;
    const untouched = async (what: string) => {
      for (const facet of ['memory', 'trust']) {
        const records = await get(target.url, `/v1/threads/${memberThreadId(memberB, facet)}/records`, bearer(adminB));
        expect(records.status, records.text).to.equal(200);
        expect(records.json.data, `${what}: nothing on the ${facet} thread`).to.deep.equal([]);
      }
      expect((await call(target.url, 'GET', `/v1/actors/${memberB}/memories`, ownerB)).json.data, what).to.deep.equal([]);
      expect(await trustOf(), what).to.deep.equal([]);
    };

    const dry = await call(target.url, 'POST', importPath, ownerB, { bundle, dry_run: true });
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.json).to.include({ dry_run: true, memories_imported: 2, skills_imported: 1, trust_domains_imported: 1, pattern_count: 0, source_did: memberA });
    await untouched('dry run');

    const damaged = { ...bundle, memories: bundle.memories.map((m: { name: string }) => (m.name === 'lead' ? { ...m, description: 'The team lead is Mallory.' } : m)) };
    expectEnvelope(await call(target.url, 'POST', importPath, ownerB, { bundle: damaged }), 400, 'IMPORT_FAILED');
    await untouched('damaged bundle');

    const imported = await call(target.url, 'POST', importPath, ownerB, { bundle });
    expect(imported.status, imported.text).to.equal(201);
    expect(imported.json).to.include({ dry_run: false, did: memberB, memories_imported: 2, skills_imported: 1, trust_domains_imported: 1 });
    expect(imported.json.memory_type_counts).to.deep.equal({ skill: 1, project: 1, user: 1 });

    const memories = (await call(target.url, 'GET', `/v1/actors/${memberB}/memories`, ownerB)).json.data;
    expect(memories.map((m: { name: string }) => m.name).sort()).to.deep.equal(['deploy-days', 'lead', 'lint']);
    expect(memories.find((m: { name: string }) => m.name === 'deploy-days')).to.include({ memory_type: 'project', domain: 'ops', confidence: 0.9, description: 'We deploy on Fridays.' });
    for (const memory of memories) expect(memory.imported_from).to.deep.equal({ did: memberA, instance: bundle.trust_profile.instance, digest: bundle.digest });
    const skills = (await call(target.url, 'GET', `/v1/actors/${memberB}/memories?type=skill`, ownerB)).json.data;
    expect(skills.map((m: { name: string }) => m.name)).to.deep.equal(['lint']);

    // Judged by who imported it: the importer vouches for the bundle.
    const [row] = await trustOf();
    expect(row).to.include({ actor: memberB, domain: 'code', judged_by: ownerB.did, successes: 8, failures: 2 });
    expect(row.weighted_total).to.be.closeTo(sourceTrust.weighted_total / 2, 1e-3);
    expect(row.score).to.be.above(0);
    expect(row.score).to.be.below(sourceTrust.score);
  });
});

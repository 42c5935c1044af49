/**
 * Member actors over real HTTP (spec §3, §4.7, §4.15) on SQLite and
 * LevelDB: define and its refusals (each proving the log head did not
 * move), patch, history, revert, retire, the roster and the workspace, the
 * registry's gate, and everything surviving a restart.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_ADMIN, TOOL_READ, TOOL_WRITE } from './member-tools-plugin.js';

for (const storage of ['sqlite', 'level'] as const) {
  describe(`members over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let writer: Credential;

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true }, plugins: [memberToolsPlugin] });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown): Promise<HttpAnswer> => request(server.url, method, path, { headers: bearer(who), ...(json === undefined ? {} : { json }) });
    const head = () => server.loom.engine.store.watermark();
    /** The request is refused with `code` and writes nothing. */
    const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>) => {
      const before = await head();
      const answer = await send();
      expectEnvelope(answer, status, code);
      expect(await head(), `${code} wrote nothing`).to.equal(before);
    };
    const prompt = async (who: Credential, text: string) => {
      const answer = await call('POST', '/v1/records', who, recordInput({ actor: who.did, act: 'KNOW', body: { kind: 'core.actor.prompt.v1', schema_version: '1.0.0', role: 'charter', actor_did: who.did, text } }));
      expect(answer.status, answer.text).to.equal(201);
      return `record:${answer.json.id}`;
    };

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-members-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      writer = await createAccount(server.url, admin, 'writer', ['records:read', 'records:write']);
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('defines a member whose DID derives from the caller and label: the same pair updates it, another caller gets another member', async () => {
      const first = await call('POST', '/v1/actors/define', writer, { label: 'Reviewer', work_loop: { model: 'claude-sonnet-4-6', tools: [TOOL_READ], max_turns: 5 } });
      expect(first.status, first.text).to.equal(201);
      expect(first.json.actor_did).to.match(/^did:sync:agent:reviewer-[0-9a-f]{16}$/);
      expect(first.json.created).to.equal(true);
      const again = await call('POST', '/v1/actors/define', writer, { label: 'Reviewer', work_loop: { model: 'claude-haiku-4-5' } });
      expect(again.status).to.equal(201);
      expect(again.json.actor_did).to.equal(first.json.actor_did);
      expect(again.json.created).to.equal(false);
      const definition = await call('GET', `/v1/records/${again.json.definition}`, admin);
      expect(definition.json.parents).to.deep.equal([first.json.definition]);
      expect(definition.json.body).to.include({ kind: 'core.actor.definition.v1', version: 2, owner: writer.did, by: writer.did });
      const other = await call('POST', '/v1/actors/define', admin, { label: 'Reviewer' });
      expect(other.json.actor_did).to.not.equal(first.json.actor_did);
    });

    it('refuses every malformed or out-of-bounds define by name, writing nothing', async () => {
      const define = (who: Credential, body: unknown) => () => call('POST', '/v1/actors/define', who, body);
      await refused(422, 'INVALID_BODY', define(writer, { label: 'x', brief: 42 }));
      await refused(422, 'INVALID_BODY', define(writer, { label: 'x', surprise: true }));
      await refused(400, 'MISSING_FIELD', define(writer, { brief: 'no label' }));
      await refused(400, 'MISSING_FIELD', define(writer, { label: '   ' }));
      await refused(400, 'DEFINE_FIELD_INERT', define(writer, { label: 'x', work_loop: { reach: ['a'] } }));
      await refused(400, 'DEFINE_FIELD_INERT', define(writer, { label: 'x', admit: [] }));
      await refused(422, 'WORK_PROMPT_UNRESOLVED', define(writer, { label: 'x', work_loop: { system_prompt_ref: 'https://example.com/prompt' } }));
      await refused(422, 'WORK_PROMPT_UNRESOLVED', define(writer, { label: 'x', work_loop: { system_prompt_ref: `record:${'0'.repeat(64)}` } }));
      const notPrompt = await call('POST', '/v1/records', writer, recordInput({ actor: writer.did, body: { kind: 'something.else' } }));
      await refused(422, 'WORK_PROMPT_UNRESOLVED', define(writer, { label: 'x', work_loop: { system_prompt_ref: `record:${notPrompt.json.id}` } }));
      await refused(422, 'MODEL_UNKNOWN', define(writer, { label: 'x', work_loop: { model: 'gpt-0' } }));
      await refused(422, 'TOOL_NOT_DECLARED', define(writer, { label: 'x', work_loop: { tools: ['no_such_tool'] } }));
      await refused(403, 'TOOL_NOT_IN_REACH', define(writer, { label: 'x', work_loop: { tools: [TOOL_ADMIN] } }));
      await refused(403, 'WRITE_KIND_NOT_ADMITTED', define(writer, { label: 'x', write_admit: ['admin'] }));
      await refused(403, 'WRITE_KIND_NOT_ADMITTED', define(writer, { label: 'x', declares_kinds: ['core.identity.grant.v1'] }));
      await refused(403, 'DAILY_CAP_TOO_WIDE', define(writer, { label: 'x', work_loop: { daily_cost_cap_usd: 500 } }));
      await refused(403, 'DAILY_CAP_TOO_WIDE', define(writer, { label: 'x', work_loop: { daily_loop_cap: 100_000 } }));
      const thread = newThread('private');
      const grained = await createAccount(server.url, admin, 'grained', [`thread:${thread}:read`, `thread:${thread}:write`]);
      await refused(403, 'READS_NOT_COVERED', define(grained, { label: 'x', work_loop: { reads: [newThread('elsewhere')] } }));
      await refused(403, 'TOOL_NOT_IN_REACH', define(grained, { label: 'x', work_loop: { tools: [TOOL_WRITE] } }));
      const ok = await call('POST', '/v1/actors/define', grained, { label: 'x', work_loop: { reads: [thread] } });
      expect(ok.status, ok.text).to.equal(201);
      // A credential whose grant allows no further delegation defines no member (it would act under that grant).
      const delegate = (depth: number, aud: string) => request(server.url, 'POST', '/v1/grants', { headers: bearer(admin), json: { with_token: true, aud, scopes: ['records:read', 'records:write'], caveats: { max_depth: depth } } });
      const leaf = await delegate(0, 'did:sync:agent:leaf');
      expect(leaf.status, leaf.text).to.equal(201);
      await refused(422, 'GRANT_REFUSED', () => request(server.url, 'POST', '/v1/actors/define', { headers: bearer(leaf.json.token), json: { label: 'x' } }));
      const branch = await delegate(1, 'did:sync:agent:branch');
      expect((await request(server.url, 'POST', '/v1/actors/define', { headers: bearer(branch.json.token), json: { label: 'x' } })).status).to.equal(201);
      // An operator is not held to the reach bounds (runs are clamped by tier at start).
      const operator = await call('POST', '/v1/actors/define', admin, { label: 'wide', work_loop: { tools: [TOOL_ADMIN], daily_cost_cap_usd: 500 }, write_admit: ['admin'] });
      expect(operator.status, operator.text).to.equal(201);
    });

    it('accepts a prompt record the caller can read, and keeps the registry thread to the member doors', async () => {
      const ref = await prompt(writer, 'You review pull requests.');
      const defined = await call('POST', '/v1/actors/define', writer, { label: 'prompted', work_loop: { model: 'gpt-5', system_prompt_ref: ref } });
      expect(defined.status, defined.text).to.equal(201);
      const forged = await call('POST', '/v1/records', admin, recordInput({ thread: 'th_actor_registry', actor: admin.did, act: 'LEARN', body: { kind: 'core.actor.definition.v1', actor_did: defined.json.actor_did } }));
      expectEnvelope(forged, 403, 'FORBIDDEN');
    });

    it('patches by the owner only, writing prompt words as a record the new version points at', async () => {
      const { json } = await call('POST', '/v1/actors/define', writer, { label: 'patchy', work_loop: { model: 'claude-haiku-4-5', max_turns: 4, tools: [TOOL_READ] } });
      const did = json.actor_did as string;
      const path = `/v1/actors/${did}/definition`;
      await refused(400, 'NOTHING_TO_CHANGE', () => call('PATCH', path, writer, {}));
      await refused(400, 'NOTHING_TO_CHANGE', () => call('PATCH', path, writer, { max_turns: 4 }));
      await refused(403, 'OWNER_ONLY', () => call('PATCH', path, admin, { max_turns: 6 }));
      await refused(404, 'ACTOR_UNKNOWN', () => call('PATCH', '/v1/actors/did:sync:agent:nobody-0000000000000000/definition', writer, { max_turns: 6 }));
      await refused(409, 'ASSISTANT_WOULD_GO_MUTE', () => call('PATCH', path, writer, { max_turns: 0 }));
      await refused(409, 'ASSISTANT_WOULD_GO_MUTE', () => call('PATCH', path, writer, { budget_usd: 0 }));
      await refused(422, 'MODEL_UNKNOWN', () => call('PATCH', path, writer, { model: 'gpt-0' }));
      await refused(422, 'TOOL_NOT_DECLARED', () => call('PATCH', path, writer, { tools: { add: ['nope'] } }));
      await refused(403, 'TOOL_NOT_IN_REACH', () => call('PATCH', path, writer, { tools: { add: [TOOL_ADMIN] } }));
      await refused(422, 'INVALID_BODY', () => call('PATCH', path, writer, { unknown_field: 1 }));
      const patched = await call('PATCH', path, writer, { prompt: 'Be brief.', tools: { add: [TOOL_WRITE, TOOL_READ], remove: [] }, display_name: 'Patchy' });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.json).to.include({ object: 'assistant', did, display_name: 'Patchy', version: 2 });
      expect(patched.json.tools).to.deep.equal([TOOL_READ, TOOL_WRITE]);
      expect(patched.json.prompt_record_id_written).to.equal(patched.json.prompt_record_id);
      const words = await call('GET', `/v1/records/${patched.json.prompt_record_id}`, admin);
      expect(words.json.body).to.include({ kind: 'core.actor.prompt.v1', text: 'Be brief.', actor_did: did });
      const workspace = await call('GET', '/v1/self/workspace', writer);
      expect(workspace.json.models.map((m: { id: string }) => m.id)).to.include('claude-haiku-4-5');
      expect(workspace.json.assistants.find((row: { did: string }) => row.did === did)).to.deep.equal(patched.json.prompt_record_id_written ? (({ prompt_record_id_written: _, ...row }) => row)(patched.json) : patched.json);
    });

    it('loses no change to a concurrent one: versions form one chain', async () => {
      const { json } = await call('POST', '/v1/actors/define', writer, { label: 'busy', work_loop: { model: 'gpt-5', max_turns: 1, budget_usd: 1 } });
      const did = json.actor_did as string;
      const changes = [{ display_name: 'Busy' }, { max_turns: 7 }, { budget_usd: 3 }, { model: 'gpt-5-mini' }, { tools: { add: [TOOL_READ] } }, { prompt: 'Hurry.' }];
      const answers = await Promise.all(changes.map((change) => call('PATCH', `/v1/actors/${did}/definition`, writer, change)));
      for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      const row = (await call('GET', `/v1/actors/${did}/definition`, writer)).json;
      expect(row).to.include({ display_name: 'Busy', max_turns: 7, budget_usd: 3, model: 'gpt-5-mini', version: 7 });
      expect(row.tools).to.deep.equal([TOOL_READ]);
      expect(row.prompt_record_id).to.be.a('string');
      const history = (await call('GET', `/v1/actors/${did}/history`, writer)).json.data as Array<{ definition_record_id: string }>;
      for (let i = 0; i + 1 < history.length; i++) {
        const version = await call('GET', `/v1/records/${history[i]!.definition_record_id}`, admin);
        expect(version.json.parents).to.include(history[i + 1]!.definition_record_id);
      }
    });

    it('keeps history newest first with what changed; revert writes an old version anew; limit and truncated', async () => {
      const { json } = await call('POST', '/v1/actors/define', writer, { label: 'historian', work_loop: { model: 'gpt-5', max_turns: 1 } });
      const did = json.actor_did as string;
      for (let turns = 2; turns <= 25; turns++) expect((await call('PATCH', `/v1/actors/${did}/definition`, writer, { max_turns: turns })).status).to.equal(200);
      const history = await call('GET', `/v1/actors/${did}/history`, writer);
      expect(history.status, history.text).to.equal(200);
      expect(history.json).to.include({ object: 'actor_history', total: 25, truncated: true });
      expect(history.json.data).to.have.length(20);
      expect(history.json.data[0]).to.include({ version: 25, max_turns: 25, change: 'patched', by: writer.did });
      expect(history.json.data[0].changed).to.deep.equal(['max_turns']);
      const all = await call('GET', `/v1/actors/${did}/history?limit=100`, writer);
      expect(all.json.truncated).to.equal(false);
      expect(all.json.data.at(-1).changed).to.deep.equal(['created']);
      await refused(403, 'OWNER_ONLY', () => call('GET', `/v1/actors/${did}/history`, admin));
      const third = all.json.data.find((v: { version: number }) => v.version === 3);
      await refused(404, 'VERSION_UNKNOWN', () => call('POST', `/v1/actors/${did}/definition/revert`, writer, { version: 'f'.repeat(64) }));
      await refused(400, 'NOTHING_TO_CHANGE', () => call('POST', `/v1/actors/${did}/definition/revert`, writer, { version: all.json.data[0].definition_record_id }));
      const reverted = await call('POST', `/v1/actors/${did}/definition/revert`, writer, { version: third.definition_record_id });
      expect(reverted.status, reverted.text).to.equal(200);
      expect(reverted.json).to.include({ version: 26, max_turns: 3, reverted_to: third.definition_record_id });
      const [oldBody, newBody] = await Promise.all([third.definition_record_id, reverted.json.definition_record_id].map(async (id) => (await call('GET', `/v1/records/${id}`, admin)).json.body));
      const strip = ({ version: _v, change: _c, reverted_to: _r, ...rest }: Record<string, unknown>) => rest;
      expect(strip(newBody)).to.deep.equal(strip(oldBody));
      expect(newBody.change).to.equal('reverted');
    });

    it('retires by the definer or an operator: shape, revert and writes as the member refused; defining again brings it back', async () => {
      const { json } = await call('POST', '/v1/actors/define', writer, { label: 'retiree', work_loop: { model: 'gpt-5' } });
      const did = json.actor_did as string;
      const other = await createAccount(server.url, admin, 'other', ['records:read', 'records:write']);
      await refused(403, 'RETIRE_FORBIDDEN', () => call('DELETE', `/v1/actors/${did}/definition`, other));
      await refused(404, 'NO_SUCH_ACTOR', () => call('DELETE', '/v1/actors/did:sync:agent:gone-0000000000000000/definition', writer));
      const retired = await call('DELETE', `/v1/actors/${did}/definition`, admin);
      expect(retired.status, retired.text).to.equal(200);
      expect(retired.json).to.deep.equal({ object: 'actor', did, retired: true });
      await refused(409, 'ACTOR_RETIRED', () => call('PATCH', `/v1/actors/${did}/definition`, writer, { max_turns: 9 }));
      const history = await call('GET', `/v1/actors/${did}/history`, writer);
      expect(history.json.data[0]).to.include({ change: 'retired', retired: true, by: admin.did });
      await refused(409, 'ACTOR_RETIRED', () => call('POST', `/v1/actors/${did}/definition/revert`, writer, { version: history.json.data[1].definition_record_id }));
      await refused(403, 'FORBIDDEN', () => call('POST', '/v1/records', admin, recordInput({ actor: did, act: 'KNOW', body: { note: 'still here?' } })));
      const back = await call('POST', '/v1/actors/define', writer, { label: 'retiree', work_loop: { model: 'gpt-5' } });
      expect(back.status).to.equal(201);
      expect(back.json.actor_did).to.equal(did);
      const row = (await call('GET', '/v1/self/workspace', writer)).json.assistants.find((r: { did: string }) => r.did === did);
      expect(row).to.include({ retired: false, enabled: true, version: 3 });
    });

    it('lists the roster a page at a time; a grain-restricted caller sees only the members it defined', async () => {
      const all = await call('GET', '/v1/actors/roster?limit=2', admin);
      expect(all.status, all.text).to.equal(200);
      expect(all.json.object).to.equal('actor_roster');
      expect(all.json.data).to.have.length(2);
      expect(all.json.has_more).to.equal(true);
      const next = await call('GET', `/v1/actors/roster?limit=1000&after=${encodeURIComponent(all.json.next_after)}`, admin);
      // A credential with the coarse read scope (not an admin) sees every member too.
      const asWriter = await call('GET', '/v1/actors/roster?limit=1000', writer);
      expect(asWriter.json.count).to.equal(all.json.count);
      expect(2 + next.json.data.length).to.equal(all.json.count);
      const entry = [...all.json.data, ...next.json.data].find((e: { label: string; proposer: string }) => e.label === 'Reviewer' && e.proposer === writer.did);
      expect(entry).to.include({ object: 'roster_entry', adapter_kind: 'llm', enabled: true, model: 'claude-haiku-4-5' });
      expect(entry.trust).to.be.an('object');
      const thread = newThread('mine');
      const grained = await createAccount(server.url, admin, 'grained-roster', [`thread:${thread}:read`, `thread:${thread}:write`]);
      expect((await call('POST', '/v1/actors/define', grained, { label: 'mine' })).status).to.equal(201);
      const mine = await call('GET', '/v1/actors/roster', grained);
      expect(mine.json.data.map((e: { proposer: string }) => e.proposer)).to.deep.equal([grained.did]);
      const detail = await call('GET', `/v1/actors/${entry.did}/definition`, admin);
      expect(detail.status, detail.text).to.equal(200);
      expect(detail.json).to.include({ did: entry.did, owner: writer.did, model: 'claude-haiku-4-5', verification: 'none' });
      expectEnvelope(await call('GET', `/v1/actors/${entry.did}/definition`, grained), 404, 'ACTOR_UNKNOWN');
      expect((await call('GET', `/v1/actors/${mine.json.data[0].did}/definition`, grained)).status).to.equal(200);
    });

    it('keeps every member, version and retirement across a restart', async () => {
      const before = await call('GET', '/v1/actors/roster?limit=1000', admin);
      await server.stop();
      await start();
      const after = await call('GET', '/v1/actors/roster?limit=1000', admin);
      expect(after.status, after.text).to.equal(200);
      expect(after.json).to.deep.equal(before.json);
      const retiree = after.json.data.find((e: { label: string }) => e.label === 'retiree');
      expect(retiree).to.include({ retired: false, version: 3 });
      const capabilities = await call('GET', '/v1/capabilities', admin);
      expect(JSON.stringify(capabilities.json)).to.include('members.define');
    });
  });
}

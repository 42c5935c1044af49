/**
 * A mutation fuzzer over the handshake bodies (issue 35 goal 3, the
 * handshake part): a genuine signed pair request, poll and revoke notice,
 * each mutated one way per case (a field replaced by any JSON value, a
 * string field with one character changed, a field removed, a field added,
 * a nested manifest field changed) and sent to a real server in this
 * process. Every mutation must be refused with a typed error from the
 * catalogue, and nothing may be written: the store's watermark never moves.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { isErrorCode } from '../../core/errors/codes.js';
import { newNonce, signBody } from '../../plugins/federation/handshake/handshake-bodies.js';
import { get, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { foreignInitiator, type ForeignInitiator } from './handshake-helpers.js';

type Body = Record<string, unknown>;

/** One mutation of `body` (never a no-op: the caller drops those). */
const mutation = (body: Body): fc.Arbitrary<Body> => {
  const keys = Object.keys(body);
  const key = fc.constantFrom(...keys);
  const replaced = fc.tuple(key, fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => ({ ...body, [k]: v }));
  const removed = key.map((k) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== k)));
  const added = fc.tuple(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in body)), fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => ({ ...body, [k]: v }));
  const strings = keys.filter((k) => typeof body[k] === 'string');
  const flipped = fc.tuple(fc.constantFrom(...strings), fc.nat(), fc.integer({ min: 33, max: 126 })).map(([k, at, code]) => {
    const text = body[k] as string;
    const i = at % text.length;
    return { ...body, [k]: text.slice(0, i) + String.fromCharCode(code) + text.slice(i + 1) };
  });
  const options: fc.Arbitrary<Body>[] = [replaced, removed, added, flipped];
  const manifest = body['initiator_manifest'];
  if (manifest && typeof manifest === 'object') {
    const inner = manifest as Body;
    const nested = fc.tuple(fc.constantFrom(...Object.keys(inner)), fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => ({ ...body, initiator_manifest: { ...inner, [k]: v } }));
    const signature = inner['signature'] as Body;
    const sigField = fc.tuple(fc.constantFrom(...Object.keys(signature)), fc.string({ maxLength: 90 })).map(([k, v]) => ({ ...body, initiator_manifest: { ...inner, signature: { ...signature, [k]: v } } }));
    options.push(nested, sigField);
  }
  return fc.oneof(...options);
};

describe('handshake bodies under a mutation fuzzer', function () {
  this.timeout(180_000);
  let server: StartedServer;
  let responderDid: string;
  let foreign: ForeignInitiator;
  let pairId: string;
  const refusedBy = new Map<string, number>();

  before(async () => {
    // The foreign initiator's URL answers nothing: its pair must not turn degraded (a record) while the fuzzer counts writes.
    server = await startServer({ federation: { pairPosture: 'open', failingAfterErrors: 1000 } });
    responderDid = (await get(server.url, '/health')).json.instance_did;
    foreign = foreignInitiator();
    const paired = await request(server.url, 'POST', '/v1/federation/pair', { json: foreign.request(responderDid) });
    expect(paired.status, paired.text).to.equal(200);
    pairId = paired.json.pair_id;
  });
  after(async () => {
    if (process.env['LOOM_TEST_FIGURES'] === '1') console.log(`      refusals by code: ${JSON.stringify(Object.fromEntries(refusedBy))}`);
    await server?.stop();
  });

  async function fuzz(path: string, genuine: () => Body, runs: number): Promise<void> {
    const head = () => server.loom.engine.store.watermark();
    const base = genuine();
    const before = await head();
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(mutation(base), async (mutated) => {
        if (canonicalJson(mutated) === canonicalJson(base)) return;
        cases++;
        const answer = await request(server.url, 'POST', path, { json: mutated });
        expect(answer.status, `${answer.status} ${answer.text} for ${JSON.stringify(mutated).slice(0, 300)}`).to.be.within(400, 499);
        expect(isErrorCode(answer.json?.code), answer.text).to.equal(true);
        refusedBy.set(answer.json.code, (refusedBy.get(answer.json.code) ?? 0) + 1);
      }),
      { numRuns: runs },
    );
    expect(await head()).to.deep.equal(before);
    expect(cases).to.be.greaterThan(runs * 0.9);
  }

  it('refuses every mutated pair request with a typed error, writing nothing', async () => {
    await fuzz('/v1/federation/pair', () => foreign.request(responderDid), 3000);
  });

  it('refuses every mutated poll with a typed error, writing nothing', async () => {
    await fuzz(`/v1/federation/pair/${pairId}/poll`, () => signBody(foreign.key, { object: 'pair_poll', pair_id: pairId, initiator_did: foreign.key.did, responder_did: responderDid, nonce: newNonce(), created: new Date().toISOString() }), 1000);
  });

  it('refuses every mutated token renewal with a typed error, writing nothing (no token minted)', async () => {
    await fuzz(`/v1/federation/pair/${pairId}/renew`, () => signBody(foreign.key, { object: 'pair_token_renew', pair_id: pairId, from_did: foreign.key.did, to_did: responderDid, nonce: newNonce(), created: new Date().toISOString() }), 1000);
    expect((await get(server.url, `/v1/federation/pairs/${pairId}`)).json.token_renewed_at).to.equal(null);
  });

  it('refuses every mutated revoke notice with a typed error, writing nothing (the pair stays active)', async () => {
    await fuzz(`/v1/federation/pair/${pairId}/revoke`, () => signBody(foreign.key, { object: 'pair_revoke_notice', pair_id: pairId, from_did: foreign.key.did, to_did: responderDid, nonce: newNonce(), created: new Date().toISOString(), reason: 'fuzz' }), 1000);
    expect((await get(server.url, `/v1/federation/pairs/${pairId}`)).json.state).to.equal('active');
  });
});

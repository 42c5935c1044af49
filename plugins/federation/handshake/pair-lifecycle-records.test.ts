import { expect } from 'chai';
import type { LoomRecord } from '../../../core/records/record.js';
import { applyFederationPairRecord, HANDSHAKE_KIND, REVOKE_KIND, type FederationPairTable } from './federation-pair-records.js';
import { LIFECYCLE_KIND } from './pair-lifecycle-records.js';

const record = (body: Record<string, unknown>) => ({ body: { at: '2026-05-01T00:00:00.000Z', ...body } }) as unknown as LoomRecord;
const step = (name: string, extra: Record<string, unknown> = {}) => record({ kind: LIFECYCLE_KIND, step: name, pair_id: 'fed_1', ...extra });
const token = (sa: string) => ({ service_account_id: sa, token_id: `${sa}_token_id`, expires_at: '2026-08-01T00:00:00.000Z' });

function activePair(): FederationPairTable {
  const table: FederationPairTable = { pairs: new Map(), nonces: new Set() };
  applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'requested', pair_id: 'fed_1', role: 'initiator', peer_did: 'did:key:zPeer', peer_url: 'http://peer', mode: 'polling', nonce: 'n1', sync_pair_id: 'sp_1', peer_manifest: { a: 1 }, issued: token('sa_1'), scopes: [] }));
  return table;
}

describe('federation pair lifecycle steps', () => {
  it('establishing takes no pause, degrade or renewal; active ⇄ paused, active ⇄ degraded', () => {
    const table = activePair();
    const pair = table.pairs.get('fed_1')!;
    for (const name of ['paused', 'degraded', 'recovered']) applyFederationPairRecord(table, step(name, { error: { code: 'X', message: 'm', at: 'now' } }));
    expect(pair.state).to.equal('establishing');
    applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'active', pair_id: 'fed_1' }));
    applyFederationPairRecord(table, step('degraded', { error: { code: 'CONNECT_REFUSED', message: 'refused', at: 't' } }));
    expect(pair).to.include({ state: 'degraded' });
    expect(pair.last_error).to.deep.equal({ code: 'CONNECT_REFUSED', message: 'refused', at: 't' });
    applyFederationPairRecord(table, step('recovered'));
    expect(pair).to.include({ state: 'active', degraded_at: null });
    expect(pair.last_error?.code, 'the last failure is kept').to.equal('CONNECT_REFUSED');
    applyFederationPairRecord(table, step('paused'));
    applyFederationPairRecord(table, step('degraded', { error: { code: 'X', message: 'm', at: 't' } }));
    expect(pair.state, 'a paused pair is not degraded').to.equal('paused');
    applyFederationPairRecord(table, step('resumed'));
    expect(pair).to.include({ state: 'active', paused_at: null });
  });

  it('settings, a changed manifest, a renewal and its retirement; nothing after revoked', () => {
    const table = activePair();
    const pair = table.pairs.get('fed_1')!;
    applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'active', pair_id: 'fed_1' }));
    applyFederationPairRecord(table, step('settings', { mode: 'on-demand', poll_interval_ms: 2000 }));
    applyFederationPairRecord(table, step('settings', { mode: 'push' }));
    expect(pair).to.include({ mode: 'on-demand', poll_interval_ms: 2000 });
    applyFederationPairRecord(table, step('peer_manifest_changed', { manifest: { a: 2 } }));
    expect(pair.peer_manifest).to.deep.equal({ a: 2 });
    applyFederationPairRecord(table, step('token_renewed', { side: 'issued', issued: token('sa_2'), previous: token('sa_1') }));
    expect(pair.issued?.service_account_id).to.equal('sa_2');
    expect(pair.previous_issued?.service_account_id).to.equal('sa_1');
    applyFederationPairRecord(table, step('token_retired', { service_account_id: 'sa_other' }));
    expect(pair.previous_issued).to.not.equal(null);
    applyFederationPairRecord(table, step('token_retired', { service_account_id: 'sa_1' }));
    expect(pair.previous_issued).to.equal(null);
    applyFederationPairRecord(table, step('token_renewed', { side: 'held', held_token_expires_at: '2026-09-01T00:00:00.000Z' }));
    expect(pair.held_token_expires_at).to.equal('2026-09-01T00:00:00.000Z');
    applyFederationPairRecord(table, record({ kind: REVOKE_KIND, pair_id: 'fed_1', side: 'local', reason: 'done' }));
    applyFederationPairRecord(table, step('resumed'));
    applyFederationPairRecord(table, step('settings', { mode: 'continuous' }));
    expect(pair).to.include({ state: 'revoked', mode: 'on-demand' });
  });
});

import { expect } from 'chai';
import type { LoomRecord } from '../../../core/records/record.js';
import { applyFederationPairRecord, HANDSHAKE_KIND, REVOKE_KIND, type FederationPairTable } from './federation-pair-records.js';

const record = (body: Record<string, unknown>) => ({ body: { at: '2026-05-01T00:00:00.000Z', ...body } }) as unknown as LoomRecord;
const requested = { kind: HANDSHAKE_KIND, step: 'requested', pair_id: 'fed_1', role: 'responder', peer_did: 'did:key:zPeer', peer_url: 'http://peer', mode: 'polling', nonce: 'n1', sync_pair_id: 'sp_1', peer_manifest: {}, issued: null, scopes: [] };

describe('federation pair steps', () => {
  it('requested → approved → active → revoked, and revoked is terminal', () => {
    const table: FederationPairTable = { pairs: new Map(), nonces: new Set() };
    applyFederationPairRecord(table, record(requested));
    expect(table.pairs.get('fed_1')!.state).to.equal('establishing');
    expect(table.nonces.has('n1')).to.equal(true);
    applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'approved', pair_id: 'fed_1', by: 'did:sync:user:op', scopes: ['federation:sync'], issued: { service_account_id: 'sa_x', token_id: 'abc', expires_at: '2026-08-01T00:00:00.000Z' } }));
    expect(table.pairs.get('fed_1')).to.include({ state: 'establishing', approved_by: 'did:sync:user:op' });
    applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'active', pair_id: 'fed_1' }));
    expect(table.pairs.get('fed_1')!.state).to.equal('active');
    applyFederationPairRecord(table, record({ kind: REVOKE_KIND, pair_id: 'fed_1', side: 'peer', reason: 'gone' }));
    expect(table.pairs.get('fed_1')).to.include({ state: 'revoked', revoked_by: 'peer', revoked_reason: 'gone' });
    applyFederationPairRecord(table, record({ kind: HANDSHAKE_KIND, step: 'active', pair_id: 'fed_1' }));
    applyFederationPairRecord(table, record({ kind: REVOKE_KIND, pair_id: 'fed_1', side: 'local', reason: 'again' }));
    expect(table.pairs.get('fed_1')).to.include({ state: 'revoked', revoked_by: 'peer' });
  });

  it('ignores a second requested for the same pair and other kinds', () => {
    const table: FederationPairTable = { pairs: new Map(), nonces: new Set() };
    applyFederationPairRecord(table, record(requested));
    applyFederationPairRecord(table, record({ ...requested, role: 'initiator', nonce: 'n2' }));
    expect(table.pairs.get('fed_1')!.role).to.equal('responder');
    applyFederationPairRecord(table, record({ kind: 'core.sync.pair.v1', event: 'deleted', pair_id: 'fed_1' }));
    expect(table.pairs.size).to.equal(1);
  });
});

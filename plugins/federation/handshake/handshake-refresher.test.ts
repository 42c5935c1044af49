import { expect } from 'chai';
import type { Logger } from '../../../core/plugin/logger.js';
import type { FederationPair } from './federation-pair-records.js';
import { HandshakeRefresher } from './handshake-refresher.js';
import type { PairInitiator } from './pair-initiator.js';
import type { PairLog } from './pair-log.js';
import type { PairRevoker } from './pair-revoker.js';

describe('HandshakeRefresher', () => {
  it('backs off a failing poll and warns once per streak, then expires the request after its lifetime', async () => {
    let now = Date.parse('2026-05-01T00:00:00Z');
    const pair = { pair_id: 'fed_1', role: 'initiator', state: 'establishing', requested_at: new Date(now).toISOString() } as unknown as FederationPair;
    const log = { all: () => [pair], instanceDid: 'did:key:zSelf' } as unknown as PairLog;
    let polls = 0;
    const initiator = { refresh: async () => { polls++; throw Object.assign(new Error('401'), { code: 'PAIR_HANDSHAKE_FAILED' }); } } as unknown as PairInitiator;
    const revoked: string[] = [];
    const revoker = { revoke: async (id: string, input: { reason: string }) => { revoked.push(`${id} ${input.reason}`); (pair as { state: string }).state = 'revoked'; } } as unknown as PairRevoker;
    const warnings: string[] = [];
    const logger = { log: (level: string, message: string) => level === 'warn' && warnings.push(message) } as unknown as Logger;
    const refresher = new HandshakeRefresher(log, initiator, revoker, { intervalMs: 1_000, pendingTtlMs: 7 * 86_400_000, now: () => now }, logger);
    // One tick a second for an hour.
    for (let s = 0; s < 3600; s++) {
      await refresher.tick();
      now += 1_000;
    }
    expect(warnings, 'one warning, not one a second').to.have.length(1);
    // 1 s, 2 s, 4 s, … capped at 5 min: about 20 polls in the hour, not 3600.
    expect(polls).to.be.within(10, 25);
    now = Date.parse(pair.requested_at) + 7 * 86_400_000;
    await refresher.tick();
    expect(revoked).to.have.length(1);
    expect(revoked[0]).to.match(/^fed_1 expired/);
    const before = polls;
    await refresher.tick();
    expect(polls).to.equal(before);
  });
});

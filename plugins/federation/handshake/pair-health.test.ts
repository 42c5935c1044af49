import { expect } from 'chai';
import type { Logger } from '../../../core/plugin/logger.js';
import { PairError } from '../pair-error.js';
import type { FederationPair } from './federation-pair-records.js';
import type { HandshakeDeps } from './handshake-deps.js';
import { PairHealth } from './pair-health.js';

/** A pair log that keeps written steps and applies degraded/recovered. */
function world(heldExpiresAt: string | null = null) {
  const pair = { pair_id: 'fed_1', sync_pair_id: 'sp_1', state: 'active', held_token_expires_at: heldExpiresAt } as unknown as FederationPair;
  const written: Array<Record<string, unknown>> = [];
  const log = {
    all: () => [pair],
    find: () => pair,
    exclusive: <T>(work: () => Promise<T>) => work(),
    write: async (body: Record<string, unknown>) => {
      written.push(body);
      if (body['step'] === 'degraded') pair.state = 'degraded';
      if (body['step'] === 'recovered') pair.state = 'active';
    },
  };
  const logger: Logger = { log: () => {} } as unknown as Logger;
  const health = new PairHealth({ log, logger, now: () => Date.parse('2026-05-01T00:00:00Z'), options: { failingAfterErrors: 3 } } as unknown as Pick<HandshakeDeps, 'log' | 'logger' | 'now' | 'options'>);
  return { pair, written, health };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
const failure = (retries: number, error = new PairError('CONNECT_REFUSED', 'refused')) => ({ ok: false as const, error, retries, nextAttemptAt: Date.parse('2026-05-01T00:00:01Z') });

describe('PairHealth (degraded)', () => {
  it('degrades at the 3rd failed pull in a row, once; recovers at the next success, once', async () => {
    const { pair, written, health } = world();
    health.observe('sp_1', failure(1));
    health.observe('sp_1', failure(2));
    await settle();
    expect(written).to.have.length(0);
    health.observe('sp_1', failure(3));
    await settle();
    health.observe('sp_1', failure(4));
    health.observe('sp_1', failure(5));
    await settle();
    expect(written.map((w) => w['step'])).to.deep.equal(['degraded']);
    expect(written[0]!['error']).to.include({ code: 'CONNECT_REFUSED' });
    expect(written[0]!['next_retry_at']).to.equal('2026-05-01T00:00:01.000Z');
    health.observe('sp_1', { ok: true });
    health.observe('sp_1', { ok: true });
    await settle();
    expect(written.map((w) => w['step'])).to.deep.equal(['degraded', 'recovered']);
    expect(pair.state).to.equal('active');
  });

  it('degrades at once when the peer refuses this side token (401) or the held token expired', async () => {
    const refused = world();
    refused.health.observe('sp_1', failure(1, new PairError('HTTP_4XX', 'answered 401', 401)));
    await settle();
    expect(refused.written[0]!['error']).to.include({ code: 'PEER_REFUSED_TOKEN' });
    const expired = world('2026-04-30T00:00:00.000Z');
    expired.health.observe('sp_1', failure(1, new PairError('HTTP_4XX', 'answered 401', 401)));
    await settle();
    expect(expired.written[0]!['error']).to.include({ code: 'TOKEN_EXPIRED' });
  });

  it('ignores sync pairs of no federation pair, and a paused pair', async () => {
    const { pair, written, health } = world();
    health.observe('sp_other', failure(9));
    (pair as { state: string }).state = 'paused';
    health.observe('sp_1', failure(9));
    await settle();
    expect(written).to.have.length(0);
  });
});

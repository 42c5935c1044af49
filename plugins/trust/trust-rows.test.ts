/**
 * Reading the state: filters, the all-judges grouping, and trust per
 * principal (DIDs merged through a resolver, aliases judging their own
 * principal left out).
 */
import { expect } from 'chai';
import type { PrincipalResolver } from '../../core/access/principal-resolver.js';
import { applyTrust } from './trust-fold.js';
import { principalTrust, trustScores } from './trust-rows.js';
import { emptyTrustState, type TrustState } from './trust-state.js';
import { DAY_MS, did, T0, TrustLog } from '../../test/helpers/trust-log.js';
import { wilsonLowerBound } from './wilson.js';

const ADA = did('ada');
const ADA_BOT = did('ada-bot'); // an alias of ada
const BOB = did('bob');
const J1 = did('judge-1');
const J2 = did('judge-2');

function build(log: TrustLog): TrustState {
  return log.inputs.reduce<TrustState>((s, input) => applyTrust(s, input), emptyTrustState());
}

function scenario() {
  const log = new TrustLog();
  const judge = (judge: string, worker: string, word: string, domain = 'code') => {
    const task = log.intend(did('lead'), { domain });
    log.verdict(judge, log.claim(worker, task.id).id, word);
  };
  judge(J1, ADA, 'accept');
  judge(J1, ADA, 'accept');
  log.time += DAY_MS;
  judge(J2, ADA, 'reject');
  judge(J1, ADA_BOT, 'accept');
  judge(J1, BOB, 'accept', 'docs');
  judge(ADA_BOT, ADA, 'accept'); // ada's alias judging ada: self-judgment by principal
  return { log, state: build(log) };
}

const resolver: PrincipalResolver = { principalOf: (d) => (d === ADA_BOT ? ADA : d) };

describe('trust rows: filters, groupings and principals', () => {
  it('filters by actor, domain and judge', () => {
    const { log, state } = scenario();
    expect(trustScores(state, log.time, null, { actor: ADA }).map((r) => r.judged_by).sort()).to.deep.equal([ADA_BOT, J1, J2].sort());
    expect(trustScores(state, log.time, null, { domain: 'docs' }).map((r) => r.actor)).to.deep.equal([BOB]);
    expect(trustScores(state, log.time, null, { judged_by: J2 }).map((r) => [r.actor, r.failures])).to.deep.equal([[ADA, 1]]);
    expect(trustScores(state, log.time, null, { actor: did('nobody') })).to.deep.equal([]);
  });

  it('aggregates every judge per (actor, domain), summing weighted counts before the bound', () => {
    const { log, state } = scenario();
    const rows = trustScores(state, log.time, resolver, { actor: ADA }, 'actor_domain');
    expect(rows).to.have.length(1);
    const row = rows[0]!;
    // ada-bot's verdict on ada is left out (same principal): 2 accepts by J1 (a day old) and 1 reject by J2 (fresh).
    const w = 2 ** (-1 / 90);
    expect(row).to.deep.include({ object: 'trust_score', actor: ADA, domain: 'code', judged_by: null, judges: 2, successes: 2, failures: 1, total: 3 });
    expect(row.weighted_successes).to.be.closeTo(2 * w, 1e-4);
    expect(row.weighted_total).to.be.closeTo(2 * w + 1, 1e-4);
    expect(row.score).to.be.closeTo(wilsonLowerBound(2 * w, 2 * w + 1), 1e-4);
    // The latest judgment in force is J2's reject, made a day after the others.
    expect(row.last_verdict_at).to.equal(new Date(T0 + DAY_MS).toISOString());
  });

  it('merges a principal’s DIDs into one row per domain, without the alias judging its own principal', () => {
    const { log, state } = scenario();
    let calls = 0;
    const counting: PrincipalResolver = {
      principalOf: (d) => {
        calls++;
        return resolver.principalOf(d);
      },
    };
    const rows = principalTrust(state, log.time, counting);
    expect(rows.map((r) => [r.principal, r.domain, r.dids, r.successes, r.failures, r.judges])).to.deep.equal([
      [ADA, 'code', [ADA, ADA_BOT].sort(), 3, 1, 2],
      [BOB, 'docs', [BOB], 1, 0, 1],
    ]);
    expect(calls, 'each DID resolved once per answer').to.be.at.most(5);
  });

  it('without a resolver every DID is its own principal', () => {
    const { log, state } = scenario();
    const rows = principalTrust(state, log.time, null);
    expect(rows.map((r) => r.principal).sort()).to.deep.equal([ADA, ADA_BOT, BOB].sort());
    expect(rows.find((r) => r.principal === ADA)).to.deep.include({ total: 4, judges: 3 });
  });
});

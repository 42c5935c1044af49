/** The memory gate: memory records only from the member doors or a replay; never from a peer (memories are their instance's own). */
import { expect } from 'chai';
import { SYSTEM } from '../../../core/access/caller.js';
import { TrustLog } from '../../../test/helpers/trust-log.js';
import { memoryGate } from './memory-gate.js';
import { KIND_MEMORY } from './memory.js';

describe('members.memory gate', () => {
  const log = new TrustLog();
  const memory = log.add('did:sync:system:loom-x', 'LEARN', { kind: KIND_MEMORY, status: 'created', name: 'n' });
  const other = log.add('did:sync:system:loom-x', 'LEARN', { kind: 'something.else' });
  const check = (record = memory, context: Record<string, unknown> = {}) => () => memoryGate.check({ record, namespace: 'default', context: { caller: SYSTEM, via: 'api', ...context } as never });

  it('refuses a memory record from POST /v1/records or another plugin, admits the members plugin and a replay, refuses a peer', () => {
    expect(check()).to.throw().with.property('code', 'FORBIDDEN');
    expect(check(memory, { via: 'engine', plugin: 'data-plane' })).to.throw().with.property('code', 'FORBIDDEN');
    expect(check(memory, { via: 'engine', plugin: 'members' })).not.to.throw();
    expect(check(memory, { via: 'replay' })).not.to.throw();
    expect(check(memory, { via: 'federation' })).to.throw().with.property('code', 'FORBIDDEN');
    expect(check(other)).not.to.throw();
  });
});

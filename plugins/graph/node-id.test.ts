/** Graph node ids: the three prefixed forms and the bare ids whose kind is inferred. */
import { expect } from 'chai';
import { nodeId, parseNodeId } from './node-id.js';

const THREAD = `th_${'c'.repeat(64)}`;
const RECORD = 'd'.repeat(64);

describe('graph node ids', () => {
  it('reads the prefixed forms and infers the kind of a bare id', () => {
    expect(parseNodeId('actor:did:sync:user:alice')).to.deep.equal({ kind: 'actor', key: 'did:sync:user:alice' });
    expect(parseNodeId('did:web:example.com')).to.deep.equal({ kind: 'actor', key: 'did:web:example.com' });
    expect(parseNodeId(`thread:${THREAD}`)).to.deep.equal({ kind: 'thread', key: THREAD });
    expect(parseNodeId(THREAD)).to.deep.equal({ kind: 'thread', key: THREAD });
    expect(parseNodeId('th_engine_config')).to.deep.equal({ kind: 'thread', key: 'th_engine_config' });
    expect(parseNodeId(`record:${RECORD}`)).to.deep.equal({ kind: 'record', key: RECORD });
    expect(parseNodeId(RECORD)).to.deep.equal({ kind: 'record', key: RECORD });
  });

  it('round-trips what it writes', () => {
    for (const [kind, key] of [['actor', 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'], ['thread', THREAD], ['record', RECORD]] as const) {
      expect(parseNodeId(nodeId(kind, key))).to.deep.equal({ kind, key });
    }
  });

  it('refuses what names no node', () => {
    for (const raw of ['', 'alice', 'actor:', 'actor:alice', `record:${THREAD}`, `thread:did:sync:user:a`, 'th_123', RECORD.slice(1), `${RECORD}0`, 'did:sync:', 'user:did:sync:user:a']) {
      expect(parseNodeId(raw), raw).to.equal(null);
    }
  });
});

import { expect } from 'chai';
import { credentialCaller } from '../access/caller.js';
import type { GateInput, IngestGate } from '../access/ingest-gate.js';
import { LoomError } from '../errors/loom-error.js';
import { LoomEngine } from './loom-engine.js';
import { ENGINE_WRITE } from './ingest.js';
import { rec, TH_A } from '../../test/helpers/test-engine.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';

async function engineWith(gates: IngestGate[], errors: string[] = []): Promise<{ engine: LoomEngine; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-gates-'));
  const engine = new LoomEngine({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }), onError: (_e, context) => errors.push(context) });
  for (const gate of gates) engine.addIngestGate(gate);
  await engine.start();
  return { engine, cleanup: async () => (await engine.stop(), await rm(dir, { recursive: true, force: true })) };
}

describe('ingest gates', () => {
  it('run after core checks, in order, with the record, namespace and context; the first refusal wins and nothing is stored', async () => {
    const seen: string[] = [];
    const inputs: GateInput[] = [];
    const gates: IngestGate[] = [
      { name: 'a.first', check: (input) => void (seen.push('first'), inputs.push(input)) },
      { name: 'a.refuse', check: ({ record }) => { seen.push('refuse'); if (record.clock === 1) throw new LoomError('FORBIDDEN', 'no clock 1'); } },
      { name: 'a.last', check: () => void seen.push('last') },
    ];
    const { engine, cleanup } = await engineWith(gates);
    try {
      const caller = credentialCaller({ principal: 'did:sync:system:sa_x', scopes: ['records:write'] });
      await engine.ingestor.ingest({ caller, via: 'api' }, rec({ clock: 0 }));
      expect(seen).to.deep.equal(['first', 'refuse', 'last']);
      expect(inputs[0]!.context).to.deep.equal({ caller, via: 'api' });
      expect(inputs[0]!.namespace).to.equal('default');
      seen.length = 0;
      const refused = await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 1 })).catch((e) => e);
      expect(refused).to.be.instanceOf(LoomError).and.to.include({ code: 'FORBIDDEN' });
      expect(seen).to.deep.equal(['first', 'refuse']);
      expect(await engine.store.watermark()).to.equal(1);
      // Core's own checks come first: an invalid record never reaches a gate.
      seen.length = 0;
      expect(await engine.ingestor.ingest(ENGINE_WRITE, { thread: 'nope' }).catch((e) => e.code)).to.equal('INVALID_SHAPE');
      expect(seen).to.deep.equal([]);
    } finally {
      await cleanup();
    }
  });

  it('fail closed: a gate that crashes refuses the record with INTERNAL, stores nothing and reports it', async () => {
    const errors: string[] = [];
    const crashing: IngestGate = { name: 'a.crash', check: () => { throw new TypeError('boom'); } };
    const { engine, cleanup } = await engineWith([crashing], errors);
    try {
      const refused = await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 0 })).catch((e) => e);
      expect(refused).to.be.instanceOf(LoomError).and.to.include({ code: 'INTERNAL' });
      expect(await engine.store.watermark()).to.equal(0);
      expect(errors.some((e) => e.includes('a.crash'))).to.equal(true);
      const many = await engine.ingestor.ingestMany(ENGINE_WRITE, [rec({ clock: 0 }), rec({ clock: 1 })]);
      expect(many.map((r) => (r as LoomError).code)).to.deep.equal(['INTERNAL', 'INTERNAL']);
      expect(await engine.store.watermark()).to.equal(0);
    } finally {
      await cleanup();
    }
  });

  it('async gates are awaited and fail closed too; ingestMany refuses only the records a gate refuses', async () => {
    const asyncGate: IngestGate = {
      name: 'a.async',
      check: async ({ record }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (record.clock === 1) throw new LoomError('FORBIDDEN', 'no');
        if (record.clock === 2) throw new RangeError('crash');
      },
    };
    const { engine, cleanup } = await engineWith([asyncGate]);
    try {
      const results = await engine.ingestor.ingestMany(ENGINE_WRITE, [rec({ clock: 0 }), rec({ clock: 1 }), rec({ clock: 2 }), rec({ clock: 3, thread: TH_A })]);
      expect(results.map((r) => (r instanceof LoomError ? r.code : 'stored'))).to.deep.equal(['stored', 'FORBIDDEN', 'INTERNAL', 'stored']);
      expect(await engine.store.watermark()).to.equal(2);
    } finally {
      await cleanup();
    }
  });

  it('refuses a gate added after start', async () => {
    const { engine, cleanup } = await engineWith([]);
    try {
      expect(() => engine.addIngestGate({ name: 'a.late', check() {} })).to.throw(/after the engine started/);
    } finally {
      await cleanup();
    }
  });
});

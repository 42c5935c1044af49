import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LoomError } from '../../../core/errors/loom-error.js';
import { computeRecordId, hashedCanonicalJson } from '../../../core/records/record-id.js';
import { makeRecord, type RecordFields } from '../../../core/records/record.js';
import type { AcceptedRecord } from './accepted-record.js';
import { IngestJournal } from './ingest-journal.js';
import { encodeFrame, FRAME_HEADER_BYTES, FRAME_MAGIC, FRAME_MAGIC_V1, readFrame } from './journal-frame.js';
import { crc32 } from 'node:zlib';

function accepted(sequence: number, body: RecordFields['body'] = { n: sequence }): AcceptedRecord {
  const fields: RecordFields = {
    parents: sequence % 2 ? [] : ['a'.repeat(64)],
    thread: 'th_' + 'b'.repeat(64),
    actor: 'did:sync:agent:journal',
    act: 'KNOW',
    body,
    clock: sequence,
    data_type: 'SCALAR',
    judged_by: sequence % 3 ? null : 'c'.repeat(64),
  };
  return { stored: { sequence, createdAt: 1_700_000_000_000 + sequence, record: makeRecord(computeRecordId(fields), fields) }, namespace: sequence % 2 ? 'default' : 'acme/web' };
}

function range(from: number, to: number): AcceptedRecord[] {
  return Array.from({ length: to - from + 1 }, (_, i) => accepted(from + i));
}

describe('ingest journal', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-journal-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const segments = async () => (await readdir(dir)).filter((name) => name.endsWith('.log')).sort();

  describe('frames', () => {
    it('round-trips every field, with records frozen as makeRecord makes them', () => {
      const records = [accepted(7, { text: 'ünïcödé \u2028 "quoted"', nested: { list: [1, 2.5, null, true] } }), accepted(8)];
      const frame = encodeFrame(records);
      const read = readFrame(frame, 0);
      expect(read.kind).to.equal('frame');
      if (read.kind !== 'frame') return;
      expect(read.end).to.equal(frame.length);
      expect(read.records).to.deep.equal(records);
      expect(Object.isFrozen(read.records[0]!.stored.record.body)).to.equal(true);
      expect(readFrame(frame, frame.length)).to.deep.equal({ kind: 'end' });
    });

    it("embeds the record's canonical content text, the bytes its id hashes, instead of serialising the body again", () => {
      const record = accepted(9, { z: 1, a: { y: [3, 'x'], b: null } });
      const frame = encodeFrame([record]);
      const payload = frame.subarray(FRAME_HEADER_BYTES).toString('utf8');
      const text = hashedCanonicalJson(record.stored.record);
      const { stored, namespace } = record;
      expect(payload).to.equal(`[[9,${stored.createdAt},${JSON.stringify(namespace)},"${stored.record.id}",${JSON.stringify(stored.record.judged_by)},${text}]]`);
      expect(frame.readUInt32BE(0)).to.equal(FRAME_MAGIC);
    });

    it('still reads frames of the first format (LMJ1), which a journal from before an upgrade may hold', async () => {
      const records = [accepted(1, { text: 'old \u2028 "format"' }), accepted(2)];
      const tuples = records.map(({ stored, namespace }) => {
        const r = stored.record;
        return [stored.sequence, stored.createdAt, namespace, r.id, r.parents, r.thread, r.actor, r.act, r.body, r.clock, r.data_type, r.judged_by];
      });
      const payload = Buffer.from(JSON.stringify(tuples), 'utf8');
      const header = Buffer.alloc(FRAME_HEADER_BYTES);
      header.writeUInt32BE(FRAME_MAGIC_V1, 0);
      header.writeUInt32BE(payload.length, 4);
      header.writeUInt32BE(crc32(payload), 8);
      const old = Buffer.concat([header, payload]);
      const read = readFrame(old, 0);
      expect(read).to.deep.include({ kind: 'frame', end: old.length });
      if (read.kind === 'frame') expect(read.records).to.deep.equal(records);
      // A journal holding an old frame, then new ones appended after the upgrade, reopens whole.
      await writeFile(join(dir, 'segment-0000000000000001.log'), old);
      const { journal, records: reopened } = await IngestJournal.open({ directory: dir, sync: true });
      expect(reopened).to.deep.equal(records);
      await journal.append(range(3, 4));
      await journal.close();
      const again = await IngestJournal.open({ directory: dir, sync: true });
      expect(again.records).to.deep.equal([...records, ...range(3, 4)]);
      await again.journal.close();
    });

    it('reports a short header, a short payload, a wrong magic and a checksum mismatch', () => {
      const frame = encodeFrame([accepted(1)]);
      expect(readFrame(frame.subarray(0, 5), 0)).to.deep.include({ kind: 'bad', reason: 'truncated frame header' });
      expect(readFrame(frame.subarray(0, frame.length - 1), 0)).to.deep.include({ kind: 'bad', reason: 'truncated frame payload' });
      const wrongMagic = Buffer.from(frame);
      wrongMagic[0] = 0;
      expect(readFrame(wrongMagic, 0)).to.deep.include({ kind: 'bad', reason: 'no frame magic' });
      const flipped = Buffer.from(frame);
      flipped[FRAME_HEADER_BYTES + 3] ^= 0x01;
      expect(readFrame(flipped, 0)).to.deep.include({ kind: 'bad', reason: 'checksum mismatch' });
    });
  });

  it('returns what was appended, in order, after close and reopen', async () => {
    const { journal, records } = await IngestJournal.open({ directory: dir, sync: true });
    expect(records).to.deep.equal([]);
    await journal.append(range(1, 3));
    await journal.append(range(4, 4));
    await journal.close();
    const again = await IngestJournal.open({ directory: dir, sync: true });
    expect(again.records.map((r) => r.stored.sequence)).to.deep.equal([1, 2, 3, 4]);
    expect(again.records).to.deep.equal(range(1, 4));
    await again.journal.close();
  });

  it('cuts off a torn last frame and keeps appending after the intact ones', async () => {
    const { journal } = await IngestJournal.open({ directory: dir, sync: true });
    await journal.append(range(1, 2));
    await journal.close();
    const [segment] = await segments();
    const path = join(dir, segment!);
    const intact = (await stat(path)).size;
    // Half of the next frame reached the disk before the crash.
    const next = encodeFrame(range(3, 5));
    await appendFile(path, next.subarray(0, Math.floor(next.length / 2)));
    const reopened = await IngestJournal.open({ directory: dir, sync: true });
    expect(reopened.records.map((r) => r.stored.sequence)).to.deep.equal([1, 2]);
    expect((await stat(path)).size).to.equal(intact);
    await reopened.journal.append(range(3, 3));
    await reopened.journal.close();
    expect((await IngestJournal.open({ directory: dir, sync: true })).records.map((r) => r.stored.sequence)).to.deep.equal([1, 2, 3]);
  });

  it('treats zeros after the last frame (a file extended before its data was written) as torn', async () => {
    const { journal } = await IngestJournal.open({ directory: dir, sync: false });
    await journal.append(range(1, 1));
    await journal.close();
    const [segment] = await segments();
    await appendFile(join(dir, segment!), Buffer.alloc(4096));
    const reopened = await IngestJournal.open({ directory: dir, sync: false });
    expect(reopened.records.map((r) => r.stored.sequence)).to.deep.equal([1]);
    await reopened.journal.close();
  });

  it('refuses to open when a damaged frame is followed by intact ones: acknowledged records were lost', async () => {
    const { journal } = await IngestJournal.open({ directory: dir, sync: true });
    await journal.append(range(1, 2));
    await journal.append(range(3, 4));
    await journal.close();
    const [segment] = await segments();
    const path = join(dir, segment!);
    const bytes = await readFile(path);
    bytes[FRAME_HEADER_BYTES + 10] ^= 0x20;
    await writeFile(path, bytes);
    const error = await IngestJournal.open({ directory: dir, sync: true }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(LoomError);
    expect((error as LoomError).message).to.match(/damaged at byte 0 \(checksum mismatch\)/);
    // Nothing was cut: the operator decides.
    expect((await stat(path)).size).to.equal(bytes.length);
  });

  it('starts a new segment past the size limit and deletes segments once everything in them is applied', async () => {
    const { journal } = await IngestJournal.open({ directory: dir, sync: true, segmentBytes: 1 });
    await journal.append(range(1, 2));
    await journal.append(range(3, 4));
    await journal.append(range(5, 6));
    expect(await segments()).to.deep.equal(['segment-0000000000000001.log', 'segment-0000000000000003.log', 'segment-0000000000000005.log']);
    await journal.release(3);
    // Segment 3..4 still holds an unapplied record.
    expect(await segments()).to.deep.equal(['segment-0000000000000003.log', 'segment-0000000000000005.log']);
    await journal.release(6);
    // The segment open for appends stays until close.
    expect(await segments()).to.deep.equal(['segment-0000000000000005.log']);
    await journal.close(6);
    expect(await segments()).to.deep.equal([]);
  });

  it('removes an empty segment left by a crash right after it was created', async () => {
    await writeFile(join(dir, 'segment-0000000000000009.log'), Buffer.alloc(0));
    const { journal, records } = await IngestJournal.open({ directory: dir, sync: true });
    expect(records).to.deep.equal([]);
    expect(await segments()).to.deep.equal([]);
    await journal.append(range(9, 9));
    await journal.close();
    expect(await segments()).to.deep.equal(['segment-0000000000000009.log']);
  });

  it('refuses a journal whose sequences skip', async () => {
    const { journal } = await IngestJournal.open({ directory: dir, sync: false });
    await journal.append(range(1, 2));
    await journal.append(range(4, 4));
    await journal.close();
    const error = await IngestJournal.open({ directory: dir, sync: false }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as Error).message).to.match(/sequence 4 follows 2/);
  });
});

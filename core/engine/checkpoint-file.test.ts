import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointFileError, fileLines, readCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';

const header = { fold: 'trust', version: 3, watermark: 42, anchor: 'a'.repeat(64), saved_at: '2026-11-27T07:00:00.000Z' };

describe('fold checkpoint files (JSON lines)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-checkpoint-file-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('round-trips an object state exactly, long arrays split into lines no longer than a few thousand items', async () => {
    const state = {
      format: 'trust/2',
      ref: null,
      strings: Array.from({ length: 10_000 }, (_, i) => `did:sync:agent:${i} "quoted" ✓`),
      numbers: Array.from({ length: 20_001 }, (_, i) => (i % 7 === 0 ? i / 3 : i)),
      nested: [[1, 2], [], [3]],
      empty: [],
      stats: { verdicts: 3 },
    };
    const path = join(dir, 'trust.ckpt');
    const { bytes, durable } = writeCheckpointFile(path, header, state);
    await durable;
    const text = await readFile(path, 'utf8');
    expect(Buffer.byteLength(text)).to.equal(bytes);
    const lines = text.trimEnd().split('\n');
    expect(lines.length).to.be.greaterThan(8);
    expect(Math.max(...lines.map((line) => line.length))).to.be.below(300_000);
    expect(JSON.parse(lines[lines.length - 1]!)).to.deep.equal({ end: true, lines: lines.length });
    const read = await readCheckpointFile(path);
    expect(read.header).to.deep.equal(header);
    expect(read.state).to.deep.equal(state);
  });

  it('round-trips states that are not objects: an array, a number, null', async () => {
    for (const state of [[1, 'two', { three: 3 }], 7, null]) {
      const path = join(dir, 'x.ckpt');
      await writeCheckpointFile(path, header, state).durable;
      expect((await readCheckpointFile(path)).state).to.deep.equal(state);
    }
  });

  it('refuses a file cut short, one with a line lost or added, another format, and garbage', async () => {
    const path = join(dir, 'trust.ckpt');
    await writeCheckpointFile(path, header, { big: Array.from({ length: 10_000 }, (_, i) => i), small: 1 }).durable;
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const variants = {
      'cut short': lines.slice(0, -1),
      'a line lost': [...lines.slice(0, 2), ...lines.slice(3)],
      'a line added': [...lines.slice(0, 2), lines[1]!, ...lines.slice(2)],
      'after the end': [...lines, lines[1]!],
      'another format': [JSON.stringify({ ...header, format: 'other/1' }), ...lines.slice(1)],
      garbage: ['{"fold": "tru'],
      empty: [],
    };
    for (const [name, variant] of Object.entries(variants)) {
      await writeFile(path, variant.join('\n') + (variant.length ? '\n' : ''));
      const refusal = await readCheckpointFile(path).then(() => null, (error: unknown) => error);
      expect(refusal, name).to.be.instanceOf(CheckpointFileError);
    }
  });

  it('reads lines across read boundaries: a line of several megabytes, a character split between reads, empty lines, no final newline', async () => {
    const long = 'x'.repeat(3 * 1024 * 1024 + 17);
    // "é" is two bytes in UTF-8: placed so that it straddles the first 1 MiB read.
    const straddling = 'a'.repeat(1024 * 1024 - 1) + 'é' + 'b';
    const expected = [straddling, long, '', 'ü ✓ 𝄞', 'last'];
    const path = join(dir, 'lines');
    await writeFile(path, expected.join('\n'));
    const lines: string[] = [];
    for await (const line of fileLines(path)) lines.push(line);
    expect(lines.length).to.equal(expected.length);
    lines.forEach((line, i) => expect(line === expected[i], `line ${i}`).to.equal(true));
    await writeFile(path, 'one\ntwo\n');
    const ended: string[] = [];
    for await (const line of fileLines(path)) ended.push(line);
    expect(ended).to.deep.equal(['one', 'two']);
  });
});

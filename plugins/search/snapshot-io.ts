/**
 * A framed binary file for index snapshots (find-snapshot.ts): each frame is
 * a little-endian uint32 byte length and its bytes, either JSON or the raw
 * bytes of a typed array. Written and read a megabyte at a time, so a large
 * index never becomes one memory-sized string or buffer on its way to disk.
 */
import type { FileHandle } from 'node:fs/promises';

const FLUSH_BYTES = 1 << 20;

export class SnapshotWriter {
  private chunks: Buffer[] = [];
  private pending = 0;

  constructor(private readonly handle: FileHandle) {}

  json(value: unknown): Promise<void> {
    return this.frame(Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** The array's bytes as they are (the caller does not change it until `flush`). */
  bytes(view: ArrayBufferView): Promise<void> {
    return this.frame(Buffer.from(view.buffer, view.byteOffset, view.byteLength));
  }

  private async frame(bytes: Buffer): Promise<void> {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    this.chunks.push(length, bytes);
    this.pending += 4 + bytes.length;
    if (this.pending >= FLUSH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending === 0) return;
    const buffer = Buffer.concat(this.chunks, this.pending);
    this.chunks = [];
    this.pending = 0;
    await this.handle.write(buffer);
  }
}

export class SnapshotReader {
  private buffer = Buffer.alloc(0);
  private at = 0;
  private offset = 0;

  constructor(private readonly handle: FileHandle) {}

  async json<T>(): Promise<T> {
    return JSON.parse((await this.frame()).toString('utf8')) as T;
  }

  async int32(): Promise<Int32Array> {
    const bytes = await this.frame();
    return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }

  async float32(): Promise<Float32Array> {
    const bytes = await this.frame();
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }

  async uint8(): Promise<Uint8Array> {
    const bytes = await this.frame();
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The next frame's bytes, copied into an aligned buffer of their own. */
  private async frame(): Promise<Buffer> {
    const length = (await this.take(4)).readUInt32LE(0);
    const out = Buffer.from(new ArrayBuffer(length));
    (await this.take(length)).copy(out);
    return out;
  }

  private async take(n: number): Promise<Buffer> {
    while (this.buffer.length - this.at < n) {
      const chunk = Buffer.alloc(Math.max(FLUSH_BYTES, n));
      const { bytesRead } = await this.handle.read(chunk, 0, chunk.length, this.offset);
      if (bytesRead === 0) throw new Error('snapshot ends early');
      this.offset += bytesRead;
      this.buffer = Buffer.concat([this.buffer.subarray(this.at), chunk.subarray(0, bytesRead)]);
      this.at = 0;
    }
    const out = this.buffer.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

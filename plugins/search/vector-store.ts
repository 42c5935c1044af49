/**
 * The vectors of one embedding model: derived state, kept in the search
 * plugin's data directory and rebuildable from the log. One directory per
 * model (`vectors/<key>/`): `model.json` names the provider kind, model and
 * dimensions; `vectors.f32` holds, per slot, the record's sequence (float64)
 * then its unit-length vector (float32 × dims); `slots.ndjson` one line per
 * slot with what the filters need (id, thread, actor, body.kind, clock);
 * `progress.json` how far the log was examined for this model (`frontier`:
 * every record at or below it has a vector, had no text, or was refused by
 * the provider — those are listed in `failed`). The two slot files are
 * appended and fsynced before progress moves, so a crash leaves at most a
 * torn tail, which opening drops (those records are embedded again).
 *
 * In memory: one growing Float32Array of unit vectors (so cosine is a dot
 * product), metadata arrays, and per-thread / per-actor slot lists for
 * filtered exact search.
 */
import { mkdir, open, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SlotMeta {
  readonly sequence: number;
  readonly id: string;
  readonly thread: string;
  readonly actor: string;
  readonly kind: string | null;
  readonly clock: number;
}

export interface ModelInfo {
  readonly kind: string;
  readonly model: string;
  readonly dims: number;
}

interface Progress {
  frontier: number;
  failed: number[];
  /** Slots the saved approximate index covers (0: none saved). */
  indexed: number;
}

const INITIAL_CAPACITY = 1024;

/** The dot product of slot vectors `a` (at offset `ao`) and `b` (at `bo`), four lanes at a time. */
export function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, dims: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    s0 += a[ao + i]! * b[bo + i]!;
    s1 += a[ao + i + 1]! * b[bo + i + 1]!;
    s2 += a[ao + i + 2]! * b[bo + i + 2]!;
    s3 += a[ao + i + 3]! * b[bo + i + 3]!;
  }
  for (; i < dims; i++) s0 += a[ao + i]! * b[bo + i]!;
  return s0 + s1 + s2 + s3;
}

/** `vector` scaled to unit length (a zero vector stays zero). */
export function unit(vector: ArrayLike<number>): Float32Array {
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

export class VectorStore {
  private data: Float32Array;
  private readonly metas: SlotMeta[] = [];
  private readonly bySequence = new Map<number, number>();
  private readonly byThread = new Map<string, number[]>();
  private readonly byActor = new Map<string, number[]>();
  private progress: Progress = { frontier: 0, failed: [], indexed: 0 };
  private dims: number;

  private constructor(
    /** Null: kept in memory only. */
    private readonly dir: string | null,
    private readonly kind: string,
    private readonly modelName: string,
    dims: number,
  ) {
    this.dims = dims;
    this.data = new Float32Array(INITIAL_CAPACITY * Math.max(1, this.dims));
  }

  /** Opens (or creates) the store of `model` under `dir` (null: in memory), dropping a torn tail. */
  static async open(dir: string | null, kind: string, model: string): Promise<VectorStore> {
    if (dir === null) return new VectorStore(null, kind, model, 0);
    await mkdir(dir, { recursive: true });
    const info = await readJson<ModelInfo>(join(dir, 'model.json'));
    if (!info || info.kind !== kind || info.model !== model || !(Number.isInteger(info.dims) && info.dims > 0)) {
      // Nothing usable here: start this model afresh.
      for (const name of ['vectors.f32', 'slots.ndjson', 'progress.json', 'hnsw.bin']) await rm(join(dir, name), { force: true });
      await writeFile(join(dir, 'model.json'), JSON.stringify({ kind, model, dims: 0 }) + '\n');
      return new VectorStore(dir, kind, model, 0);
    }
    const store = new VectorStore(dir, kind, model, info.dims);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    const dir = this.dir!;
    const progress = await readJson<Progress>(join(dir, 'progress.json'));
    if (progress && Number.isInteger(progress.frontier)) this.progress = { frontier: progress.frontier, failed: Array.isArray(progress.failed) ? progress.failed : [], indexed: progress.indexed ?? 0 };
    const entryBytes = 8 + this.dims * 4;
    const bytes = await readFile(join(dir, 'vectors.f32')).catch(() => Buffer.alloc(0));
    const lines = (await readFile(join(dir, 'slots.ndjson'), 'utf8').catch(() => '')).split('\n');
    // A line is whole only when a newline follows it; the vector file's tail entry only when it has every byte.
    const wholeLines = lines.length - 1;
    const count = Math.min(wholeLines, Math.floor(bytes.length / entryBytes));
    this.reserve(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let kept = 0;
    let lineBytes = 0;
    for (let slot = 0; slot < count; slot++) {
      const meta = JSON.parse(lines[slot]!) as SlotMeta;
      const sequence = view.getFloat64(slot * entryBytes, true);
      if (meta.sequence !== sequence) break; // the files disagree from here on: drop the rest
      for (let i = 0; i < this.dims; i++) this.data[kept * this.dims + i] = view.getFloat32(slot * entryBytes + 8 + i * 4, true);
      this.index(meta, kept);
      kept += 1;
      lineBytes += Buffer.byteLength(lines[slot]!) + 1;
    }
    if (kept * entryBytes !== bytes.length) await truncate(join(dir, 'vectors.f32'), kept * entryBytes);
    if (kept !== wholeLines || lines[wholeLines] !== '') await truncate(join(dir, 'slots.ndjson'), lineBytes);
    if (this.progress.indexed > kept) this.progress.indexed = 0;
  }

  get model(): ModelInfo {
    return { kind: this.kind, model: this.modelName, dims: this.dims };
  }

  get dimensions(): number {
    return this.dims;
  }

  get size(): number {
    return this.metas.length;
  }

  get frontier(): number {
    return this.progress.frontier;
  }

  get failed(): readonly number[] {
    return this.progress.failed;
  }

  /** Slots the saved approximate index file covers. */
  get savedIndexCount(): number {
    return this.progress.indexed;
  }

  get directory(): string | null {
    return this.dir;
  }

  has(sequence: number): boolean {
    return this.bySequence.has(sequence);
  }

  meta(slot: number): SlotMeta {
    return this.metas[slot]!;
  }

  /** The vector array (slot `s` starts at `s * dimensions`); read-only for callers. */
  get vectors(): Float32Array {
    return this.data;
  }

  slotsOfThread(thread: string): readonly number[] {
    return this.byThread.get(thread) ?? [];
  }

  slotsOfActor(actor: string): readonly number[] {
    return this.byActor.get(actor) ?? [];
  }

  private reserve(slots: number): void {
    const needed = slots * this.dims;
    if (needed <= this.data.length) return;
    let capacity = Math.max(this.data.length, INITIAL_CAPACITY * this.dims);
    while (capacity < needed) capacity *= 2;
    const grown = new Float32Array(capacity);
    grown.set(this.data.subarray(0, this.metas.length * this.dims));
    this.data = grown;
  }

  private index(meta: SlotMeta, slot: number): void {
    this.metas[slot] = meta;
    this.bySequence.set(meta.sequence, slot);
    push(this.byThread, meta.thread, slot);
    push(this.byActor, meta.actor, slot);
  }

  /**
   * Appends vectors (skipping sequences already held) and moves the frontier
   * to `frontier`, adding `failed` sequences; durable before it returns.
   * The first vector fixes the model's dimensions; a vector of other
   * dimensions is refused (the provider changed what the model answers).
   */
  async append(entries: ReadonlyArray<{ meta: SlotMeta; vector: ArrayLike<number> }>, frontier: number, failed: readonly number[] = []): Promise<void> {
    const fresh = entries.filter((entry) => !this.bySequence.has(entry.meta.sequence));
    if (fresh.length > 0 && this.dims === 0) {
      this.dims = fresh[0]!.vector.length;
      this.data = new Float32Array(INITIAL_CAPACITY * this.dims);
      if (this.dir !== null) await writeFile(join(this.dir, 'model.json'), JSON.stringify(this.model) + '\n');
    }
    for (const entry of fresh) {
      if (entry.vector.length !== this.dims) throw new Error(`the model answered ${entry.vector.length} dimensions where its earlier vectors have ${this.dims}`);
    }
    const start = this.metas.length;
    this.reserve(start + fresh.length);
    const entryBytes = 8 + this.dims * 4;
    const buffer = Buffer.alloc(fresh.length * entryBytes);
    let lines = '';
    fresh.forEach((entry, i) => {
      const vector = unit(entry.vector);
      this.data.set(vector, (start + i) * this.dims);
      buffer.writeDoubleLE(entry.meta.sequence, i * entryBytes);
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(buffer, i * entryBytes + 8);
      lines += JSON.stringify(entry.meta) + '\n';
      this.index(entry.meta, start + i);
    });
    this.progress.frontier = Math.max(this.progress.frontier, frontier);
    if (failed.length > 0) this.progress.failed = [...this.progress.failed, ...failed].slice(-1000);
    if (this.dir === null) return;
    if (fresh.length > 0) {
      await appendDurably(join(this.dir, 'vectors.f32'), buffer);
      await appendDurably(join(this.dir, 'slots.ndjson'), Buffer.from(lines));
    }
    await this.saveProgress();
  }

  async setSavedIndexCount(count: number): Promise<void> {
    this.progress.indexed = count;
    if (this.dir !== null) await this.saveProgress();
  }

  private async saveProgress(): Promise<void> {
    const file = join(this.dir!, 'progress.json');
    await writeFile(file + '.tmp', JSON.stringify(this.progress) + '\n');
    await rename(file + '.tmp', file);
  }

  /** Bytes the model's files take on disk. */
  async diskBytes(): Promise<number> {
    if (this.dir === null) return this.size * (8 + this.dims * 4);
    let total = 0;
    for (const name of ['vectors.f32', 'slots.ndjson', 'hnsw.bin']) total += await stat(join(this.dir, name)).then((s) => s.size, () => 0);
    return total;
  }
}

function push(map: Map<string, number[]>, key: string, slot: number): void {
  const list = map.get(key);
  if (list) list.push(slot);
  else map.set(key, [slot]);
}

async function appendDurably(file: string, bytes: Buffer): Promise<void> {
  const handle = await open(file, 'a');
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * What the store knows about (actor, thread) pairs without asking the
 * driver, so that most appends need no conflict lookup at all: writers
 * normally use each pair's next clock, and a clock above everything stored
 * for its pair cannot collide.
 *
 * - `ceilings`: for some pairs, the exact highest clock stored or accepted
 *   (bounded; the least recently used pairs are forgotten, which only costs
 *   a lookup later).
 * - a Bloom filter over every pair stored or accepted since open, built from
 *   the driver's pairs at open: a pair it has never seen holds no slots.
 *
 * Both answer only "certainly free"; anything else goes to the driver. Pairs
 * are known by a pair key the driver chooses (see `exactPairKey`).
 */
import { LRUCache } from 'lru-cache';
import type { LoomRecord } from '../../../core/records/record.js';

const MAX_CEILINGS = 200_000;
const BITS_PER_PAIR = 12;
const HASHES = 6;
const MIN_BLOOM_PAIRS = 1 << 20;

/**
 * The default pair key: the pair itself. A driver may use a coarser key (a
 * hash of each part, say) as long as `_slotPairs` lists the same keys: two
 * pairs sharing a key only make both look less certainly free.
 */
export function exactPairKey(record: Pick<LoomRecord, 'actor' | 'thread'>): string {
  return `${record.actor}\u0000${record.thread}`;
}

/** Two independent 32-bit FNV-1a style hashes of a string, for double hashing. */
function hashes(text: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return [h1 >>> 0, (h2 | 1) >>> 0];
}

class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;

  constructor(expected: number) {
    this.size = Math.max(64, expected * BITS_PER_PAIR);
    this.bits = new Uint32Array(Math.ceil(this.size / 32));
  }

  add(key: string): void {
    const [a, b] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = (a + i * b) % this.size;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mightContain(key: string): boolean {
    const [a, b] = hashes(key);
    for (let i = 0; i < HASHES; i++) {
      const bit = (a + i * b) % this.size;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

export class SlotKnowledge {
  /** Least recently written out (an LRU, not a Map dropping its first key: V8 walks the deleted entries at a Map's front on every `keys().next()`). */
  private readonly ceilings = new LRUCache<string, number>({ max: MAX_CEILINGS });
  /** Null when the driver cannot list its pairs (then only ceilings help), and until seeding finishes. */
  private bloom: BloomFilter | null = null;
  /** The filter being seeded: pairs accepted meanwhile go into it too, so it misses none once published. */
  private growing: BloomFilter | null = null;
  private stopped = false;

  /**
   * Seeds the filter with the pair key of every pair the driver holds (once,
   * on open). It may run while appends go on: the filter answers only once
   * complete (a log of a million records has some 400,000 pairs, which took
   * a third of a second of a start), and until then every append asks the
   * driver, as a store without a filter does.
   */
  async seed(pairKeys: AsyncIterable<string>, count: number): Promise<void> {
    const bloom = new BloomFilter(Math.max(MIN_BLOOM_PAIRS, count * 2));
    this.growing = bloom;
    try {
      for await (const key of pairKeys) {
        if (this.stopped) return;
        bloom.add(key);
      }
      this.bloom = bloom;
    } finally {
      this.growing = null;
    }
  }

  /** Stops a seeding in progress at its next key (the store is closing). */
  stopSeeding(): void {
    this.stopped = true;
  }

  /** True when no stored or accepted record can hold this record's slot; `key` is its pair key. */
  certainlyFree(record: LoomRecord, key: string): boolean {
    const ceiling = this.ceilings.peek(key);
    if (ceiling !== undefined) return record.clock > ceiling;
    return this.bloom !== null && !this.bloom.mightContain(key);
  }

  /** Records accepted in this batch, in order, with what `certainlyFree` said of each before. */
  noteAccepted(record: LoomRecord, key: string, wasCertainlyFree: boolean): void {
    this.bloom?.add(key);
    this.growing?.add(key);
    const ceiling = this.ceilings.peek(key);
    if (ceiling !== undefined) {
      // Setting refreshes its place in the recency order.
      this.ceilings.set(key, Math.max(ceiling, record.clock));
    } else if (wasCertainlyFree) {
      // A pair with nothing stored: this clock is its exact ceiling.
      this.ceilings.set(key, record.clock);
    }
  }
}

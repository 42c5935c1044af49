/**
 * The `n` best-scoring items seen, kept in a bounded min-heap: O(log n) per
 * item that beats the current n-th best, nothing for the others.
 */
export interface Scored {
  readonly slot: number;
  readonly score: number;
}

export class TopK {
  private readonly heap: Scored[] = [];

  constructor(private readonly n: number) {}

  /** The score an item must beat to enter (−Infinity until full). */
  get threshold(): number {
    return this.heap.length < this.n ? -Infinity : this.heap[0]!.score;
  }

  offer(slot: number, score: number): void {
    if (this.n <= 0) return;
    const heap = this.heap;
    if (heap.length < this.n) {
      heap.push({ slot, score });
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]!.score <= heap[i]!.score) break;
        [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
        i = parent;
      }
      return;
    }
    if (score <= heap[0]!.score) return;
    heap[0] = { slot, score };
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && heap[left]!.score < heap[smallest]!.score) smallest = left;
      if (right < heap.length && heap[right]!.score < heap[smallest]!.score) smallest = right;
      if (smallest === i) break;
      [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
      i = smallest;
    }
  }

  /** Best first; ties by the lower slot (the earlier record), so answers are stable. */
  sorted(): Scored[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
}

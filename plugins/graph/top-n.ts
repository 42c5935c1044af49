/** The first `n` items of a stream under an order, without sorting the whole stream (O(m log n)). */
export class TopN<T> {
  /** A max-heap on `compare`: the root is the worst item kept. */
  private readonly heap: T[] = [];
  seen = 0;

  constructor(
    private readonly n: number,
    /** Negative when `a` ranks before `b`. */
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    this.seen++;
    if (this.n === 0) return;
    const heap = this.heap;
    if (heap.length < this.n) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  /** More items were offered than kept. */
  get cut(): boolean {
    return this.seen > this.n;
  }

  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && this.compare(heap[left]!, heap[worst]!) > 0) worst = left;
      if (right < heap.length && this.compare(heap[right]!, heap[worst]!) > 0) worst = right;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst]!, heap[i]!];
      i = worst;
    }
  }
}

/** Larger counts first, then ids in code-unit order: the tie-break every ranking here uses. */
export function byCountThenId<T>(count: (item: T) => number, id: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => count(b) - count(a) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0);
}

/**
 * On a shared log, every server's follower of the leader's vectors (a log
 * consumer on every server, the leader's too): when it is idle it loads the
 * vectors the leader wrote to the shared store since its last pull
 * (semantic-search.ts `pull`, a page at a time) and builds its own graph in
 * slices. While the shared frontier is behind this server's log head (the
 * leader has records left to embed) it looks again every `vectorPollMs`, so
 * a vector reaches every server at most that long after the leader
 * committed it (plus one page read); a quiet, caught-up cluster does not
 * poll: the next records wake it. During ingest it pulls at most once per
 * `vectorPollMs`.
 */
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { LogConsumer } from '../../core/engine/log-consumer.js';
import type { SemanticSearch } from './semantic-search.js';

export class VectorFollower implements LogConsumer {
  readonly name = 'vectors';
  readonly keepCheckpoint = false;
  readonly startAt = 'head' as const;
  /** Records only wake it; a large batch costs nothing. */
  readonly batchSize = 4096;
  private lastPullAt = -Infinity;

  constructor(
    private readonly semantic: SemanticSearch,
    private readonly pollMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async handle(_records: readonly StoredRecord[]): Promise<void> {
    // The vectors of these records come from the leader: `idle` loads them once written.
  }

  async idle(context: { readonly caughtUp: boolean; readonly busy: boolean }): Promise<number | null> {
    const since = this.now() - this.lastPullAt;
    let loaded = 0;
    if (since >= this.pollMs) {
      this.lastPullAt = this.now();
      loaded = await this.semantic.pull();
    }
    const graph = await this.semantic.indexIdle(context);
    if (!context.caughtUp) return null;
    if (loaded > 0 || graph === 0) return 0;
    if (this.semantic.behind) return Math.max(0, this.pollMs - (this.now() - this.lastPullAt));
    return graph;
  }
}

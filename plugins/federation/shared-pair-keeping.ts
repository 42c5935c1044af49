/**
 * Pair state on a shared log (PairKeeping): each pair's feed cursor and its
 * sealed peer bearer live in the store's slots (`federation.pair.<id>.cursor`,
 * `federation.pair.<id>.secret`), not in one server's files, so whichever
 * server leads runs the pair from where the last leader left it. The bearer
 * is sealed (PairSecretBox) before it leaves the process: the slot holds
 * ciphertext only. Cursors are written debounced (a cursor lost to a crash
 * only means re-reading a few pages, which deduplicate).
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { PairKeeping } from './pair-keeping.js';
import type { PairSecretBox } from './pair-secret-box.js';

export type SlotStore = Required<Pick<RecordStore, 'readSlot' | 'writeSlot'>>;

const slot = (pairId: string, what: 'cursor' | 'secret') => `federation.pair.${pairId}.${what}`;

export class SharedPairKeeping implements PairKeeping {
  private readonly secrets = new Map<string, string>();
  private readonly cursors = new Map<string, string | null>();
  private readonly dirty = new Set<string>();
  private readonly unopened = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly store: SlotStore, private readonly box: PairSecretBox, private readonly flushMs = 200) {}

  async load(): Promise<void> {}

  async refresh(pairId: string): Promise<void> {
    const [sealed, cursor] = await Promise.all([this.store.readSlot(slot(pairId, 'secret')), this.store.readSlot(slot(pairId, 'cursor'))]);
    const token = sealed === null ? null : this.box.open(pairId, sealed);
    if (token === null) this.secrets.delete(pairId);
    else this.secrets.set(pairId, token);
    if (sealed !== null && token === null) this.unopened.add(pairId);
    else this.unopened.delete(pairId);
    // A cursor this server moved and has not saved yet is newer than the slot's.
    if (!this.dirty.has(pairId)) this.cursors.set(pairId, cursor);
  }

  secret(pairId: string): string | undefined {
    return this.secrets.get(pairId);
  }

  secretProblem(pairId: string): string | undefined {
    if (!this.unopened.has(pairId)) return undefined;
    return "this pair's peer token was sealed under another instance key: every server of a shared log must hold the same instance key (one instance, one DID)";
  }

  async setSecret(pairId: string, token: string | null): Promise<void> {
    await this.store.writeSlot(slot(pairId, 'secret'), token === null ? null : this.box.seal(pairId, token));
    this.unopened.delete(pairId);
    if (token === null) this.secrets.delete(pairId);
    else this.secrets.set(pairId, token);
  }

  cursor(pairId: string): string | undefined {
    return this.cursors.get(pairId) ?? undefined;
  }

  setCursor(pairId: string, cursor: string | null): void {
    this.cursors.set(pairId, cursor);
    this.dirty.add(pairId);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushMs);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.dirty.size === 0) return this.writing;
    const batch = [...this.dirty].map((id) => [id, this.cursors.get(id) ?? null] as const);
    this.dirty.clear();
    this.writing = this.writing
      .then(() => Promise.all(batch.map(([id, cursor]) => this.store.writeSlot(slot(id, 'cursor'), cursor))))
      .then(() => {})
      .catch(() => {
        for (const [id] of batch) this.dirty.add(id);
      });
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}

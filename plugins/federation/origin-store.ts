/**
 * Where each federated record came from, and the federated records that
 * conflicted with a local one. Plugin state, not records: an origin is a fact
 * about this instance's receipt, not about the record (whose id must stay
 * its content's hash), and a conflicting record cannot enter the log (its
 * clock slot is taken) but must not be dropped either. A LevelDB under the
 * plugin's data directory; in memory when the store is not persistent.
 */
import { Level } from 'level';
import type { LoomRecord } from '../../core/records/record.js';

export interface RecordOrigin {
  /** The instance that served or pushed it (its did:key). */
  readonly origin: string;
  readonly via: 'pull' | 'push';
  readonly pair_id: string | null;
  readonly received_at: string;
}

export interface FederationConflict {
  /** The federated record that could not be stored. */
  readonly record: LoomRecord;
  /** The local record holding its (actor, thread, clock) slot. */
  readonly existing_id: string;
  readonly origin: string;
  readonly pair_id: string | null;
  readonly received_at: string;
}

export interface OriginStore {
  open(): Promise<void>;
  close(): Promise<void>;
  putOrigins(entries: ReadonlyArray<readonly [string, RecordOrigin]>): Promise<void>;
  origin(id: string): Promise<RecordOrigin | undefined>;
  putConflict(conflict: FederationConflict): Promise<void>;
  conflicts(limit: number): Promise<FederationConflict[]>;
  conflictCount(): number;
}

const ORIGIN = 'o!';
const CONFLICT = 'c!';

export class LevelOriginStore implements OriginStore {
  private readonly db: Level<string, string>;
  private conflictTotal = 0;

  constructor(path: string) {
    this.db = new Level<string, string>(path, { valueEncoding: 'utf8' });
  }

  async open(): Promise<void> {
    await this.db.open();
    for await (const _key of this.db.keys({ gte: CONFLICT, lt: `${CONFLICT}\uffff` })) this.conflictTotal++;
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  async putOrigins(entries: ReadonlyArray<readonly [string, RecordOrigin]>): Promise<void> {
    if (entries.length === 0) return;
    await this.db.batch(entries.map(([id, origin]) => ({ type: 'put' as const, key: ORIGIN + id, value: JSON.stringify(origin) })));
  }

  async origin(id: string): Promise<RecordOrigin | undefined> {
    const value = await this.db.get(ORIGIN + id);
    return value === undefined ? undefined : (JSON.parse(value) as RecordOrigin);
  }

  async putConflict(conflict: FederationConflict): Promise<void> {
    const key = CONFLICT + conflict.record.id;
    if ((await this.db.get(key)) === undefined) this.conflictTotal++;
    await this.db.put(key, JSON.stringify(conflict));
  }

  async conflicts(limit: number): Promise<FederationConflict[]> {
    const out: FederationConflict[] = [];
    for await (const value of this.db.values({ gte: CONFLICT, lt: `${CONFLICT}\uffff`, limit })) out.push(JSON.parse(value) as FederationConflict);
    return out;
  }

  conflictCount(): number {
    return this.conflictTotal;
  }
}

export class MemoryOriginStore implements OriginStore {
  private readonly origins = new Map<string, RecordOrigin>();
  private readonly conflictMap = new Map<string, FederationConflict>();
  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async putOrigins(entries: ReadonlyArray<readonly [string, RecordOrigin]>): Promise<void> {
    for (const [id, origin] of entries) this.origins.set(id, origin);
  }
  async origin(id: string): Promise<RecordOrigin | undefined> {
    return this.origins.get(id);
  }
  async putConflict(conflict: FederationConflict): Promise<void> {
    this.conflictMap.set(conflict.record.id, conflict);
  }
  async conflicts(limit: number): Promise<FederationConflict[]> {
    return [...this.conflictMap.values()].slice(0, limit);
  }
  conflictCount(): number {
    return this.conflictMap.size;
  }
}

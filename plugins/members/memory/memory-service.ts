/**
 * The memory doors (spec §4.15): list, add and cancel a member's memories,
 * each checking who asks before anything else, reading from the
 * member_memory fold and writing one record through the record writer as
 * the instance (so a credential bounded to its own threads can still keep
 * its member's memory), with the caller's DID as `meta.by`. Writes for one
 * member run one at a time across the servers of a log
 * (LogCriticalSection), so a superseding memory always cites the one in
 * force.
 */
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { token } from '../../../core/di/token.js';
import type { LogCriticalSection } from '../../../core/engine/log-critical-section.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { accessibleMember, notRetired } from './memory-access.js';
import type { MemoryEntry, MemoryState } from './memory-fold.js';
import { newestFirst, searchMemories, type MemoryRanker } from './memory-search.js';
import { KIND_MEMORY, memoryThread, type CancellationBody, type ImportedFrom, type MemoryBody, type MemoryFields, type MemoryType } from './memory.js';

export interface MemoryServiceDeps {
  /** The member, or null (the registry). */
  readonly member: (did: string) => MemberEntry | null;
  readonly memories: OwnFold<MemoryState>;
  readonly writer: RecordWriter;
  readonly sections: LogCriticalSection;
  /** The DID the instance writes memory records as. */
  readonly instanceDid: string;
  /** The search plugin's find service, when it is loaded. */
  readonly ranker: () => MemoryRanker | null;
}

export interface MemoryFilter {
  readonly search?: string;
  readonly domain?: string;
  readonly type?: MemoryType;
  readonly limit: number;
}

/** A memory as the doors answer it. */
export interface MemoryRow extends MemoryFields {
  object: 'memory';
  /** The record in force and its thread. */
  record: string;
  thread: string;
  created_at: string;
  by: string;
  imported_from: ImportedFrom | null;
}

export function memoryRow(entry: MemoryEntry): MemoryRow {
  const b = entry.body;
  return {
    object: 'memory',
    name: b.name,
    memory_type: b.memory_type,
    description: b.description,
    confidence: b.confidence,
    tags: [...b.tags],
    source_thread: b.source_thread,
    domain: b.domain,
    record: entry.record,
    thread: memoryThread(b.meta.member),
    created_at: entry.at,
    by: b.meta.by,
    imported_from: b.meta.imported_from ?? null,
  };
}

export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  /** The member, when `caller` may use its memory (ACTOR_UNKNOWN, FORBIDDEN). */
  access(caller: Caller, did: string, self = true): MemberEntry {
    return accessibleMember(caller, did, this.deps.member(did), self);
  }

  /** The member's live memories, newest first (no access check: the caller has made it). */
  live(did: string): MemoryEntry[] {
    return [...(this.deps.memories.state().members.get(did)?.values() ?? [])].sort(newestFirst);
  }

  list(caller: Caller, did: string, filter: MemoryFilter): { data: MemoryRow[]; has_more: boolean } {
    this.access(caller, did);
    let entries = this.live(did);
    if (filter.domain !== undefined) entries = entries.filter((entry) => entry.body.domain === filter.domain);
    if (filter.type !== undefined) entries = entries.filter((entry) => entry.body.memory_type === filter.type);
    const q = filter.search?.trim() ?? '';
    const { found, more } = q === '' ? { found: entries.slice(0, filter.limit), more: entries.length > filter.limit } : searchMemories(entries, q, filter.limit, this.deps.ranker());
    return { data: found.map(memoryRow), has_more: more };
  }

  async add(caller: Caller, did: string, fields: MemoryFields): Promise<{ record: string; thread: string; superseded: string | null }> {
    notRetired(this.access(caller, did));
    return this.section(did, async () => {
      const previous = this.deps.memories.state().members.get(did)?.get(fields.name) ?? null;
      const record = await this.write(did, { ...fields, kind: KIND_MEMORY, status: 'created', meta: { member: did, by: actingDid(caller), imported_from: null } }, previous);
      return { record, thread: memoryThread(did), superseded: previous?.record ?? null };
    });
  }

  async cancel(caller: Caller, did: string, name: string): Promise<{ record: string }> {
    this.access(caller, did);
    const missing = () => new LoomError('MEMORY_NOT_FOUND', `${did} has no memory named ${JSON.stringify(name)}`);
    if (!this.deps.memories.state().members.get(did)?.has(name)) throw missing();
    return this.section(did, async () => {
      const live = this.deps.memories.state().members.get(did)?.get(name);
      if (!live) throw missing();
      const body: CancellationBody = { kind: KIND_MEMORY, status: 'cancelled', name, meta: { member: did, by: actingDid(caller) } };
      return { record: await this.write(did, body, live) };
    });
  }

  /** Writes already-checked memories (an import), inside the member's section the caller holds. */
  async writeImported(did: string, by: string, items: readonly MemoryFields[], from: ImportedFrom): Promise<void> {
    for (const fields of items) {
      const previous = this.deps.memories.state().members.get(did)?.get(fields.name) ?? null;
      await this.write(did, { ...fields, kind: KIND_MEMORY, status: 'created', meta: { member: did, by, imported_from: from } }, previous);
    }
  }

  /** Runs `work` as the only writer of the member's memory (check-then-write). */
  section<T>(did: string, work: () => Promise<T>): Promise<T> {
    return this.deps.sections.run(`members.memory:${did}`, work);
  }

  private async write(did: string, body: MemoryBody | CancellationBody, previous: MemoryEntry | null): Promise<string> {
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread: memoryThread(did),
      act: 'LEARN',
      actor: this.deps.instanceDid,
      plugin: 'members',
      body: body as unknown as JsonObject,
      parents: previous ? [previous.record] : [],
    });
    return stored.record.id;
  }
}

export const MemoryServiceToken = token<MemoryService>('members.MemoryService');

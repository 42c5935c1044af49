/**
 * Member memory and export / import (spec §2.6, §4.15), contributed to the
 * members plugin from its own folder: the member_memory fold, the gate
 * keeping memory records to these doors, the two services and five routes.
 * The search and trust plugins are optional: looked up on first use (every
 * plugin has registered by then), so search need not be ordered before
 * members (declaring it would reorder the plugins, hence the OpenAPI paths).
 */
import { optionalService } from '../optional-service.js';
import { LocalRecordsToken } from '../../federation/index.js';
import { KIND_MEMORY } from './memory.js';
import { resolve, bindValue } from '../../../core/di/token.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { LogCriticalSectionToken } from '../../../core/engine/log-critical-section.js';
import { nodeSha256Hex } from '../../../core/engine/native-hash.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { FindServiceToken } from '../../search/index.js';
import { TrustServiceToken } from '../../trust/index.js';
import type { MemberService } from '../member-service.js';
import { BundleService, BundleServiceToken } from './bundle-service.js';
import { memberMemoryFold } from './memory-fold.js';
import { memoryGate } from './memory-gate.js';
import type { MemoryRanker } from './memory-search.js';
import { MemoryService, MemoryServiceToken } from './memory-service.js';
import { addActorMemory } from './routes/add-actor-memory.js';
import { deleteActorMemory } from './routes/delete-actor-memory.js';
import { exportActor } from './routes/export-actor.js';
import { importActor } from './routes/import-actor.js';
import { listActorMemories } from './routes/list-actor-memories.js';

export const MEMORY_ROUTES = [listActorMemories, addActorMemory, deleteActorMemory, exportActor, importActor] as const;

export function registerMemory(scope: PluginScope, members: MemberService): void {
  const container = scope.container;
  const memories = scope.fold(memberMemoryFold);
  scope.ingestGate(memoryGate);
  // Memories never leave this instance (federation is optional: without it there is nothing to declare).
  if (container.isRegistered(LocalRecordsToken, true)) resolve(container, LocalRecordsToken).keep('members.memory', (record) => record.body['kind'] === KIND_MEMORY);
  const writer = resolve(container, RecordWriterToken);
  const instanceDid = resolve(container, ServerInfo).instanceDid;
  const ranker: () => MemoryRanker | null = optionalService(container, FindServiceToken);
  const trust = optionalService(container, TrustServiceToken);
  const memory = new MemoryService({ member: (did) => members.entry(did), memories, writer, sections: resolve(container, LogCriticalSectionToken), instanceDid, ranker });
  bindValue(container, MemoryServiceToken, memory);
  bindValue(container, BundleServiceToken, new BundleService({ memory, writer, instanceDid, trust, sha256Hex: nodeSha256Hex, now: resolve(container, ClockToken) }));
  for (const route of MEMORY_ROUTES) scope.route(route);
  scope.capability('members.memory', true);
  scope.capability('members.export', true);
}

/**
 * Loom's own tools, contributed to the members plugin's tool registry so
 * define and patch accept them and the work loop runs them. Each runs with
 * the member's credential (ToolContext.caller) through the reader, the
 * writer or a plugin service taking a caller, never as SYSTEM. A tool whose
 * service belongs to an optional plugin is contributed only when that plugin
 * is loaded (optional dependencies register first, so its token is there).
 */
import type { DependencyContainer } from 'tsyringe';
import { resolve, type Token } from '../../../core/di/token.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import { DataFilesToken } from '../../data-plane/index.js';
import type { ToolRegistry } from '../../members/index.js';
import { AdapterRegistryToken, DispatcherToken } from '../../rules/index.js';
import { FindServiceToken } from '../../search/index.js';
import { TrustServiceToken } from '../../trust/index.js';
import { dispatchTool } from './dispatch.js';
import { findTool } from './find.js';
import { foldThreadTool } from './fold-thread.js';
import { listFilesTool } from './list-files.js';
import { queryRecordsTool } from './query-records.js';
import { readFileTool } from './read-file.js';
import { readThreadTool } from './read-thread.js';
import { trustQueryTool } from './trust-query.js';
import { writeFileTool } from './write-file.js';
import { writeRecordTool } from './write-record.js';

function loaded<T>(container: DependencyContainer, key: Token<T>): T | null {
  return container.isRegistered(key as symbol, true) ? resolve(container, key) : null;
}

export function registerLoomTools(scope: PluginScope, registry: ToolRegistry): void {
  const container = scope.container;
  const reader = resolve(container, RecordReaderToken);
  const writer = resolve(container, RecordWriterToken);
  registry.add(readThreadTool(reader));
  registry.add(writeRecordTool(writer));
  registry.add(queryRecordsTool(reader));
  registry.add(foldThreadTool(reader));

  const finder = loaded(container, FindServiceToken);
  if (finder) registry.add(findTool(finder));
  const trust = loaded(container, TrustServiceToken);
  if (trust) registry.add(trustQueryTool(trust));
  const dispatcher = loaded(container, DispatcherToken);
  const adapters = loaded(container, AdapterRegistryToken);
  if (dispatcher && adapters) registry.add(dispatchTool({ dispatcher, adapters, clock: resolve(container, ClockToken), writer, reader }));
  const files = loaded(container, DataFilesToken);
  if (files) {
    registry.add(listFilesTool(files));
    registry.add(readFileTool(files));
    registry.add(writeFileTool(files));
  }
}

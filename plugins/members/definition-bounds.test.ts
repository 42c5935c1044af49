/**
 * A bounded credential can never put in force a member wider than itself:
 * over random scope and grain sets and random definitions, whenever
 * checkDefinition admits a definition, an independent oracle (what the
 * credential holds, read off its scopes) covers every tool, write clause
 * and read thread of it; and whatever the oracle covers is admitted.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Type } from 'typebox';
import { credentialCaller } from '../../core/access/caller.js';
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { checkDefinition, type BoundsDeps } from './definition-bounds.js';
import { definitionFields } from './definition.js';
import { ModelCatalog } from './model-catalog.js';
import { ToolRegistry } from './tool-registry.js';

const THREADS = ['th_' + 'a'.repeat(64), 'th_' + 'b'.repeat(64), 'th_' + 'c'.repeat(64)];
const NAMESPACES = ['acme', 'acme/eu', 'globex'];
const NAMESPACE_OF: Record<string, string> = { [THREADS[0]!]: 'acme/eu', [THREADS[1]!]: 'globex', [THREADS[2]!]: 'default' };
const TOOLS = [
  { name: 'read_thread', scope: 'records:read' },
  { name: 'write_note', scope: 'records:write' },
  { name: 'manage_config', scope: 'config:write' },
  { name: 'rotate_keys', scope: 'admin' },
] as const;

const noConfig: Config = { single: () => null, keyed: () => ({}), watch: () => () => {} };

function deps(): BoundsDeps {
  const tools = new ToolRegistry();
  for (const tool of TOOLS) tools.add({ ...tool, description: tool.name, inputSchema: Type.Object({}), readOnly: false, destructive: false, plugin: 'test', run: async () => null });
  // The auth plugin's read-grain policy in miniature: grains confine reads to their threads (and namespaces).
  const reader = {
    restriction(caller: { scopes: readonly string[] }): FilterNode | undefined {
      if (caller.scopes.includes('records:read') || caller.scopes.includes('admin')) return undefined;
      const threads = caller.scopes.map((s) => /^thread:(.+):read$/.exec(s)?.[1]).filter((t): t is string => t !== undefined);
      const namespaced = caller.scopes.some((s) => /^namespace:.+:read$/.test(s));
      const byThread: FilterNode = { op: 'in', field: { kind: 'column', column: 'thread' }, values: threads } as unknown as FilterNode;
      return namespaced ? ({ op: 'or', nodes: [byThread, { op: 'compare', field: { kind: 'body', path: ['namespace'] }, operator: '$eq', value: 'x' }] } as unknown as FilterNode) : byThread;
    },
  } as unknown as RecordReader;
  return { reader, tools, models: new ModelCatalog(noConfig), config: noConfig, threadNamespace: async (thread) => NAMESPACE_OF[thread] };
}

const holds = (scopes: readonly string[], scope: string) => scopes.includes(scope) || scopes.includes('admin');
function namespaceCovered(scopes: readonly string[], namespace: string, access: 'read' | 'write'): boolean {
  return scopes.some((s) => {
    const m = /^namespace:(.+):(read|write)$/.exec(s);
    return m !== null && m[2] === access && (namespace === m[1] || namespace.startsWith(`${m[1]}/`));
  });
}
/** What the credential holds, read off its scopes alone. */
function oracleAdmits(scopes: readonly string[], tools: string[], writeAdmit: string[], reads: string[]): boolean {
  for (const name of tools) if (!holds(scopes, TOOLS.find((t) => t.name === name)!.scope)) return false;
  for (const clause of writeAdmit) {
    if (clause === 'records:write') {
      if (!holds(scopes, 'records:write')) return false;
      continue;
    }
    const thread = /^thread:(.+):write$/.exec(clause)?.[1];
    if (thread !== undefined) {
      if (!holds(scopes, 'records:write') && !scopes.includes(clause)) return false;
      continue;
    }
    const namespace = /^namespace:(.+):write$/.exec(clause)?.[1]!;
    if (!holds(scopes, 'records:write') && !namespaceCovered(scopes, namespace, 'write')) return false;
  }
  for (const thread of reads) {
    if (holds(scopes, 'records:read') || scopes.includes(`thread:${thread}:read`)) continue;
    if (namespaceCovered(scopes, NAMESPACE_OF[thread]!, 'read')) continue;
    return false;
  }
  return true;
}

const grain = fc.oneof(
  fc.constantFrom('records:read', 'records:write', 'config:write', 'config:read'),
  fc.tuple(fc.constantFrom(...THREADS), fc.constantFrom('read', 'write')).map(([t, a]) => `thread:${t}:${a}`),
  fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom('read', 'write')).map(([n, a]) => `namespace:${n}:${a}`),
);
const clause = fc.oneof(
  fc.constant('records:write'),
  fc.constantFrom(...THREADS).map((t) => `thread:${t}:write`),
  fc.constantFrom(...NAMESPACES).map((n) => `namespace:${n}:write`),
);

describe('definition bounds (property)', () => {
  it('a bounded credential never defines a member wider than itself, and is never refused what it holds', async () => {
    const bounds = deps();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(grain, { maxLength: 6 }),
        fc.subarray(TOOLS.map((t) => t.name)),
        fc.uniqueArray(clause, { maxLength: 3 }),
        fc.subarray(THREADS),
        async (scopes, tools, writeAdmit, reads) => {
          const caller = credentialCaller({ principal: 'did:sync:user:bounded', scopes });
          const fields = definitionFields({ label: 'm', write_admit: writeAdmit, work_loop: { tools, reads } });
          let admitted = true;
          try {
            await checkDefinition(caller, 'did:sync:agent:m-0000000000000000', fields, bounds);
          } catch (error) {
            if (!(error instanceof LoomError) || !['TOOL_NOT_IN_REACH', 'WRITE_KIND_NOT_ADMITTED', 'READS_NOT_COVERED'].includes(error.code)) throw error;
            admitted = false;
          }
          expect(admitted, `scopes ${JSON.stringify(scopes)} tools ${tools} write_admit ${writeAdmit} reads ${reads}`).to.equal(oracleAdmits(scopes, tools, writeAdmit, reads));
        },
      ),
      { numRuns: 500 },
    );
  });
});

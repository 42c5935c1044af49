/**
 * namespace_registry: namespaces declared by records on th_namespace_registry
 * (spec §2.2). Body: `{namespace_id, state?}` with state `active` (default),
 * `archived` or `deleted`; latest record per namespace wins, so re-declaring an
 * archived namespace re-activates it. The default namespace is implicit and
 * cannot be declared.
 */
import { DEFAULT_NAMESPACE, namespaceChain, namespaceLevel, namespaceSyntaxError, type NamespaceLevel } from '../records/namespace-path.js';
import { TH_NAMESPACE_REGISTRY } from '../records/reserved-threads.js';
import type { Fold } from './fold.js';

export const NAMESPACE_STATES = ['active', 'archived', 'deleted'] as const;
export type NamespaceState = (typeof NAMESPACE_STATES)[number];

export interface NamespaceEntry {
  namespace_id: string;
  level: NamespaceLevel;
  state: NamespaceState;
  description: string | null;
  record_id: string;
  sequence: number;
}

export interface NamespaceRegistry {
  namespaces: Record<string, NamespaceEntry>;
  warnings: Array<{ record_id: string; sequence: number; message: string }>;
}

export const namespaceRegistryFold: Fold<NamespaceRegistry, NamespaceRegistry> = {
  name: 'namespace_registry',
  scope: 'global',
  description: 'Declared namespaces and their states, from records on th_namespace_registry (latest per namespace wins).',
  threads: [TH_NAMESPACE_REGISTRY],
  initial: () => ({ namespaces: {}, warnings: [] }),
  apply(registry, { sequence, record }) {
    if (record.thread !== TH_NAMESPACE_REGISTRY) return registry;
    const at = { record_id: record.id, sequence };
    const id = record.body['namespace_id'];
    const rawState = record.body['state'] ?? 'active';
    const warn = (message: string) => {
      registry.warnings.push({ ...at, message });
      if (registry.warnings.length > 100) registry.warnings.shift();
      return registry;
    };
    if (typeof id !== 'string') return warn('namespace declaration needs a string body.namespace_id');
    if (id === DEFAULT_NAMESPACE) return warn('cannot modify the DEFAULT namespace');
    const syntax = namespaceSyntaxError(id);
    if (syntax) return warn(`namespace_id ${JSON.stringify(id)} ${syntax}`);
    const state = typeof rawState === 'string' ? rawState.toLowerCase() : rawState;
    if (!(NAMESPACE_STATES as readonly unknown[]).includes(state)) return warn(`state must be one of ${NAMESPACE_STATES.join(', ')}`);
    const description = record.body['description'];
    registry.namespaces[id] = {
      namespace_id: id,
      level: namespaceLevel(id),
      state: state as NamespaceState,
      description: typeof description === 'string' ? description : null,
      ...at,
    };
    return registry;
  },
  value: (registry) => structuredClone(registry),
};

/**
 * Why a namespace refuses records, or null when every ancestor (and itself)
 * is active. `malformed` tells a request error (400) from a namespace that
 * exists in the wrong state or not at all (403).
 */
export function namespaceRefusal(registry: NamespaceRegistry, id: string): { failing: string; message: string; malformed?: true } | null {
  if (id === DEFAULT_NAMESPACE) return null;
  const syntax = namespaceSyntaxError(id);
  if (syntax) return { failing: id, message: `namespace ${JSON.stringify(id)} is malformed: ${syntax}`, malformed: true };
  for (const ancestor of namespaceChain(id)) {
    const entry = registry.namespaces[ancestor];
    if (!entry) {
      return { failing: ancestor, message: `namespace "${ancestor}" does not exist; create it with: loom namespace create ${ancestor}` };
    }
    if (entry.state !== 'active') {
      return {
        failing: ancestor,
        message: `namespace "${ancestor}" is ${entry.state}, not Active; re-activate it with: loom namespace create ${ancestor}`,
      };
    }
  }
  return null;
}

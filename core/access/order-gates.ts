/**
 * Orders ingest gates: the order they were contributed in (plugin dependency
 * order, then registration order within a plugin), refined by each gate's
 * `before`/`after` (hapi Topo semantics). An unknown name, a duplicate name or
 * a cycle is a startup error, never a silently skipped gate.
 */
import type { IngestGate } from './ingest-gate.js';

export class GateOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateOrderError';
  }
}

export function orderGates(gates: readonly IngestGate[]): IngestGate[] {
  const byName = new Map<string, IngestGate>();
  for (const gate of gates) {
    if (!/^[a-z][a-z0-9-]*\.[a-z][a-z0-9_.-]*$/.test(gate.name)) throw new GateOrderError(`ingest gate name "${gate.name}" must be <plugin>.<check>`);
    if (byName.has(gate.name)) throw new GateOrderError(`ingest gate "${gate.name}" is contributed twice`);
    byName.set(gate.name, gate);
  }
  // Edges "a runs before b".
  const after = new Map<string, Set<string>>(gates.map((g) => [g.name, new Set<string>()]));
  const edge = (first: string, then: string, declaredBy: string) => {
    if (!byName.has(first) || !byName.has(then)) {
      throw new GateOrderError(`ingest gate "${declaredBy}" orders itself against "${first === declaredBy ? then : first}", which no loaded plugin contributes`);
    }
    after.get(then)!.add(first);
  };
  for (const gate of gates) {
    for (const other of gate.before ?? []) edge(gate.name, other, gate.name);
    for (const other of gate.after ?? []) edge(other, gate.name, gate.name);
  }
  const ordered: IngestGate[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (gate: IngestGate, path: string[]) => {
    const mark = state.get(gate.name);
    if (mark === 'done') return;
    if (mark === 'visiting') throw new GateOrderError(`ingest gate order cycle: ${[...path, gate.name].join(' -> ')}`);
    state.set(gate.name, 'visiting');
    // Predecessors in contribution order, so the result stays stable.
    for (const candidate of gates) if (after.get(gate.name)!.has(candidate.name)) visit(candidate, [...path, gate.name]);
    state.set(gate.name, 'done');
    ordered.push(gate);
  };
  for (const gate of gates) visit(gate, []);
  return ordered;
}

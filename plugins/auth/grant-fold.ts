/**
 * grant: the delegation graph as GET /v1/folds/grant serves it (spec §5.5).
 * Standing is computed against real time when the value is read, so an
 * expired grant reads `expired` without any record saying so. An admin sees
 * the whole graph; any other caller only the grants it issued (`iss`) or
 * receives (`aud`), and that short list is the complete answer for it.
 */
import type { Fold } from '../../core/folds/fold.js';
import { isAdmin } from '../../core/access/scopes.js';
import { AUTH_THREAD, KIND_GRANT, KIND_GRANT_REVOCATION } from './auth-thread.js';
import { GrantGraph, readGrantFields, type GrantNode, type GrantStanding } from './grant-graph.js';

export interface GrantRow {
  grant_id: string;
  iss: string;
  aud: string;
  scopes: string[];
  caveats: Record<string, number>;
  effective_caveats: Record<string, number | null>;
  expires_at: string;
  effective_expires_at: string;
  chain: string[];
  depth: number;
  label: string | null;
  standing: GrantStanding;
  /** Why it is not in force: a structural fault, or the grant whose revocation reached it. */
  reason: string | null;
  revoked_at: string | null;
  note: string | null;
  children: number;
  created_at: string;
}

export interface GrantFoldValue {
  /** The time standing was computed against. */
  as_of: string;
  grants: GrantRow[];
}

export function grantRow(graph: GrantGraph, node: GrantNode, now: number): GrantRow {
  const standing = graph.standing(node.id, now);
  return {
    grant_id: node.id,
    iss: node.iss,
    aud: node.aud,
    scopes: [...node.scopes],
    caveats: { ...node.caveats } as Record<string, number>,
    effective_caveats: { ...node.effective },
    expires_at: node.expires_at,
    effective_expires_at: Number.isFinite(node.effectiveExpiresMs) ? new Date(node.effectiveExpiresMs).toISOString() : node.expires_at,
    chain: [...node.chain],
    depth: node.depth,
    label: node.label,
    standing,
    reason: standing === 'revoked' ? (node.revokedVia === node.id ? 'revoked' : `ancestor ${node.revokedVia} revoked`) : standing === 'not_in_force' ? node.fault : standing === 'expired' ? 'expired' : null,
    revoked_at: node.revokedAt,
    note: node.revocationNote,
    children: node.children.length,
    created_at: node.created_at,
  };
}

export const grantFold: Fold<GrantGraph, GrantFoldValue> = {
  name: 'grant',
  scope: 'global',
  description: 'The delegation grant graph with each grant\'s standing now; admins see all of it, anyone else the grants it issued or receives.',
  threads: [AUTH_THREAD],
  initial: () => new GrantGraph(),
  apply(graph, { record }) {
    if (record.thread !== AUTH_THREAD) return graph;
    const kind = record.body['kind'];
    if (kind === KIND_GRANT) {
      const fields = readGrantFields(record.body);
      if (typeof fields !== 'string' && !graph.has(record.id)) graph.add(record.id, fields);
    } else if (kind === KIND_GRANT_REVOCATION) {
      const id = record.body['revoked_grant'];
      if (typeof id === 'string') graph.revoke(id, typeof record.body['revoked_at'] === 'string' ? (record.body['revoked_at'] as string) : null, typeof record.body['note'] === 'string' ? (record.body['note'] as string) : null);
    }
    return graph;
  },
  value(graph) {
    const now = Date.now();
    return { as_of: new Date(now).toISOString(), grants: [...graph.all()].map((node) => grantRow(graph, node, now)) };
  },
  view(value, viewer) {
    if (isAdmin(viewer.scopes)) return value;
    const me = viewer.principal;
    return { as_of: value.as_of, grants: me === null ? [] : value.grants.filter((g) => g.iss === me || g.aud === me) };
  },
};

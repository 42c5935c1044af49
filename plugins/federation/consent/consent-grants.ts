/**
 * Consent records on `th_consent` (spec §2.8): a grant (LEARN, body kind
 * `core.consent.grant.v1`) lets records of `source_namespace` (and the
 * namespaces under it) cross into `target_namespace` at the listed hash
 * levels (default L1), for the listed threads (default all); a revocation
 * (LEARN or DO, `core.consent.revoke.v1`, `grant` = the grant's record id)
 * ends it, not retroactively.
 */
import type { LoomRecord } from '../../../core/records/record.js';
import { namespaceSyntaxError } from '../../../core/records/namespace-path.js';
import { isRecordId } from '../../../core/records/record-id.js';
import { isHashLevel, type HashLevel } from './hash-levels.js';

export const GRANT_KIND = 'core.consent.grant.v1';
export const REVOKE_KIND = 'core.consent.revoke.v1';

export interface ConsentGrant {
  readonly type: 'grant';
  readonly id: string;
  readonly sourceNamespace: string;
  readonly targetNamespace: string;
  readonly hashLevels: readonly HashLevel[];
  readonly threads: readonly string[];
  readonly purpose: string | null;
  readonly expiresAt: number | null;
}

export interface ConsentRevocation {
  readonly type: 'revoke';
  readonly grant: string;
}

function namespaceProblem(value: unknown, field: string): string | null {
  if (typeof value !== 'string' || value.length === 0) return `body.${field}: a namespace is required`;
  if (value === 'default') return null;
  const syntax = namespaceSyntaxError(value);
  return syntax ? `body.${field}: ${syntax}` : null;
}

/** Why a record on th_consent is not a well-formed grant or revocation, or null. */
export function consentProblem(record: LoomRecord): string | null {
  const body = record.body as Record<string, unknown>;
  if (body['kind'] === GRANT_KIND) {
    if (record.act !== 'LEARN') return 'a consent grant is a LEARN record';
    const problem = namespaceProblem(body['source_namespace'], 'source_namespace') ?? namespaceProblem(body['target_namespace'], 'target_namespace');
    if (problem) return problem;
    const levels = body['hash_levels'];
    if (levels !== undefined && (!Array.isArray(levels) || levels.length === 0 || !levels.every(isHashLevel))) return 'body.hash_levels: a non-empty list of L0, L1, L2, L3';
    const threads = body['threads'];
    if (threads !== undefined && (!Array.isArray(threads) || threads.length === 0 || !threads.every((t) => typeof t === 'string' && t.length > 0))) return 'body.threads: a non-empty list of thread ids or "*"';
    const expires = body['expires_at'];
    if (expires !== undefined && (typeof expires !== 'string' || Number.isNaN(Date.parse(expires)))) return 'body.expires_at: an ISO 8601 time';
    if (body['purpose'] !== undefined && typeof body['purpose'] !== 'string') return 'body.purpose: a string';
    return null;
  }
  if (body['kind'] === REVOKE_KIND) {
    if (record.act !== 'LEARN' && record.act !== 'DO') return 'a consent revocation is a LEARN or DO record';
    return isRecordId(body['grant']) ? null : "body.grant: the grant's record id";
  }
  return `body.kind: records on th_consent are ${GRANT_KIND} or ${REVOKE_KIND}`;
}

export function parseConsentRecord(record: LoomRecord): ConsentGrant | ConsentRevocation | null {
  if (consentProblem(record) !== null) return null;
  const body = record.body as Record<string, unknown>;
  if (body['kind'] === REVOKE_KIND) return { type: 'revoke', grant: body['grant'] as string };
  return {
    type: 'grant',
    id: record.id,
    sourceNamespace: body['source_namespace'] as string,
    targetNamespace: body['target_namespace'] as string,
    hashLevels: (body['hash_levels'] as HashLevel[] | undefined) ?? ['L1'],
    threads: (body['threads'] as string[] | undefined) ?? ['*'],
    purpose: typeof body['purpose'] === 'string' ? body['purpose'] : null,
    expiresAt: typeof body['expires_at'] === 'string' ? Date.parse(body['expires_at']) : null,
  };
}

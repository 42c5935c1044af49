/**
 * Bindings (spec §4.11): the proofs a principal can re-credential with. A
 * recovery code is kept only as its hash and is spent by use; a passkey keeps
 * its public key and the last signature counter seen; an account binding
 * keeps the subject an account verifier vouches for. Removal (by the
 * principal, or by spending a recovery code) is a record like any other.
 */
import type { LoomRecord } from '../../core/records/record.js';

export const BINDING_KINDS = ['recovery_code', 'account', 'passkey'] as const;
export type BindingKind = (typeof BINDING_KINDS)[number];

export interface PasskeyMaterial {
  /** base64url credential id, as the authenticator reports it. */
  readonly credential_id: string;
  /** base64url COSE public key. */
  readonly public_key: string;
  counter: number;
  readonly transports: readonly string[];
}

export interface BindingEntry {
  readonly id: string;
  readonly principal: string;
  readonly kind: BindingKind;
  readonly created_at: string | null;
  /** SHA-256 (hex) of the normalised recovery code. */
  readonly code_hash: string | null;
  readonly subject: string | null;
  readonly passkey: PasskeyMaterial | null;
  removed: boolean;
  removed_reason: string | null;
  readonly record_id: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

export function applyBinding(bindings: Map<string, BindingEntry>, record: LoomRecord, body: Readonly<Record<string, unknown>>): boolean {
  const id = text(body['binding_id']);
  const principal = text(body['principal']);
  const kind = body['binding_kind'];
  if (id === null || principal === null || bindings.has(id) || !(BINDING_KINDS as readonly unknown[]).includes(kind)) return false;
  let passkey: PasskeyMaterial | null = null;
  if (kind === 'passkey') {
    const material = body['passkey'] as Record<string, unknown> | undefined;
    const credentialId = text(material?.['credential_id']);
    const publicKey = text(material?.['public_key']);
    const counter = material?.['counter'];
    if (credentialId === null || publicKey === null || typeof counter !== 'number') return false;
    const transports = Array.isArray(material?.['transports']) ? (material['transports'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
    passkey = { credential_id: credentialId, public_key: publicKey, counter, transports };
  }
  const codeHash = text(body['code_hash']);
  if (kind === 'recovery_code' && (codeHash === null || !/^[0-9a-f]{64}$/.test(codeHash))) return false;
  const subject = text(body['subject']);
  if (kind === 'account' && subject === null) return false;
  bindings.set(id, {
    id,
    principal,
    kind: kind as BindingKind,
    created_at: text(body['created_at']),
    code_hash: kind === 'recovery_code' ? codeHash : null,
    subject: kind === 'account' ? subject : null,
    passkey,
    removed: false,
    removed_reason: null,
    record_id: record.id,
  });
  return true;
}

export function applyBindingRemoval(bindings: Map<string, BindingEntry>, body: Readonly<Record<string, unknown>>): boolean {
  const binding = bindings.get(text(body['binding_id']) ?? '');
  if (!binding || binding.removed) return false;
  binding.removed = true;
  binding.removed_reason = text(body['reason']);
  return true;
}

export function applyPasskeyCounter(bindings: Map<string, BindingEntry>, body: Readonly<Record<string, unknown>>): boolean {
  const binding = bindings.get(text(body['binding_id']) ?? '');
  const counter = body['counter'];
  if (!binding?.passkey || typeof counter !== 'number' || counter <= binding.passkey.counter) return false;
  binding.passkey.counter = counter;
  return true;
}

/** The live bindings of a principal, oldest first. */
export function liveBindingsOf(bindings: ReadonlyMap<string, BindingEntry>, principal: string, kind?: BindingKind): BindingEntry[] {
  const found: BindingEntry[] = [];
  for (const binding of bindings.values()) if (binding.principal === principal && !binding.removed && (kind === undefined || binding.kind === kind)) found.push(binding);
  return found;
}

/**
 * A mailbox envelope (issue 35, relay): one signed page of the sender's
 * changes feed, addressed to one receiver, deposited at a relay when the
 * receiver's direct pulls have stopped arriving. The relay stores and serves
 * it; it never has to be trusted, because everything the receiver acts on is
 * signed end to end by the sender's instance key:
 * - the sender and receiver DIDs (a relay cannot hand one receiver's
 *   envelope to another as if it were theirs);
 * - the source request the page answers (`since`, target namespace, thread)
 *   and the source cursor it reaches (`next_cursor`): positions in the
 *   sender's own feed, never a relay-local sequence, so switching relays
 *   cannot lose or duplicate anything;
 * - every record whole, with its source id; each id is recomputed from the
 *   record's content too (records are content-addressed).
 * The envelope id is the SHA-256 of those signed bytes, so it is
 * deterministic: depositing the same page twice is one envelope.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { computeRecordId } from '../../../core/records/record-id.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { publicKeyFromDidKey } from '../did-key.js';
import { verifyEd25519Fast } from '../ed25519.js';
import type { PageRequest, SyncEntry, SyncPage } from '../sync-page.js';
import { acceptableKeys, descendsFrom, KeyChainError, parseKeyChain, type KeyChain } from '../keys/key-chain.js';

export const ENVELOPE_OBJECT = 'mailbox_envelope.v1';
export const ENVELOPE_ID_PATTERN = /^menv_[0-9a-f]{64}$/;
const BASE64_SIGNATURE = /^[A-Za-z0-9+/]{85}[AQgw]==$/;

export interface MailboxEnvelope {
  readonly object: typeof ENVELOPE_OBJECT;
  /** `menv_` + SHA-256 (hex) of the signed bytes. */
  readonly id: string;
  readonly sender: string;
  readonly receiver: string;
  readonly request: PageRequest;
  readonly records: SyncEntry[];
  readonly next_cursor: string;
  readonly has_more: boolean;
  /** Ed25519 (base64) by the sender's instance key over `envelopeSigningInput`. */
  readonly signature: string;
  /**
   * The sender's key chain (keys/key-chain.ts) once it has rotated its key:
   * self-certifying from the sender DID's own key, so a relay that never met
   * the sender checks the signature against the key in force. Not signed (it
   * needs no signature); absent while the sender signs with its DID's key.
   */
  readonly sender_keys?: KeyChain;
}

type Unsigned = Omit<MailboxEnvelope, 'id' | 'signature' | 'sender_keys'>;

/** The signed bytes: canonical JSON of everything but the id and the signature. Throws on a value that is not I-JSON. */
export function envelopeSigningInput(envelope: Unsigned): Buffer {
  return Buffer.from(
    canonicalJson({
      object: ENVELOPE_OBJECT,
      sender: envelope.sender,
      receiver: envelope.receiver,
      request: { since: envelope.request.since, target_namespace: envelope.request.target_namespace, thread: envelope.request.thread },
      next_cursor: envelope.next_cursor,
      has_more: envelope.has_more,
      entries: envelope.records.map((entry) => [entry.id, entry.hash_level, entry.committed_at, entry.record]),
    }),
    'utf8',
  );
}

export function envelopeIdOf(signingInput: Uint8Array): string {
  return `menv_${createHash('sha256').update(signingInput).digest('hex')}`;
}

/** Wraps a page of this instance's feed (already filtered for the receiver) into a signed envelope. */
export function sealEnvelope(signer: { did: string; sign(message: Uint8Array): Uint8Array; chain?(): KeyChain }, receiver: string, page: SyncPage): MailboxEnvelope {
  const unsigned: Unsigned = { object: ENVELOPE_OBJECT, sender: signer.did, receiver, request: page.request, records: page.records, next_cursor: page.next_cursor, has_more: page.has_more };
  const input = envelopeSigningInput(unsigned);
  const chain = signer.chain?.();
  return { ...unsigned, id: envelopeIdOf(input), signature: Buffer.from(signer.sign(input)).toString('base64'), ...(chain && chain.previous.length > 0 ? { sender_keys: chain } : {}) };
}

export type EnvelopeProblemCode = 'ENVELOPE_MALFORMED' | 'ENVELOPE_ID_MISMATCH' | 'SIGNATURE_INVALID' | 'TAMPERED';

export interface EnvelopeProblem {
  readonly code: EnvelopeProblemCode;
  readonly message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The exact shape, before anything else is looked at. */
function shapeProblem(value: unknown): string | null {
  if (!isObject(value)) return 'not an object';
  const keys = Object.keys(value).filter((key) => key !== 'sender_keys').sort().join(',');
  if (keys !== 'has_more,id,next_cursor,object,receiver,records,request,sender,signature') return `fields ${keys} (expected exactly object, id, sender, receiver, request, records, next_cursor, has_more, signature, and sender_keys once the sender rotated its key)`;
  if (value['object'] !== ENVELOPE_OBJECT) return `object is not ${ENVELOPE_OBJECT}`;
  if (typeof value['id'] !== 'string' || !ENVELOPE_ID_PATTERN.test(value['id'])) return 'id is not menv_ + 64 hex';
  for (const field of ['sender', 'receiver', 'next_cursor', 'signature'] as const) if (typeof value[field] !== 'string') return `${field} is not a string`;
  if (typeof value['has_more'] !== 'boolean') return 'has_more is not a boolean';
  const request = value['request'];
  if (!isObject(request) || !(request['since'] === null || typeof request['since'] === 'string') || typeof request['target_namespace'] !== 'string' || !(request['thread'] === null || typeof request['thread'] === 'string')) return 'request is not {since, target_namespace, thread}';
  if (!Array.isArray(value['records'])) return 'records is not an array';
  for (const entry of value['records'] as unknown[]) {
    if (!isObject(entry) || typeof entry['id'] !== 'string' || typeof entry['hash_level'] !== 'string' || typeof entry['committed_at'] !== 'string' || !isObject(entry['record'])) return 'a records entry is not {id, record, hash_level, committed_at}';
  }
  return null;
}

/**
 * The keys whose signature counts for the envelope's sender now: from its
 * `sender_keys` chain (verified from the sender DID's own key; with `pinned`,
 * it must descend from the key the verifier trusts for the sender), else the
 * sender DID's own key.
 */
export function envelopeSigningKeys(envelope: Pick<MailboxEnvelope, 'sender' | 'sender_keys'>, now: number, pinned: string | null = null): string[] | EnvelopeProblem {
  if (envelope.sender_keys === undefined) return [envelope.sender];
  let chain: KeyChain;
  try {
    chain = parseKeyChain(envelope.sender, envelope.sender_keys);
  } catch (error) {
    if (error instanceof KeyChainError) return { code: 'SIGNATURE_INVALID', message: `sender_keys: ${error.message}` };
    throw error;
  }
  if (pinned !== null && !descendsFrom(chain, pinned)) return { code: 'SIGNATURE_INVALID', message: `sender_keys do not descend from the key pinned for ${envelope.sender}` };
  return acceptableKeys(chain, now);
}

/**
 * Why the envelope cannot be trusted as sent by `expectedSender`, or null.
 * Checks, in order: the exact shape; the sender is the one expected (the
 * receiver passes its pinned peer DID, the relay the DID the envelope names);
 * the id is the hash of the signed bytes; the signature verifies against one
 * of the sender's keys in force (`keys`, envelopeSigningKeys; by default the
 * sender DID's own key); every record hashes to its own id and its entry's
 * id. A record altered in storage fails the signature; the message then names it.
 */
export function envelopeProblem(value: unknown, expectedSender: string, keys: (envelope: MailboxEnvelope) => string[] | EnvelopeProblem = (envelope) => envelopeSigningKeys(envelope, Date.now())): EnvelopeProblem | null {
  const shape = shapeProblem(value);
  if (shape) return { code: 'ENVELOPE_MALFORMED', message: `not a ${ENVELOPE_OBJECT}: ${shape}` };
  const envelope = value as unknown as MailboxEnvelope;
  if (envelope.sender !== expectedSender) return { code: 'SIGNATURE_INVALID', message: `envelope names sender ${envelope.sender}, expected ${expectedSender}` };
  const candidates = keys(envelope);
  if (!Array.isArray(candidates)) return candidates;
  const publicKeys = candidates.map((key) => publicKeyFromDidKey(key)).filter((key): key is Uint8Array => key !== null);
  if (publicKeys.length === 0) return { code: 'SIGNATURE_INVALID', message: `sender ${expectedSender} is not an Ed25519 did:key` };
  let input: Buffer;
  try {
    input = envelopeSigningInput(envelope);
  } catch {
    return { code: 'ENVELOPE_MALFORMED', message: 'the envelope holds a value that is not I-JSON, so it cannot be what the sender signed' };
  }
  const altered = alteredRecord(envelope.records);
  if (envelopeIdOf(input) !== envelope.id) return altered ? { code: 'TAMPERED', message: `record ${altered} does not hash to its id: the envelope was altered after it was sealed` } : { code: 'ENVELOPE_ID_MISMATCH', message: 'the envelope id is not the hash of its content: altered after it was sealed' };
  const signature = BASE64_SIGNATURE.test(envelope.signature) ? Buffer.from(envelope.signature, 'base64') : null;
  if (!signature || !publicKeys.some((key) => verifyEd25519Fast(key, input, signature))) return { code: 'SIGNATURE_INVALID', message: `the envelope signature does not verify against a key in force of ${expectedSender}` };
  if (altered) return { code: 'TAMPERED', message: `record ${altered} does not hash to its id` };
  return null;
}

/** The first entry whose record does not hash to its id (or whose entry id differs), if any. */
function alteredRecord(records: readonly SyncEntry[]): string | null {
  for (const entry of records) {
    try {
      const record = entry.record as LoomRecord;
      if (record.id !== entry.id || computeRecordId(record) !== record.id) return String(entry.id);
    } catch {
      return String(entry.id);
    }
  }
  return null;
}

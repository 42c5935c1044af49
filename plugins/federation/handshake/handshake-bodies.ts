/**
 * The bodies of the pairing handshake (spec §4.13 `POST /v1/federation/pair`,
 * §5.7: authenticated by signatures, not bearers) and how they are read.
 * Every body is a flat object with an exact field set, signed by its sender's
 * did:key over the canonical JSON of everything but `sig`, and carries a
 * single-use `nonce` and a signed `created` that must be within ±60 s of the
 * reader's clock. Reading is fail-closed and ordered so nothing in a body is
 * trusted before its signature verifies; every refusal is a LoomError with a
 * typed code (core/errors/codes.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { LoomError } from '../../../core/errors/loom-error.js';
import { publicKeyFromDidKey } from '../did-key.js';
import type { InstanceKey } from '../instance-key.js';
import { PAIR_MODES, type PairMode } from '../pair-records.js';
import type { PeerKeys } from '../keys/peer-keys.js';
import { signCanonical, verifyCanonical } from '../signing.js';

/** How far a signed `created` may be from this instance's clock (the prior art's federated-proof freshness). */
export const CLOCK_WINDOW_MS = 60_000;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const PAIR_ID_PATTERN = /^fed_[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const URL_PATTERN = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;
const BEARER = /^[A-Za-z0-9._~-]{16,512}$/;
const SCOPE = /^[a-z0-9_:.-]{1,200}$/;

type Field = 'did' | 'url' | 'nonce' | 'iso' | 'pair_id' | 'mode' | 'text' | 'object' | 'bearer' | 'bearer?' | 'iso?' | 'state' | 'scopes' | 'object_kind';
type Spec = Readonly<Record<string, Field>>;

const REQUEST: Spec = { object: 'object_kind', protocol: 'text', initiator_did: 'did', initiator_url: 'url', initiator_manifest: 'object', responder_did: 'did', nonce: 'nonce', created: 'iso', mode: 'mode', token: 'bearer', token_expires_at: 'iso', sig: 'text' };
const ANSWER: Spec = { object: 'object_kind', pair_id: 'pair_id', state: 'state', initiator_did: 'did', responder_did: 'did', nonce: 'nonce', created: 'iso', token: 'bearer?', token_expires_at: 'iso?', scopes: 'scopes', sig: 'text' };
const POLL: Spec = { object: 'object_kind', pair_id: 'pair_id', initiator_did: 'did', responder_did: 'did', nonce: 'nonce', created: 'iso', sig: 'text' };
const RENEW: Spec = { object: 'object_kind', pair_id: 'pair_id', from_did: 'did', to_did: 'did', nonce: 'nonce', created: 'iso', sig: 'text' };
const RENEWED: Spec = { object: 'object_kind', pair_id: 'pair_id', from_did: 'did', to_did: 'did', nonce: 'nonce', created: 'iso', token: 'bearer', token_expires_at: 'iso', sig: 'text' };
const NOTICE: Spec = { object: 'object_kind', pair_id: 'pair_id', from_did: 'did', to_did: 'did', nonce: 'nonce', created: 'iso', reason: 'text', sig: 'text' };

export interface PairRequestBody {
  readonly object: 'pair_request';
  readonly protocol: string;
  readonly initiator_did: string;
  readonly initiator_url: string;
  readonly initiator_manifest: Record<string, unknown>;
  readonly responder_did: string;
  readonly nonce: string;
  readonly created: string;
  readonly mode: PairMode;
  /** A bearer of the initiator for the responder (federation:sync + federation:subscribe + the reads it allows). */
  readonly token: string;
  readonly token_expires_at: string;
  readonly sig: string;
}

export type PairAnswerState = 'active' | 'establishing' | 'revoked';

export interface PairAnswerBody {
  readonly object: 'pair_answer';
  readonly pair_id: string;
  readonly state: PairAnswerState;
  readonly initiator_did: string;
  readonly responder_did: string;
  /** The nonce of the request or poll this answers: binds the answer to it. */
  readonly nonce: string;
  readonly created: string;
  /** The responder's bearer for the initiator, once the pair is active. */
  readonly token: string | null;
  readonly token_expires_at: string | null;
  readonly scopes: readonly string[];
  readonly sig: string;
}

export interface PairPollBody {
  readonly object: 'pair_poll';
  readonly pair_id: string;
  readonly initiator_did: string;
  readonly responder_did: string;
  readonly nonce: string;
  readonly created: string;
  readonly sig: string;
}

/** The holder of a pair token asks its issuer (the peer) for a new one before it expires. */
export interface TokenRenewBody {
  readonly object: 'pair_token_renew';
  readonly pair_id: string;
  readonly from_did: string;
  readonly to_did: string;
  readonly nonce: string;
  readonly created: string;
  readonly sig: string;
}

/** The issuer's signed answer: the new token (bound to the renewal by its nonce). */
export interface TokenRenewedBody {
  readonly object: 'pair_token';
  readonly pair_id: string;
  readonly from_did: string;
  readonly to_did: string;
  readonly nonce: string;
  readonly created: string;
  readonly token: string;
  readonly token_expires_at: string;
  readonly sig: string;
}

export interface RevokeNoticeBody {
  readonly object: 'pair_revoke_notice';
  readonly pair_id: string;
  readonly from_did: string;
  readonly to_did: string;
  readonly nonce: string;
  readonly created: string;
  readonly reason: string;
  readonly sig: string;
}

function fieldOk(kind: Field, value: unknown, objectName: string): boolean {
  switch (kind) {
    case 'object_kind':
      return value === objectName;
    case 'did':
      return typeof value === 'string' && publicKeyFromDidKey(value) !== null && !value.includes('#');
    case 'url':
      return typeof value === 'string' && value.length <= 2048 && URL_PATTERN.test(value);
    case 'nonce':
      return typeof value === 'string' && NONCE_PATTERN.test(value);
    case 'iso':
      return typeof value === 'string' && ISO.test(value) && Number.isFinite(Date.parse(value));
    case 'iso?':
      return value === null || fieldOk('iso', value, objectName);
    case 'pair_id':
      return typeof value === 'string' && PAIR_ID_PATTERN.test(value);
    case 'mode':
      return typeof value === 'string' && (PAIR_MODES as readonly string[]).includes(value);
    case 'state':
      return value === 'active' || value === 'establishing' || value === 'revoked';
    case 'text':
      return typeof value === 'string' && value.length >= 1 && value.length <= 512;
    case 'bearer':
      return typeof value === 'string' && BEARER.test(value);
    case 'bearer?':
      return value === null || fieldOk('bearer', value, objectName);
    case 'scopes':
      return Array.isArray(value) && value.length <= 32 && value.every((s) => typeof s === 'string' && SCOPE.test(s));
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** The exact field set, each of its kind; anything else is INVALID_SHAPE naming the first field at fault. */
function readBody<T>(value: unknown, objectName: string, spec: Spec): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LoomError('INVALID_SHAPE', `a ${objectName} body is a JSON object`);
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!(key in spec)) throw new LoomError('INVALID_SHAPE', `${objectName}: unknown field ${JSON.stringify(key.slice(0, 64))}`);
  for (const [key, kind] of Object.entries(spec)) {
    if (!(key in body)) throw new LoomError('INVALID_SHAPE', `${objectName}: ${key} is required`);
    if (!fieldOk(kind, body[key], objectName)) throw new LoomError('INVALID_SHAPE', `${objectName}: ${key} is not a valid ${kind}`);
  }
  return body as T;
}

export const readPairRequest = (value: unknown) => readBody<PairRequestBody>(value, 'pair_request', REQUEST);
export const readPairAnswer = (value: unknown) => readBody<PairAnswerBody>(value, 'pair_answer', ANSWER);
export const readPairPoll = (value: unknown) => readBody<PairPollBody>(value, 'pair_poll', POLL);
export const readTokenRenew = (value: unknown) => readBody<TokenRenewBody>(value, 'pair_token_renew', RENEW);
export const readTokenRenewed = (value: unknown) => readBody<TokenRenewedBody>(value, 'pair_token', RENEWED);
export const readRevokeNotice = (value: unknown) => readBody<RevokeNoticeBody>(value, 'pair_revoke_notice', NOTICE);

/** Signs a body (everything in it becomes covered) and returns it with `sig`. */
export function signBody<T extends object>(key: Pick<InstanceKey, 'sign'>, body: T): T & { sig: string } {
  return { ...body, sig: signCanonical(key, body) };
}

/** PAIR_SIGNATURE_INVALID unless `sig` verifies against one of `keys` (default: `did`'s own key) over the rest of the body. */
export function requireSignature(body: { readonly sig: string }, did: string, what: string, keys: readonly string[] = [did]): void {
  const { sig, ...rest } = body;
  if (!keys.some((key) => verifyCanonical(key, rest, sig))) throw new LoomError('PAIR_SIGNATURE_INVALID', `${what}: the signature does not verify against ${did}`);
}

/**
 * The same for a known peer, through its keys in force (keys/peer-keys.ts):
 * a body signed by a key the peer rotated to is accepted after one refetch of
 * its manifest from `url`, through the pinned key's countersignature.
 * KEY_EXPIRED for a previous key past its expired_ts, KEY_CHAIN_INVALID for a
 * forged rotation, PAIR_SIGNATURE_INVALID otherwise.
 */
export async function requirePeerSignature(peerKeys: PeerKeys | undefined, body: { readonly sig: string }, did: string, what: string, url: string | null): Promise<void> {
  if (!peerKeys) return requireSignature(body, did, what);
  const { sig, ...rest } = body;
  const verdict = await peerKeys.verify(did, (key) => verifyCanonical(key, rest, sig), url);
  if (verdict.ok) return;
  throw new LoomError(verdict.code === 'SIGNATURE_INVALID' ? 'PAIR_SIGNATURE_INVALID' : verdict.code, `${what}: ${verdict.message}`);
}

/** PAIR_REQUEST_STALE unless the signed `created` is within ±60 s of `now`. */
export function requireFresh(created: string, now: number): void {
  const skew = Date.parse(created) - now;
  if (!(Math.abs(skew) <= CLOCK_WINDOW_MS)) {
    throw new LoomError('PAIR_REQUEST_STALE', `created ${created} is ${Math.round(skew / 1000)} s from this instance's clock; the window is ±${CLOCK_WINDOW_MS / 1000} s (check both clocks)`);
  }
}

export function newNonce(): string {
  return randomBytes(32).toString('base64url');
}

/** Both sides derive the same pair id from the two DIDs and the request's nonce (a re-pair is a new pair). */
export function pairIdOf(initiatorDid: string, responderDid: string, nonce: string): string {
  return `fed_${createHash('sha256').update(`${initiatorDid}\n${responderDid}\n${nonce}`).digest('hex').slice(0, 32)}`;
}

/** The sync pair that pulls the peer for a federation pair (plugins/federation/pair-runner.ts runs it). */
export function syncPairIdOf(pairId: string): string {
  return `sp_${pairId.slice('fed_'.length, 'fed_'.length + 24)}`;
}

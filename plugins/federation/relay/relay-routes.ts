/**
 * The relay mailbox routes (issue 35, relay) and the operator's view:
 * - `POST /v1/mailbox/{did}`: a sender deposits a signed envelope for `did`
 *   (no bearer: the envelope's own signature by the sender's did:key is
 *   checked, so nobody fills a queue with unsigned junk); 202.
 * - `GET /v1/mailbox/{did}/receive`, `POST /v1/mailbox/{did}/ack`: only the
 *   receiver, by a request signed with its own instance key (mailbox-proof.ts).
 * - `GET /v1/federation/relay`: what this instance sends, receives, rejected
 *   and serves (federation:manage).
 * The mailbox routes answer 404 MAILBOX_DISABLED unless the
 * `federation.relay_mailbox` record says `serve: true`. Refusals write nothing.
 */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { envelopeProblem, type MailboxEnvelope } from './envelope.js';
import { RelayServiceToken } from './relay-service.js';

const DID = Type.String({ pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$', maxLength: 256, description: 'The receiver DID.' });
const Params = Type.Object({ did: DID }, { additionalProperties: false });
const AnyObject = Type.Object({}, { additionalProperties: true });

const DepositSchema = Type.Object(
  {
    object: Type.Literal('mailbox_deposit'),
    id: Type.String(),
    receiver: Type.String(),
    duplicate: Type.Boolean({ description: 'The same envelope (same id, so the same content) was already waiting: nothing was written.' }),
    queued: Type.Integer({ description: 'Envelopes waiting for this receiver now.' }),
    deposited_at: Type.String(),
    expires_at: Type.String(),
  },
  { additionalProperties: false },
);

const BatchSchema = Type.Object(
  {
    object: Type.Literal('mailbox_batch'),
    receiver: Type.String(),
    envelopes: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          deposited_at: Type.String(),
          expires_at: Type.String(),
          envelope: Type.Union([AnyObject, Type.Null()], { description: 'The envelope as deposited; null when the stored copy is not even JSON any more.' }),
        },
        { additionalProperties: false },
      ),
    ),
    has_more: Type.Boolean(),
  },
  { additionalProperties: false },
);

const AckBody = Type.Object({ ids: Type.Array(Type.String({ pattern: '^menv_[0-9a-f]{64}$' }), { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false });
const AckSchema = Type.Object({ object: Type.Literal('mailbox_ack'), receiver: Type.String(), removed: Type.Integer() }, { additionalProperties: false });

const MAILBOX_ERRORS = ['INVALID_SHAPE', 'MAILBOX_DISABLED', 'MAILBOX_AUTH_INVALID', 'MAILBOX_NOT_YOURS'] as const;

export const depositMailboxEnvelope = defineRoute({
  operationId: 'depositMailboxEnvelope',
  method: 'POST',
  path: '/v1/mailbox/{did}',
  summary: 'Deposit a signed envelope for a receiver at this relay (no bearer)',
  description:
    'The body is a mailbox_envelope.v1 sealed by its sender: addressed to {did}, its id the SHA-256 of its signed content, its signature by the sender did:key. ' +
    'The relay checks all three (422 MAILBOX_ENVELOPE_INVALID) and stores it as deposited; the receiver verifies it again end to end. ' +
    'The same envelope twice is one (duplicate: true). 507 MAILBOX_FULL at the per-receiver cap (default 10,000); envelopes expire after the TTL (default 30 days). ' +
    '404 MAILBOX_DISABLED unless this instance serves mailboxes (federation.relay_mailbox serve: true).',
  tags: ['federation'],
  auth: 'none',
  request: { params: Params, body: AnyObject },
  bodyValidation: 'handler',
  maxBodyBytes: 4 * 1024 * 1024,
  responses: { 202: { description: 'Queued for the receiver.', schema: DepositSchema } },
  errors: ['INVALID_SHAPE', 'MAILBOX_DISABLED', 'MAILBOX_ENVELOPE_INVALID', 'MAILBOX_FULL'],
  inject: { relay: RelayServiceToken },
  handler: async ({ params, body }, { relay }) => {
    const limits = relay.servingLimits();
    const envelope = body as unknown as MailboxEnvelope;
    const sender = typeof envelope?.sender === 'string' ? envelope.sender : '';
    const problem = envelopeProblem(body, sender);
    if (problem) throw new LoomError('MAILBOX_ENVELOPE_INVALID', `${problem.code}: ${problem.message}`);
    if (envelope.receiver !== params.did) throw new LoomError('MAILBOX_ENVELOPE_INVALID', `the envelope is addressed to ${envelope.receiver}, not to ${params.did}`);
    const stored = await relay.mailboxes.deposit(params.did, envelope.id, JSON.stringify(body), limits);
    return Reply.json(202, { object: 'mailbox_deposit', id: envelope.id, receiver: params.did, ...stored });
  },
});

export const receiveMailbox = defineRoute({
  operationId: 'receiveMailbox',
  method: 'GET',
  path: '/v1/mailbox/{did}/receive',
  summary: 'The receiver reads its waiting envelopes, oldest first (signed by the receiver, no bearer)',
  description:
    'Only the receiver: the request is signed by the instance key of {did} (headers x-loom-mailbox-did, x-loom-mailbox-created within ±60 s, x-loom-mailbox-sig ' +
    'over {object: mailbox_access.v1, did, method, path, created, body_sha256: null}). 401 MAILBOX_AUTH_INVALID for a missing or wrong proof, 403 MAILBOX_NOT_YOURS ' +
    'for a valid proof by another DID. Envelopes stay until acked (POST …/ack) or expired. Positions are the senders\' own cursors inside each envelope; the relay adds none.',
  tags: ['federation'],
  auth: 'none',
  request: { params: Params, query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) }, { additionalProperties: false }) },
  responses: { 200: { description: 'Waiting envelopes.', schema: BatchSchema } },
  errors: [...MAILBOX_ERRORS],
  inject: { relay: RelayServiceToken },
  handler: async ({ params, query, headers }, { relay }) => {
    const limits = relay.servingLimits();
    relay.authenticate(headers, 'GET', `/v1/mailbox/${encodeURIComponent(params.did)}/receive`, undefined, params.did);
    const listed = await relay.mailboxes.list(params.did, query.limit ?? 20, limits);
    const envelopes = listed.envelopes.map((stored) => {
      let envelope: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(stored.text);
        envelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
      } catch {
        envelope = null;
      }
      return { id: stored.id, deposited_at: stored.deposited_at, expires_at: stored.expires_at, envelope };
    });
    return { object: 'mailbox_batch' as const, receiver: params.did, envelopes, has_more: listed.has_more };
  },
});

export const ackMailbox = defineRoute({
  operationId: 'ackMailbox',
  method: 'POST',
  path: '/v1/mailbox/{did}/ack',
  summary: 'The receiver removes envelopes it has decided (signed by the receiver, no bearer)',
  description: 'Signed like receive, with body_sha256 the SHA-256 of the canonical JSON body. Unknown or already removed ids are ignored, so an ack may be repeated.',
  tags: ['federation'],
  auth: 'none',
  request: { params: Params, body: AckBody },
  responses: { 200: { description: 'Removed.', schema: AckSchema } },
  errors: [...MAILBOX_ERRORS],
  inject: { relay: RelayServiceToken },
  handler: async ({ params, body, headers }, { relay }) => {
    relay.servingLimits();
    relay.authenticate(headers, 'POST', `/v1/mailbox/${encodeURIComponent(params.did)}/ack`, body, params.did);
    return { object: 'mailbox_ack' as const, receiver: params.did, removed: await relay.mailboxes.ack(params.did, body.ids) };
  },
});

export const getRelayStatus = defineRoute({
  operationId: 'getFederationRelay',
  method: 'GET',
  path: '/v1/federation/relay',
  summary: 'The relay as this instance uses and serves it',
  description:
    'sending: per federation pair, the relay, whether the peer is silent so envelopes are deposited, the push cursor, counts and the last error; ' +
    'receiving: per relay polled, counts and the last error; rejected: envelopes that failed end-to-end verification (or whose records were refused), newest last; ' +
    'serving: whether this instance serves mailboxes, its cap and TTL, and the envelopes waiting per receiver.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: { 200: { description: 'The relay status.', schema: Type.Object({ object: Type.Literal('federation_relay') }, { additionalProperties: true }) } },
  errors: [],
  inject: { relay: RelayServiceToken },
  handler: (_input, { relay }) => relay.status(),
});

export const RELAY_ROUTES = [depositMailboxEnvelope, receiveMailbox, ackMailbox, getRelayStatus] as const;

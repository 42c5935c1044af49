/** Schemas of the sync routes (spec §4.13). */
import { Type } from 'typebox';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';

export const HashLevelSchema = Type.Union([Type.Literal('L0'), Type.Literal('L1'), Type.Literal('L2'), Type.Literal('L3')], {
  description: 'The consent level the record was served at: L0 the record itself; L1 structural, L2 flow, L3 intent projections (docs/decisions.md).',
});

export const SyncEntrySchema = Type.Object({
  id: Type.String({ description: 'Id of the record as served (a projection has its own; body.source_id names the original).' }),
  record: RecordSchema,
  hash_level: HashLevelSchema,
  committed_at: Type.String({ description: 'When the serving instance committed the original (ISO 8601).' }),
});

export const PageRequestSchema = Type.Object(
  {
    since: Type.Union([Type.String(), Type.Null()], { description: "The cursor the page continues from, as the reader sent it ('' for the start; in a continuous feed, the previous event's next_cursor); null on a fetch by id." }),
    target_namespace: Type.String(),
    thread: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'SyncPageRequest', description: 'The request the page answers. Signed: a reader refuses a page whose binding is not what it asked for (a replayed or skipped-ahead page).' },
);

export const SyncPageSchema = Type.Object(
  {
    request: PageRequestSchema,
    records: Type.Array(SyncEntrySchema),
    next_cursor: Type.String({ description: 'Opaque; pass it as since. It moves past records withheld by consent or visibility.' }),
    has_more: Type.Boolean(),
    signer: Type.String({ description: "The serving instance's did:key." }),
    signature: Type.String({ description: 'Ed25519 (base64) over canonical JSON of {object:"sync_page.v2", signer, request, next_cursor, has_more, entries:[[id, hash_level, committed_at, record]…]}: every record whole, judged_by included.' }),
  },
  { $id: 'SyncPage' },
);

export const RecordSigSchema = Type.Object(
  {
    alg: Type.Literal('Ed25519'),
    signer: Type.String({ description: 'did:key of the signing instance.' }),
    value: Type.String({ description: 'Ed25519 signature (base64) over the canonical JSON of the record with its id, without sig.' }),
  },
  { $id: 'RecordSig' },
);

export const SyncRecordsBody = Type.Union(
  [
    Type.Object({ ids: Type.Array(Type.String({ pattern: '^[0-9a-f]{64}$' }), { minItems: 1, maxItems: 1000 }), target_namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) }, { additionalProperties: false }),
    Type.Object({ records: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1, maxItems: 1000, description: 'Records with their id and, from an instance, sig.' }) }, { additionalProperties: false }),
  ],
  { $id: 'SyncRecordsRequest' },
);

export const PushResultSchema = Type.Object(
  {
    object: Type.Literal('sync_push_result'),
    accepted: Type.Array(Type.String()),
    deduplicated: Type.Array(Type.String()),
    conflicts: Type.Array(Type.Object({ id: Type.String(), existing_id: Type.String() })),
    refused: Type.Array(Type.Object({ id: Type.String(), code: Type.String(), message: Type.String() })),
  },
  { $id: 'SyncPushResult' },
);

export const FetchResultSchema = Type.Object(
  {
    object: Type.Literal('sync_records'),
    request: PageRequestSchema,
    records: Type.Array(Type.Intersect([SyncEntrySchema, Type.Object({ origin: Type.Union([Type.String(), Type.Null()]) })])),
    missing: Type.Array(Type.String(), { description: 'Ids not found, not visible to the caller, or withheld by consent.' }),
    signer: Type.String(),
    signature: Type.String(),
    next_cursor: Type.String(),
    has_more: Type.Boolean(),
  },
  { $id: 'SyncRecords' },
);

const PairError = Type.Union([Type.Null(), Type.Object({ code: Type.String(), message: Type.String(), at: Type.String() })]);

export const PairSchema = Type.Object(
  {
    object: Type.Literal('sync_pair'),
    pair_id: Type.String(),
    peer_did: Type.String(),
    peer_url: Type.String(),
    thread_id: Type.Union([Type.String(), Type.Null()]),
    target_namespace: Type.String(),
    mode: Type.Union([Type.Literal('continuous'), Type.Literal('longpoll'), Type.Literal('polling'), Type.Literal('on-demand')]),
    poll_interval_ms: Type.Integer(),
    state: Type.Union([Type.Literal('running'), Type.Literal('failing'), Type.Literal('paused')]),
    cursor: Type.Union([Type.String(), Type.Null()]),
    retries: Type.Integer({ description: 'Consecutive failed pulls.' }),
    last_error: PairError,
    last_sync_at: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
  },
  { $id: 'SyncPair' },
);

export const CreatePairBody = Type.Object(
  {
    peer_did: Type.String({ pattern: '^did:key:z[1-9A-HJ-NP-Za-km-z]{40,60}$', description: "The source instance's did:key (its /health instance_did)." }),
    peer_url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }),
    thread_id: Type.Optional(Type.Union([Type.String({ minLength: 4, maxLength: 80 }), Type.Null()])),
    target_namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The namespace records land in here (consent target at the source). @default default' })),
    mode: Type.Optional(Type.Union([Type.Literal('continuous'), Type.Literal('longpoll'), Type.Literal('polling'), Type.Literal('on-demand')], { description: 'on-demand: one pull at start, then only on kick. @default continuous' })),
    poll_interval_ms: Type.Optional(Type.Integer({ minimum: 10, maximum: 3_600_000 })),
    peer_token: Type.String({ minLength: 8, maxLength: 512, description: "A bearer of the source with federation:sync (and federation:subscribe for continuous) plus read scopes. Stored in a 0600 file, never echoed." }),
  },
  { additionalProperties: false, $id: 'CreateSyncPair' },
);

export const PairIdParams = Type.Object({ id: Type.String({ pattern: '^sp_[0-9a-f]{24}$' }) });

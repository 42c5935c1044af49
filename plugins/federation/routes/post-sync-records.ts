import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { namespaceOf } from '../../../storage/contract/stored-record.js';
import { projectRecord } from '../consent/hash-levels.js';
import { SyncServiceToken } from '../federation-token.js';
import { serviceAccountOf } from '../../auth/index.js';
import { PeerContactToken } from '../handshake/handshake-tokens.js';
import { PeerKeysToken } from '../keys/key-tokens.js';
import { verifyRecordSig, type RecordSig } from '../signing.js';
import { signPage, type SyncEntry } from '../sync-page.js';
import { FetchResultSchema, PushResultSchema, SyncRecordsBody } from './schemas.js';

export const postSyncRecords = defineRoute({
  operationId: 'postSyncRecords',
  method: 'POST',
  path: '/v1/sync/records',
  summary: 'Fetch records by id, or submit records from a peer',
  description:
    '`{ids}` fetches records by id, consent-filtered for `target_namespace` like the changes feed, in a signed page with each record\'s origin. ' +
    '`{records}` submits records: each is checked like any ingest (its id recomputed from content, every ingest gate) with `via: federation` ' +
    'when it carries `sig` (Ed25519 by the sending instance over the record\'s canonical JSON with its id). With header `x-service-federation: 1` ' +
    'every record must carry a `sig` that verifies, else 422 and nothing is stored. Replays are deduplicated by content hash; a record whose ' +
    '(actor, thread, clock) holds a different local record is quarantined as a conflict, never dropped or overwritten. ' +
    'A bearer minted for a federation pair that is paused here is refused 409 PAIR_PAUSED.',
  tags: ['federation'],
  auth: { scope: 'federation:sync' },
  request: { body: SyncRecordsBody },
  responses: { 200: { description: 'The fetched records, or what became of each submitted record.', schema: FetchResultSchema }, 201: { description: 'Submitted records processed.', schema: PushResultSchema } },
  errors: ['INVALID_SHAPE', 'FEDERATION_SIGNATURE_REQUIRED', 'FEDERATION_SIGNATURE_INVALID', 'PAYLOAD_TOO_LARGE', 'PAIR_PAUSED'],
  maxBodyBytes: 16 * 1024 * 1024,
  inject: { sync: SyncServiceToken, contact: PeerContactToken, peerKeys: PeerKeysToken },
  handler: async ({ body, headers, caller }, { sync, contact, peerKeys }) => {
    contact.seen(serviceAccountOf(caller));
    if ('ids' in body) {
      const target = body.target_namespace ?? 'default';
      const records: Array<SyncEntry & { origin: string | null }> = [];
      const missing: string[] = [];
      for (const id of body.ids) {
        const stored = await sync.reader.get(caller, id);
        const level = stored && !sync.localThreads.has(stored.record) ? sync.consent.levelFor(namespaceOf(stored.record), target, stored.record.thread, Date.now()) : null;
        if (!stored || level === null) {
          missing.push(id);
          continue;
        }
        const served = level === 'L0' ? stored.record : projectRecord(stored.record, level, sync.signer.did);
        const origin = await sync.origins.origin(id);
        records.push({ id: served.id, record: served, hash_level: level, committed_at: new Date(stored.createdAt).toISOString(), origin: origin?.origin ?? null });
      }
      // Not a feed page: `since: null` so it can never pass as the answer to a feed request.
      const page = signPage(sync.signer, { request: { since: null, target_namespace: target, thread: null }, records, next_cursor: '', has_more: false });
      return { object: 'sync_records' as const, ...page, records, missing };
    }

    const federated = headers['x-service-federation'] === '1';
    const signed: Array<{ record: LoomRecord; sig: RecordSig }> = [];
    const unsigned: LoomRecord[] = [];
    for (const [index, item] of body.records.entries()) {
      const { sig, ...record } = item as Record<string, unknown> & { sig?: unknown };
      if (sig === undefined) {
        if (federated) {
          sync.counters.recordRejected('unsigned', body.records.length);
          throw new LoomError('FEDERATION_SIGNATURE_REQUIRED', `records[${index}]: under x-service-federation: 1 every record must carry sig (Ed25519 by the sending instance); nothing was stored`);
        }
        unsigned.push(record as unknown as LoomRecord);
        continue;
      }
      // The signer's keys in force; a key it rotated to is followed through one refetch of its manifest (keys/peer-keys.ts).
      const { alg, signer, value } = (typeof sig === 'object' && sig !== null ? sig : {}) as Record<string, unknown>;
      const verdict =
        alg === 'Ed25519' && typeof signer === 'string' && typeof value === 'string'
          ? await peerKeys.verify(signer, (key) => verifyRecordSig(record as unknown as LoomRecord, sig, [key]))
          : { ok: false as const, code: 'SIGNATURE_INVALID' as const, message: 'sig is not {alg: Ed25519, signer, value}' };
      if (!verdict.ok) {
        sync.counters.recordRejected('signature_invalid', body.records.length);
        throw new LoomError('FEDERATION_SIGNATURE_INVALID', `records[${index}]: sig does not verify against its signer for this content (tampered, or signed by another key${verdict.code === 'KEY_EXPIRED' ? `: ${verdict.message}` : ''}); nothing was stored`);
      }
      signed.push({ record: record as unknown as LoomRecord, sig: sig as RecordSig });
    }
    const result = { object: 'sync_push_result' as const, accepted: [] as string[], deduplicated: [] as string[], conflicts: [] as Array<{ id: string; existing_id: string }>, refused: [] as Array<{ id: string; code: string; message: string }> };
    let tampered = 0;
    const merge = (outcome: Awaited<ReturnType<typeof sync.receiver.receive>>) => {
      tampered += outcome.tampered.length;
      result.accepted.push(...outcome.accepted);
      result.deduplicated.push(...outcome.deduplicated);
      result.conflicts.push(...outcome.conflicts);
      result.refused.push(...outcome.refused);
      // A peer's records on this instance's own threads (configuration, pairs, registry) are not stored: the pusher hears so.
      for (const id of outcome.skipped) result.refused.push({ id, code: 'FORBIDDEN', message: 'the record is on a thread that describes the receiving instance alone (its configuration, pairs or registry); a peer\'s is not stored' });
    };
    // Records signed by one instance are stored with it as their origin; a batch may relay several signers.
    const bySigner = new Map<string, LoomRecord[]>();
    for (const { record, sig } of signed) bySigner.set(sig.signer, [...(bySigner.get(sig.signer) ?? []), record]);
    for (const [signer, records] of bySigner) merge(await sync.receiver.receive(records, { caller, via: 'federation' }, { origin: signer, via: 'push', pair_id: null }));
    if (unsigned.length > 0) merge(await sync.receiver.receive(unsigned, { caller, via: 'api' }, null));
    sync.counters.pushed.accepted += result.accepted.length;
    sync.counters.pushed.deduplicated += result.deduplicated.length;
    sync.counters.pushed.conflicts += result.conflicts.length;
    sync.counters.pushed.refused += result.refused.length;
    if (tampered > 0) sync.counters.recordRejected('tampered', tampered);
    return Reply.json(201, result);
  },
});
